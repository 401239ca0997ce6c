// The JSON pull tokenizer's cold paths (see json_pull.h): making its buffer, reading a block of
// a file or a text, and its errors. What runs per byte, token or block stays in json_pull.cpp,
// where it inlines into the state machine (a split that moved the refill out cost 5% of
// JsonPull::next's instructions on the raw Philly benchmark; this one costs none).
#include "workload/json_pull.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "util/error.h"
#include "util/input_limits.h"
#include "util/line_reader.h"

namespace schedlab::workload {

// Zeroed padding: never input, but defined for the string scanner's 16-byte loads.
std::unique_ptr<char[]> JsonPull::allocate_buffer(std::size_t bytes) {
  auto buf = std::make_unique_for_overwrite<char[]>(bytes + kScanPadding);
  std::memset(buf.get() + bytes, 0, kScanPadding);
  return buf;
}

JsonPull::JsonPull(const std::string& path) : path_(path), file_(std::make_unique<util::FileBytes>(path)) {
  cap_ = block_ + 1;
  buf_ = allocate_buffer(cap_);
  p_ = end_ = tok_ = buf_.get();
  buf_[0] = '\0';
}

JsonPull::JsonPull(Text text) : path_("<text>"), source_(text.text), block_(text.block_bytes ? text.block_bytes : 1) {
  cap_ = block_ + 1;
  buf_ = allocate_buffer(cap_);
  p_ = end_ = tok_ = buf_.get();
  buf_[0] = '\0';
}

JsonPull::~JsonPull() = default;

std::size_t JsonPull::read_block(char* into, std::size_t bytes) {
  if (!file_) {
    const std::size_t n = std::min(bytes, source_.size() - source_pos_);
    std::memcpy(into, source_.data() + source_pos_, n);
    source_pos_ += n;
    return n;
  }
  const long n = file_->read(into, bytes);
  if (n < 0) throw util::ReadError(path_, line_, "", file_->error());
  return static_cast<std::size_t>(n);
}

void JsonPull::fail(const char* at, const std::string& what) const {
  throw JsonSyntaxError(line_, static_cast<long>(offset(at) - line_begin_ + 1), what);
}

void JsonPull::fail_too_deep() const {
  fail(p_,
       fmt::format("nested deeper than {} levels (the most any JSON schedlab reads may nest)", util::kMaxJsonDepth));
}

void JsonPull::fail_too_long() const {
  fail(tok_, fmt::format("a string or number longer than {} MiB ({} bytes), the most a token of input may hold",
                         util::kMaxLineBytes >> 20, util::kMaxLineBytes));
}

}  // namespace schedlab::workload
