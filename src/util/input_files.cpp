// A set of (device, inode) pairs; a sweep's forked cells inherit their parent's.
#include "util/input_files.h"

#include <sys/stat.h>

#include <mutex>
#include <set>
#include <utility>

namespace schedlab {

namespace {
std::mutex inputs_mutex;  // compare runs variants on threads
std::set<std::pair<dev_t, ino_t>>& inputs() {
  static std::set<std::pair<dev_t, ino_t>> set;
  return set;
}
void note(const struct stat& st) {
  if (!S_ISREG(st.st_mode)) return;
  std::lock_guard lock(inputs_mutex);
  inputs().emplace(st.st_dev, st.st_ino);
}
}  // namespace

void note_input_file(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) == 0) note(st);
}

void note_input_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) note(st);
}

bool is_input_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  std::lock_guard lock(inputs_mutex);
  return inputs().count({st.st_dev, st.st_ino}) > 0;
}

}  // namespace schedlab
