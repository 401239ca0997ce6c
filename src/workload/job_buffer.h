// JobBuffer: a whole trace held in memory by a reader that must see every row before it can
// hand out the first job (sorted mode: files not in submit order). Jobs are kept in blocks
// and never moved: a growing vector copied each job up to twice and touched twice the memory,
// which cost the raw Philly reader a fifth of its time in fresh pages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "workload/job_spec.h"

namespace schedlab::workload {

class JobBuffer {
 public:
  void push_back(const JobSpec& job);
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // The i-th job in submit order once sort_by_submit() has run, in arrival order before.
  const JobSpec& operator[](std::size_t i) const;
  // Orders by submit time, ties in arrival order (an index is sorted; the jobs stay put).
  void sort_by_submit();
  // Frees the blocks that hold only jobs before the i-th, in arrival order (not after
  // sort_by_submit()); those jobs must not be read again. A reader going from front to back
  // so gives the memory back as it goes.
  void release_before(std::size_t i);
  void clear();

 private:
  // 2 MiB blocks, aligned so that the kernel can back each with one huge page: a trace of
  // millions of jobs then costs a page fault per 2 MiB rather than per 4 KiB.
  static constexpr std::size_t kBlockBytes = std::size_t{2} << 20;
  static constexpr std::size_t kBlockJobs = kBlockBytes / sizeof(JobSpec);
  struct FreeBlock {
    void operator()(JobSpec* p) const;
  };
  using Block = std::unique_ptr<JobSpec, FreeBlock>;
  const JobSpec& stored(std::size_t i) const { return blocks_[i / kBlockJobs].get()[i % kBlockJobs]; }

  std::vector<Block> blocks_;
  std::size_t size_ = 0;
  std::size_t released_ = 0;          // blocks_[0, released_) are freed
  std::vector<std::uint32_t> order_;  // empty: arrival order
};

}  // namespace schedlab::workload
