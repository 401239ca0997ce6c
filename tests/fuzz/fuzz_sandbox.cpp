// The fuzz targets' private folder (a mirror of the repository's layout) and shared helpers.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "fuzz_targets.h"

namespace fs = std::filesystem;

namespace schedlab::fuzz {
namespace {

// Links every entry of `from` into the real folder `to`.
void link_entries(const fs::path& from, const fs::path& to) {
  fs::create_directories(to);
  if (!fs::is_directory(from)) return;
  for (const auto& e : fs::directory_iterator(from)) {
    fs::path link = to / e.path().filename();
    if (!fs::exists(fs::symlink_status(link))) fs::create_symlink(e.path(), link);
  }
}

class Sandbox {
 public:
  Sandbox() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/schedlab-fuzz-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) throw std::runtime_error("fuzz sandbox: mkdtemp failed for " + pattern);
    root_ = buf.data();
    fs::path src = source_dir(), root = root_;
    // Read-only trees, linked whole.
    fs::create_directory_symlink(src / "configs", root / "configs");
    fs::create_directory_symlink(src / "traces", root / "traces");
    fs::path fix = root / "tests" / "fixtures";
    fs::create_directories(fix);
    fs::create_directory_symlink(src / "tests" / "fixtures" / "native", fix / "native");
    fs::create_directory_symlink(src / "configs", fix / "configs");
    // Folders inputs are written to: real folders whose other entries link to the sources.
    // Scenario inputs sit in tests/fixtures/scenarios/ (`../clusters/tiny.yaml`, `../native/..`,
    // `../configs/..` and the e2e traces next to them all resolve).
    link_entries(src / "tests" / "fixtures" / "clusters", fix / "clusters");
    link_entries(src / "tests" / "fixtures" / "traces", fix / "traces");
    link_entries(src / "traces", fix / "traces");
    link_entries(src / "tests" / "e2e" / "fixtures", fix / "scenarios");
    fs::create_directories(root / "in");
  }
  ~Sandbox() {
    std::error_code ec;  // remove_all removes links, never what they point to
    fs::remove_all(root_, ec);
  }
  const std::string& root() const { return root_; }

 private:
  std::string root_;
};

}  // namespace

std::string source_dir() { return SCHEDLAB_SOURCE_DIR; }

const std::string& sandbox_root() {
  static const Sandbox sandbox;
  return sandbox.root();
}

std::string write_input(const std::string& relative, const std::uint8_t* data, std::size_t size) {
  fs::path path = fs::path(sandbox_root()) / relative;
  // An earlier input may have left a link here (the e2e fixtures): never write through it.
  std::error_code ec;
  if (fs::is_symlink(path, ec)) fs::remove(path);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) throw std::runtime_error("fuzz sandbox: cannot write " + path.string());
  return path.string();
}

void expect(bool ok, const std::string& what) {
  if (!ok) throw InvariantError("invariant broken: " + what);
}

}  // namespace schedlab::fuzz
