// A set of (device, inode) pairs; a sweep's forked cells inherit their parent's.
#include "util/input_files.h"

#include <sys/stat.h>

#include <mutex>
#include <set>
#include <cstdint>
#include <tuple>

namespace schedlab::util {

namespace {
std::mutex inputs_mutex;  // compare runs variants on threads
// A file's identity: device and inode, and its change time, since a deleted input's inode
// may be given to a new file (a test's, a later cell's) that is no input at all.
using Identity = std::tuple<dev_t, ino_t, std::int64_t, std::int64_t>;
Identity identity(const struct stat& st) { return {st.st_dev, st.st_ino, st.st_ctim.tv_sec, st.st_ctim.tv_nsec}; }
std::set<Identity>& inputs() {
  static std::set<Identity> set;
  return set;
}
void note(const struct stat& st) {
  if (!S_ISREG(st.st_mode)) return;
  std::lock_guard lock(inputs_mutex);
  inputs().insert(identity(st));
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
  return inputs().count(identity(st)) > 0;
}

}  // namespace schedlab::util
