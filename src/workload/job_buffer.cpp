// JobBuffer: blocks of jobs, and a sorted index when the file was out of order.
#include "workload/job_buffer.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <cstring>
#include <new>
#include <numeric>
#include <type_traits>

#include <sys/mman.h>

namespace schedlab::workload {

static_assert(std::is_trivially_copyable_v<JobSpec> && std::is_trivially_destructible_v<JobSpec>,
              "JobBuffer copies jobs into raw memory and frees it without destroying them");

void JobBuffer::FreeBlock::operator()(JobSpec* p) const { std::free(p); }

void JobBuffer::push_back(const JobSpec& job) {
  if (size_ % kBlockJobs == 0) {
    void* block = std::aligned_alloc(kBlockBytes, kBlockBytes);
    if (!block) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    ::madvise(block, kBlockBytes, MADV_HUGEPAGE);  // advice only: refused, 4 KiB pages serve
#endif
    blocks_.emplace_back(static_cast<JobSpec*>(block));
  }
  std::memcpy(static_cast<void*>(blocks_.back().get() + size_ % kBlockJobs), &job, sizeof(JobSpec));
  ++size_;
}

const JobSpec& JobBuffer::operator[](std::size_t i) const { return stored(order_.empty() ? i : order_[i]); }

void JobBuffer::sort_by_submit() {
  // JobIds are 32-bit, so a trace of more jobs never gets here.
  order_.resize(size_);
  std::iota(order_.begin(), order_.end(), std::uint32_t{0});
  std::stable_sort(order_.begin(), order_.end(),
                   [this](std::uint32_t a, std::uint32_t b) { return stored(a).submit < stored(b).submit; });
}

void JobBuffer::release_before(std::size_t i) {
  assert(order_.empty());
  for (const std::size_t whole = std::min(i, size_) / kBlockJobs; released_ < whole; ++released_)
    blocks_[released_].reset();
}

void JobBuffer::clear() {
  std::vector<Block>().swap(blocks_);
  std::vector<std::uint32_t>().swap(order_);
  size_ = 0;
  released_ = 0;
}

}  // namespace schedlab::workload
