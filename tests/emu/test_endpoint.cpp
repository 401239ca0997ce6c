// The emulator's token file: read through the project's file checks, so that a folder, a missing
// file or an empty one is named as such (never "the token has 0 characters"), and a message
// never shows the token itself.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "emu/endpoint.h"
#include "util/error.h"

using namespace schedlab;
using namespace schedlab::emu;
namespace fs = std::filesystem;

namespace {

struct TokenFolder {
  fs::path path = fs::temp_directory_path() / ("schedlab-token-" + std::to_string(::getpid()));
  TokenFolder() {
    fs::remove_all(path);
    fs::create_directories(path / "folder");
  }
  ~TokenFolder() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const auto p = path / name;
    std::ofstream(p, std::ios::binary) << text;
    fs::permissions(p, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace);
    return p.string();
  }
};

std::string error_of(const std::string& path) {
  try {
    util::Notices notices;
    read_token_file(path, "--token-file", notices);
  } catch (const util::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("Emulation.TokenFile.reads_the_token_without_surrounding_white_space") {
  TokenFolder d;
  util::Notices notices;
  CHECK(read_token_file(d.write("t", "  0123456789abcdefXYZ\n"), "--token-file", notices) == "0123456789abcdefXYZ");
}

TEST_CASE("Emulation.TokenFile.a_folder_a_missing_file_an_empty_file_are_named_as_such") {
  TokenFolder d;
  const std::string folder = (d.path / "folder").string();
  const std::string missing = (d.path / "nope").string();
  struct Case {
    std::string path, says;
  };
  const Case cases[] = {
      {folder, folder + ": --token-file: is a folder, expected a file"},
      {missing, missing + ": --token-file: no such file"},
      {d.write("empty", ""), ": --token-file: the token file is empty"},
      {d.write("blank", " \n\t\n"), ": --token-file: the token file holds only white space"},
      {d.write("short", "abc\n"), ": --token-file: the token has 3 characters; at least 16 are needed"},
      {d.write("spaced", "0123456789 abcdefgh\n"), ": --token-file: the token must be printable ASCII"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.path);
    const std::string e = error_of(c.path);
    CHECK(e.find(c.says) != std::string::npos);
    CHECK(e.find('\n') == std::string::npos);
  }
  // The token is never quoted, even when it is refused.
  CHECK(error_of(d.write("secret", "s3cr3t-too-shrt")).find("s3cr3t") == std::string::npos);
  CHECK(error_of(d.write("secret2", "s3cr3t with-a-space\n")).find("s3cr3t") == std::string::npos);
}
