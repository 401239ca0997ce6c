// The rows of a results file (jobs.csv, timeline.csv: thousands to millions of lines) built
// in one chunk of memory and written to their stream a chunk at a time. A row asks once for
// room for its longest text and writes its fields through a plain pointer, with no capacity
// check or call per field (the put_* functions: util/fixed_text.h, engine/time.h,
// put_csv_field in util/csv.h); the bytes written are what the appends gave.
#pragma once

#include <cstddef>
#include <memory>
#include <ostream>

namespace schedlab::util {

class RowBuffer {
 public:
  explicit RowBuffer(std::ostream& out, std::size_t chunk = std::size_t{1} << 17);
  RowBuffer(const RowBuffer&) = delete;
  RowBuffer& operator=(const RowBuffer&) = delete;

  // Where to write up to `n` more bytes (what is held is written out first when they would
  // not fit); end the row with done(end of what was written).
  char* room(std::size_t n) {
    if (n > capacity_ - size_) make_room(n);
    return data_.get() + size_;
  }
  void done(const char* end) { size_ = static_cast<std::size_t>(end - data_.get()); }
  // Writes out what is held; call at the end (nothing is written on destruction: a writer that
  // threw leaves its stream as it was after the last whole chunk).
  void flush();

 private:
  void make_room(std::size_t n);

  std::ostream& out_;
  std::unique_ptr<char[]> data_;
  std::size_t capacity_;
  std::size_t size_ = 0;
};

}  // namespace schedlab::util
