// Atomic checkpoint and progress files of `schedlab worker`.
#include "emu/node/checkpoint_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <vector>

#include "util/checked.h"
#include "util/error.h"
#include "util/parse.h"

namespace schedlab::emu {
namespace {

// A checkpoint holds two short lines; anything much larger is not one.
constexpr std::size_t kMaxCheckpointBytes = 4096;
constexpr std::string_view kCheckpointHeader = "schedlab checkpoint 1";

std::string errno_text(int err) { return std::strerror(err); }

// Closes a descriptor on every path.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

void write_all(int fd, const std::string& content, const std::string& temp) {
  std::string_view rest = content;
  while (!rest.empty()) {
    const ssize_t n = ::write(fd, rest.data(), rest.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw util::EnvironmentError(fmt::format("{}: cannot write: {}", temp, errno_text(errno)));
    }
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
}

// fsync of the folder, so that the rename itself is on disk.
void sync_folder(const std::string& folder) {
  Fd dir{::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (dir.fd >= 0) ::fsync(dir.fd);  // best effort: some file systems refuse to sync folders
}

std::string folder_of(const std::string& path) {
  std::string parent = std::filesystem::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& content, bool sync) {
  static std::atomic<std::uint64_t> counter{0};
  const std::filesystem::path target(path);
  const std::string folder = folder_of(path);
  const std::string temp =
      (std::filesystem::path(folder) /
       fmt::format(".{}.tmp-{}-{}", target.filename().string(), ::getpid(), counter.fetch_add(1)))
          .string();
  {
    Fd f{::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)};
    if (f.fd < 0) throw util::EnvironmentError(fmt::format("{}: cannot write: {}", temp, errno_text(errno)));
    try {
      write_all(f.fd, content, temp);
      if (sync && ::fsync(f.fd) != 0)
        throw util::EnvironmentError(fmt::format("{}: cannot sync: {}", temp, errno_text(errno)));
    } catch (...) {
      ::unlink(temp.c_str());
      throw;
    }
    const int fd = f.fd;
    f.fd = -1;
    if (::close(fd) != 0) {
      const int err = errno;
      ::unlink(temp.c_str());
      throw util::EnvironmentError(fmt::format("{}: cannot write: {}", temp, errno_text(err)));
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    throw util::EnvironmentError(fmt::format("{}: cannot move the file into place: {}", path, errno_text(err)));
  }
  if (sync) sync_folder(folder);
}

std::string checkpoint_text(std::int64_t work) { return fmt::format("{}\nwork {}\n", kCheckpointHeader, work); }

void write_checkpoint(const std::string& folder, std::int64_t work) {
  write_file_atomically((std::filesystem::path(folder) / kCheckpointFileName).string(), checkpoint_text(work), true);
}

std::int64_t parse_checkpoint(const std::string& text, const std::string& file) {
  std::vector<std::string_view> lines;
  std::string_view rest = text;
  while (!rest.empty()) {
    const auto nl = rest.find('\n');
    lines.push_back(rest.substr(0, nl));
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
  }
  if (lines.empty() || lines[0] != kCheckpointHeader)
    throw util::InputError(file, 1, "",
                           fmt::format("not a schedlab checkpoint (the first line must be '{}')", kCheckpointHeader));
  if (lines.size() < 2) throw util::InputError(file, 2, "work", "missing (expected 'work N')");
  if (lines.size() > 2) throw util::InputError(file, 3, "", "unexpected line after 'work N'");
  std::string_view line = lines[1];
  if (line.substr(0, 5) != "work ") throw util::InputError(file, 2, "work", "expected 'work N'");
  const util::FieldContext where{file, 2, "work"};
  return util::checked_int<std::int64_t>(util::parse_int(line.substr(5), where), where, 0, util::kMaxInputTime);
}

std::optional<std::int64_t> read_checkpoint(const std::string& folder) {
  const std::string path = (std::filesystem::path(folder) / kCheckpointFileName).string();
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    throw util::InputError(path, 0, "", "cannot read: " + errno_text(errno));
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode)) throw util::InputError(path, 0, "", "is not a regular file");
  std::string text;
  char buf[1024];
  for (;;) {
    const ssize_t n = ::read(f.fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw util::InputError(path, 0, "", "cannot read: " + errno_text(errno));
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > kMaxCheckpointBytes)
      throw util::InputError(path, 0, "",
                             fmt::format("larger than {} bytes: not a schedlab checkpoint", kMaxCheckpointBytes));
  }
  return parse_checkpoint(text, path);
}

void write_progress(const std::string& path, std::int64_t work) {
  write_file_atomically(path, fmt::format("{}\n", work), false);
}

}  // namespace schedlab::emu
