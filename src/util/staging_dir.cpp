// Results folders and output files written under a temporary name and moved into place,
// replacing only what schedlab wrote.
#include "util/staging_dir.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

#include "util/error.h"
#include "util/input_files.h"
#include "util/process_alive.h"

namespace schedlab::util {

namespace fs = std::filesystem;

namespace {

std::string errno_text() { return std::strerror(errno); }

// "results/x/" -> "results/x"; "" is refused.
fs::path normalized(const std::string& target, const std::string& option) {
  if (target.empty()) throw InputError("", 0, option, "empty path");
  fs::path t = fs::path(target).lexically_normal();
  while (t.filename().empty() && t.has_relative_path()) t = t.parent_path();
  return t;
}

// The folders no run may replace, whatever the options: replacing them would take the
// user's own files (or the folder the shell stands in) with them.
void refuse_unsafe(const fs::path& t, const std::string& shown, const std::string& option) {
  std::error_code ec;
  fs::path abs = fs::weakly_canonical(fs::absolute(t, ec), ec);
  if (ec) return;  // unreadable: creating the folder will fail and say so
  if (abs == abs.root_path()) throw InputError(shown, 0, option, "is the root folder; give a folder of its own");
  fs::path cwd = fs::current_path(ec);
  if (!ec) {
    auto [a, c] = std::mismatch(abs.begin(), abs.end(), cwd.begin(), cwd.end());
    if (a == abs.end())
      throw InputError(shown, 0, option,
                       "is the current folder or a folder above it; give a folder of its own (e.g. results/NAME)");
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    fs::path h = fs::weakly_canonical(home, ec);
    if (!ec && abs == h) throw InputError(shown, 0, option, "is the home folder; give a folder of its own");
  }
}

const std::string kMarkerPrefix = "schedlab ";

void write_marker(const fs::path& folder, const std::string& text) {
  std::ofstream f(folder / kResultsMarker, std::ios::binary | std::ios::trunc);
  f << text;
  f.close();
  if (!f) throw InputError((folder / kResultsMarker).string(), 0, "", "cannot write: " + errno_text());
}

// Removes a folder this process moved out of the way (a replaced results folder, or an
// empty folder replaced with --force), checking once more that it is one of those.
void remove_replaced(const fs::path& old) {
  std::error_code ec;
  if (is_results_folder(old.string()))
    fs::remove_all(old, ec);
  else
    fs::remove(old, ec);  // only when empty
}

// The process id in "<prefix><pid>", or 0.
pid_t pid_after(const std::string& name, const std::string& prefix) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return 0;
  long pid = 0;
  const char* first = name.data() + prefix.size();
  const char* last = name.data() + name.size();
  auto [ptr, err] = std::from_chars(first, last, pid);
  if (err != std::errc() || ptr != last || pid <= 0) return 0;
  return static_cast<pid_t>(pid);
}

// Removes what killed runs into the same target left beside it: `.NAME.tmp-PID` (staging)
// and `.NAME.old-PID` (a results folder moved aside) of a process that no longer exists,
// and only when marked as results (or empty: a run killed before it marked its folder).
void remove_stale_staging(const fs::path& parent, const std::string& name) {
  const std::string tmp_prefix = "." + name + ".tmp-";
  const std::string old_prefix = "." + name + ".old-";
  std::vector<fs::path> stale;
  std::error_code ec;
  for (fs::directory_iterator it(parent.empty() ? fs::path(".") : parent, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::string entry = it->path().filename().string();
    pid_t pid = pid_after(entry, tmp_prefix);
    if (!pid) pid = pid_after(entry, old_prefix);
    if (!pid || pid == ::getpid()) continue;
    // Alive, or owned by another user (EPERM): not ours to judge.
    if (process_alive(pid)) continue;
    std::error_code e2;
    if (it->symlink_status(e2).type() == fs::file_type::directory) stale.push_back(it->path());
  }
  for (const auto& p : stale) remove_replaced(p);
}

}  // namespace

bool is_results_folder(const std::string& folder) {
  fs::path marker = fs::path(folder) / kResultsMarker;
  std::error_code ec;
  if (fs::symlink_status(marker, ec).type() != fs::file_type::regular) return false;
  // Its first bytes only: a huge file under the marker's name costs nothing to refuse. (Not
  // through FileBytes, which would note the marker as an input of the run.)
  std::ifstream f(marker, std::ios::binary);
  std::string head(kMarkerPrefix.size(), '\0');
  f.read(head.data(), static_cast<std::streamsize>(head.size()));
  return static_cast<std::size_t>(f.gcount()) == head.size() && head == kMarkerPrefix;
}

void check_results_target(const std::string& target, bool force, const std::string& option) {
  fs::path t = normalized(target, option);
  const std::string shown = t.string();
  refuse_unsafe(t, shown, option);
  std::error_code ec;
  auto st = fs::symlink_status(t, ec);
  if (st.type() == fs::file_type::not_found) return;
  if (st.type() == fs::file_type::symlink)
    throw InputError(shown, 0, option, "is a symbolic link; give the folder itself");
  if (st.type() != fs::file_type::directory)
    throw InputError(shown, 0, option, "exists and is not a folder; give a path for a results folder");
  if (is_results_folder(shown)) return;
  if (fs::is_empty(t, ec) && !ec) {
    if (force) return;
    throw InputError(shown, 0, option,
                     fmt::format("exists and is not a schedlab results folder (no {}); it is empty: use --force to "
                                 "replace it",
                                 kResultsMarker));
  }
  throw InputError(shown, 0, option,
                   fmt::format("holds files that schedlab did not write (no {}); schedlab replaces only its own "
                               "results folders (--force: also an empty folder): choose another folder",
                               kResultsMarker));
}

StagingDir::StagingDir(std::string target, bool force, std::string option) : force_(force), option_(std::move(option)) {
  fs::path t = normalized(target, option_);
  target_ = t.string();
  check_results_target(target_, force_, option_);
  fs::path parent = t.parent_path();
  std::error_code ec;
  if (!parent.empty()) fs::create_directories(parent, ec);
  if (ec) throw InputError(target_, 0, option_, "cannot create the folder above it: " + ec.message());
  remove_stale_staging(parent, t.filename().string());

  temp_ = (parent / fmt::format(".{}.tmp-{}", t.filename().string(), ::getpid())).string();
  // One left by an earlier process that had our id: it is dead, since we have its id.
  if (fs::symlink_status(temp_, ec).type() == fs::file_type::directory) remove_replaced(temp_);
  if (!fs::create_directory(temp_, ec))
    throw InputError(target_, 0, option_,
                     "cannot create results folder " + temp_ + (ec ? ": " + ec.message() : ": it exists"));
  try {
    write_marker(temp_, fmt::format("{}{} results folder, being written by process {}\n", kMarkerPrefix,
                                    SCHEDLAB_VERSION, ::getpid()));
  } catch (...) {
    fs::remove_all(temp_, ec);
    throw;
  }
}

StagingDir::~StagingDir() {
  if (!committed_) {
    std::error_code ec;
    fs::remove_all(temp_, ec);
  }
}

void StagingDir::commit() {
  // The same bytes in every results folder: reruns stay byte-identical.
  write_marker(temp_, fmt::format("{}{} results folder\n", kMarkerPrefix, SCHEDLAB_VERSION));
  std::error_code ec;
  if (fs::symlink_status(target_, ec).type() == fs::file_type::not_found) {
    if (std::rename(temp_.c_str(), target_.c_str()) != 0)
      throw InputError(target_, 0, option_, "cannot move results into place: " + errno_text());
    committed_ = true;
    return;
  }
  // Something may have appeared there while we ran.
  check_results_target(target_, force_, option_);
  std::string old = temp_;
  if (::renameat2(AT_FDCWD, temp_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) == 0) {
    committed_ = true;  // the old folder now lies at temp_
  } else {
    // A filesystem without atomic exchange: the old folder aside, the new one in, then the
    // old one removed; a failure in between puts the old one back.
    fs::path t(target_);
    old = (t.parent_path() / fmt::format(".{}.old-{}", t.filename().string(), ::getpid())).string();
    if (std::rename(target_.c_str(), old.c_str()) != 0)
      throw InputError(target_, 0, option_, "cannot move the old results aside: " + errno_text());
    if (std::rename(temp_.c_str(), target_.c_str()) != 0) {
      std::string why = errno_text();
      std::rename(old.c_str(), target_.c_str());
      throw InputError(target_, 0, option_, "cannot move results into place: " + why);
    }
    committed_ = true;
  }
  remove_replaced(old);
}

namespace {
// The first `bytes` bytes of the file at `path` (fewer when it is shorter).
std::string head_of(const fs::path& path, std::size_t bytes) {
  std::ifstream in(path, std::ios::binary);
  std::string head(bytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(bytes));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return head;
}
}  // namespace

StagedFile::StagedFile(std::string target, std::string option, std::string_view first_line)
    : target_(std::move(target)), option_(std::move(option)) {
  if (target_.empty()) throw InputError("", 0, option_, "empty path");
  fs::path t(target_);
  std::error_code ec;
  auto st = fs::symlink_status(t, ec);
  if (st.type() == fs::file_type::symlink) {
    // Replace the file the link names, not the link.
    t = fs::weakly_canonical(t, ec);
    if (ec) throw InputError(target_, 0, option_, "cannot follow the symbolic link: " + ec.message());
    st = fs::symlink_status(t, ec);
  }
  if (st.type() == fs::file_type::directory || t.filename().empty())
    throw InputError(target_, 0, option_, "is a folder; give a file name");
  if (st.type() == fs::file_type::regular) {
    if (is_input_file(t.string()))
      throw InputError(target_, 0, option_, "is an input of this run; give another file name");
    if (!first_line.empty() && fs::file_size(t, ec) > 0 && !ec && head_of(t, first_line.size()) != first_line)
      throw InputError(target_, 0, option_,
                       fmt::format("exists and is not a file schedlab wrote (it does not start with '{}'); remove "
                                   "it or give another file name",
                                   first_line.substr(0, first_line.find('\n'))));
  }
  if (st.type() != fs::file_type::not_found && st.type() != fs::file_type::regular) {
    // A device or a pipe is written as it is (renaming over /dev/null would replace it).
    out_.open(t, std::ios::binary);
    if (!out_) throw InputError(target_, 0, option_, "cannot write: " + errno_text());
    return;
  }
  target_ = t.string();
  temp_ = (t.parent_path() / fmt::format(".{}.tmp-{}", t.filename().string(), ::getpid())).string();
  out_.open(temp_, std::ios::binary | std::ios::trunc);
  if (!out_) throw InputError(target_, 0, option_, "cannot write: " + errno_text());
}

StagedFile::~StagedFile() {
  if (!committed_ && !temp_.empty()) {
    out_.close();
    ::unlink(temp_.c_str());
  }
}

void StagedFile::flush_checked() {
  out_.flush();
  if (!out_) throw InputError(target_, 0, option_, "write failed: " + errno_text());
}

void StagedFile::commit() {
  out_.close();
  if (!out_) throw InputError(target_, 0, option_, "write failed: " + errno_text());
  if (!temp_.empty() && std::rename(temp_.c_str(), target_.c_str()) != 0)
    throw InputError(target_, 0, option_, "cannot move the file into place: " + errno_text());
  committed_ = true;
}

void write_staged(const std::string& target, std::string_view text, const std::string& option) {
  StagedFile f(target, option);
  f.stream() << text;
  f.commit();
}

}  // namespace schedlab::util
