// JobBuffer: a whole trace in blocks, served in arrival order or sorted by submit time.
#include <doctest/doctest.h>

#include "workload/job_buffer.h"

using namespace schedlab::workload;

namespace {
JobSpec job_at(std::int64_t submit, std::uint32_t line) {
  JobSpec j;
  j.submit = submit;
  j.line = line;
  return j;
}
}  // namespace

TEST_CASE("Workload.JobBuffer.jobs_come_back_in_arrival_order_across_blocks") {
  JobBuffer buffer;
  CHECK(buffer.empty());
  for (std::uint32_t i = 0; i < 50000; ++i) buffer.push_back(job_at(i, i + 1));
  REQUIRE(buffer.size() == 50000);
  for (std::uint32_t i = 0; i < 50000; ++i) REQUIRE(buffer[i].line == i + 1);
  buffer.clear();
  CHECK(buffer.empty());
}

TEST_CASE("Workload.JobBuffer.sorting_by_submit_keeps_equal_submits_in_file_order") {
  JobBuffer buffer;
  // Submits 2, 1, 0, 2, 1, 0, ...: each submit time's jobs must stay in their file order.
  for (std::uint32_t i = 0; i < 40000; ++i) buffer.push_back(job_at(2 - i % 3, i));
  buffer.sort_by_submit();
  for (std::size_t i = 1; i < buffer.size(); ++i) {
    REQUIRE(buffer[i - 1].submit <= buffer[i].submit);
    if (buffer[i - 1].submit == buffer[i].submit) REQUIRE(buffer[i - 1].line < buffer[i].line);
  }
  CHECK(buffer[0].submit == 0);
  CHECK(buffer[0].line == 2);
}

TEST_CASE("Workload.JobBuffer.released_blocks_leave_the_later_jobs_whole") {
  JobBuffer buffer;
  for (std::uint32_t i = 0; i < 50000; ++i) buffer.push_back(job_at(i, i + 1));
  for (std::uint32_t i = 0; i < 50000; ++i) {
    REQUIRE(buffer[i].line == i + 1);
    buffer.release_before(i + 1);
  }
  buffer.release_before(50000);
  CHECK(buffer.size() == 50000);
  buffer.clear();
  buffer.push_back(job_at(5, 1));
  CHECK(buffer[0].submit == 5);
}
