// Output that appears only when complete and never replaces what schedlab did not write:
// results folders (StagingDir) and single output files (StagedFile).
#pragma once

#include <fstream>
#include <string>
#include <string_view>

namespace schedlab::util {

// The file that marks a folder as a schedlab results folder, so that a later run may replace
// it. It holds one line naming schedlab and its version (and, while the folder is being
// written, the writer's process id).
inline constexpr const char* kResultsMarker = ".schedlab-results";

// Whether `folder` carries the results marker (a regular file whose line starts "schedlab ").
bool is_results_folder(const std::string& folder);

// Throws InputError (naming `option` and the path) unless a results folder may be written at
// `target`. Always refused: the current folder or any folder above it, "/", the home folder,
// a symbolic link, and anything that is not a folder. An existing folder is replaced only
// when it is a results folder, or, with `force`, when it is empty.
void check_results_target(const std::string& target, bool force, const std::string& option = "--out");

// A results folder that appears only when complete. The constructor checks the target
// (check_results_target), removes the staging folders that dead schedlab processes left
// beside it, and creates `.NAME.tmp-PID` beside the target; commit() puts it in the
// target's place (an old results folder is swapped out, then removed); otherwise the
// staging folder is removed.
class StagingDir {
 public:
  explicit StagingDir(std::string target, bool force = false, std::string option = "--out");
  ~StagingDir();
  StagingDir(const StagingDir&) = delete;
  StagingDir& operator=(const StagingDir&) = delete;

  const std::string& path() const { return temp_; }
  std::string file(const std::string& name) const { return temp_ + "/" + name; }
  void commit();

 private:
  std::string target_;
  std::string temp_;
  bool force_;
  std::string option_;
  bool committed_ = false;
};

// A file that appears only when complete: written as `.NAME.tmp-PID` beside the target and
// renamed over it by commit(), removed otherwise. A target that exists but is not a regular
// file (/dev/null, a pipe) is written directly; a folder is refused. Like --out, an output
// file never replaces an input of this run (util/input_files.h) nor a file schedlab did not
// write: when `first_line` is given (the start of the first line schedlab writes there, such
// as a CSV header), an existing non-empty file must start with it.
// The whole of `text` as `target`, through a StagedFile: it appears complete or not at all.
void write_staged(const std::string& target, std::string_view text, const std::string& option = "--out");

class StagedFile {
 public:
  explicit StagedFile(std::string target, std::string option = "--out", std::string_view first_line = {});
  ~StagedFile();
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;

  std::ostream& stream() { return out_; }
  // Everything written reached the file (a full disk, /dev/full: an error now), without
  // putting it in place: a caller with several outputs checks them all before committing any.
  void flush_checked();
  void commit();

 private:
  std::string target_;
  std::string temp_;  // empty when writing the target directly
  std::string option_;
  std::ofstream out_;
  bool committed_ = false;
};

}  // namespace schedlab::util
