// Line streaming over FileBytes.
#include "util/line_reader.h"

#include <algorithm>
#include <cstring>

#include "util/error.h"
#include "util/input_limits.h"

namespace schedlab::util {

LineReader::LineReader(const std::string& path)
    : path_(path), bytes_(path), buf_(std::make_unique_for_overwrite<char[]>(kBufferBytes)) {}

double LineReader::fraction_read() const { return eof_ ? 1.0 : bytes_.fraction_read(); }

bool LineReader::refill() {
  if (eof_) return false;
  const long n = bytes_.read(buf_.get(), kBufferBytes);
  if (n < 0) throw ReadError(path_, line_no_ + 1, "", bytes_.error());
  if (n == 0) {
    eof_ = true;
    return false;
  }
  begin_ = 0;
  end_ = static_cast<std::size_t>(n);
  return true;
}

void LineReader::too_long() const {
  throw ReadError(path_, line_no_ + 1, "", "line " + std::to_string(line_no_ + 1) + " " + line_too_long_message());
}

void LineReader::drop_bom(std::string_view& line) const {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (line_no_ == 1 && line.starts_with(kBom)) line.remove_prefix(kBom.size());
}

bool LineReader::next(std::string_view& line) {
  carry_.clear();
  bool using_carry = false;
  for (;;) {
    if (begin_ == end_ && !refill()) {
      if (using_carry && !carry_.empty()) {
        ++line_no_;
        unterminated_ = true;
        line = carry_;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        drop_bom(line);
        return true;
      }
      return false;
    }
    const char* start = buf_.get() + begin_;
    const void* nl = std::memchr(start, '\n', end_ - begin_);
    if (nl) {
      std::size_t len = static_cast<const char*>(nl) - start;
      if (carry_.size() + len > kMaxLineBytes) too_long();
      ++line_no_;
      unterminated_ = false;
      if (using_carry) {
        carry_.append(start, len);
        line = carry_;
      } else {
        line = std::string_view(start, len);
      }
      begin_ += len + 1;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      drop_bom(line);
      return true;
    }
    // Checked before it is kept: a line past the bound costs no more than the bound.
    if (carry_.size() + (end_ - begin_) > kMaxLineBytes) too_long();
    carry_.append(start, end_ - begin_);
    using_carry = true;
    begin_ = end_;
  }
}

}  // namespace schedlab::util
