// The files a `schedlab worker` leaves for others to read: its checkpoint (the work it has saved,
// which a restarted worker resumes from) and its progress file (the work done so far, which the
// agent reports). Both are replaced atomically: written under a temporary name in the same
// folder, then renamed over the target, so that a reader, or a worker killed mid-write, never
// sees half a file. The checkpoint is also synced to disk before the rename, so that it
// survives a crash of the machine as well as of the process.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace schedlab::emu {

// The checkpoint's name inside a job's checkpoint folder.
inline constexpr const char* kCheckpointFileName = "checkpoint";

// Writes `content` to `path` atomically: a temporary file beside it (unique per process and
// call, so threads and processes writing the same target do not collide), then rename. With
// `sync`, the data is fsynced before the rename and the folder after it. Throws
// EnvironmentError naming the path when the system refuses.
void write_file_atomically(const std::string& path, const std::string& content, bool sync);

// The checkpoint file's text for `work` units saved: two lines, a versioned header and the work.
//   schedlab checkpoint 1
//   work 600
std::string checkpoint_text(std::int64_t work);

// Writes the checkpoint `folder`/checkpoint holding `work` (synced, atomic).
void write_checkpoint(const std::string& folder, std::int64_t work);

// The work saved in `folder`/checkpoint; nullopt when there is no such file. A file that is not
// a checkpoint (another header, a missing or negative or non-whole work, extra lines) throws
// InputError naming the file and line: resuming from garbage would silently lose or invent work.
std::optional<std::int64_t> read_checkpoint(const std::string& folder);

// Parses a checkpoint's text (read_checkpoint's rules); `file` names it in errors.
std::int64_t parse_checkpoint(const std::string& text, const std::string& file);

// Rewrites the progress file `path` with one number (the work done so far) and a newline
// (atomic, not synced: it is rewritten often and only the latest value matters).
void write_progress(const std::string& path, std::int64_t work);

}  // namespace schedlab::emu
