// Test helpers for tests that write files: a fresh folder under the system's temporary folder
// (removed at the end of the test) and a file's whole content.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace schedlab::testing {

struct ScratchDir {
  std::filesystem::path path;
  // `name` keeps tests apart; the process id keeps concurrent test runs apart.
  explicit ScratchDir(const std::string& name)
      : path(std::filesystem::temp_directory_path() / ("schedlab-test-" + name + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
};

inline std::string file_text(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace schedlab::testing
