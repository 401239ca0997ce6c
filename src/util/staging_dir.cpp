// Temp-folder-then-rename results.
#include "util/staging_dir.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "util/error.h"

namespace schedlab {

namespace fs = std::filesystem;

StagingDir::StagingDir(std::string target) : target_(std::move(target)) {
  fs::path t(target_);
  if (t.filename().empty()) t = t.parent_path();
  target_ = t.string();
  temp_ = (t.parent_path() / fmt::format(".{}.tmp-{}", t.filename().string(), ::getpid())).string();
  std::error_code ec;
  fs::remove_all(temp_, ec);
  fs::create_directories(temp_, ec);
  if (ec) throw InputError(target_, 0, "", "cannot create results folder: " + ec.message());
}

StagingDir::~StagingDir() {
  if (!committed_) {
    std::error_code ec;
    fs::remove_all(temp_, ec);
  }
}

void StagingDir::commit() {
  std::error_code ec;
  fs::remove_all(target_, ec);
  fs::rename(temp_, target_, ec);
  if (ec) throw InputError(target_, 0, "", "cannot move results into place: " + ec.message());
  committed_ = true;
}

}  // namespace schedlab
