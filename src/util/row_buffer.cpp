// Rows built in one chunk and written a chunk at a time; see row_buffer.h.
#include "util/row_buffer.h"

namespace schedlab::util {

RowBuffer::RowBuffer(std::ostream& out, std::size_t chunk)
    : out_(out), data_(new char[chunk]), capacity_(chunk) {}

void RowBuffer::flush() {
  if (size_ != 0) out_.write(data_.get(), static_cast<std::streamsize>(size_));
  size_ = 0;
}

void RowBuffer::make_room(std::size_t n) {
  flush();
  if (n <= capacity_) return;
  // A row longer than a chunk (a placement over thousands of hosts): a chunk that holds it.
  data_.reset(new char[n]);
  capacity_ = n;
}

}  // namespace schedlab::util
