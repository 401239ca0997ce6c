// The one bound on how many jobs a run may have, whatever makes them: a trace's rows, the
// generator, the instances of services (and their scale-ups), the occurrences of cron
// schedules (scenario entries and trace rows). Every job costs memory for the whole run (its
// spec, its record, its row in jobs.csv: a few hundred bytes), so a count that would pass it
// is refused where it is written, and validate refuses it too: counts known from the text
// (generate.jobs, Rn, instances) are checked as they are read, and the stream of jobs a run
// reads (trace rows, unbounded schedules ending with the trace) is counted by with_job_limit,
// which validate drains as a run would.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "workload/job_spec.h"

namespace schedlab::workload {

// Ten times the million-job traces schedlab is built for (a 1,000,000-job replay peaks at about
// 300 MiB), and the ten million GPUs a cluster may have.
inline constexpr std::uint64_t kMaxJobsPerRun = 10'000'000;

// "4000000000 occurrences is more than the 10000000 jobs a run may have": `count` and what it
// counts, for an error that names where the count was written.
std::string too_many_jobs_message(std::uint64_t count, const std::string& what);

// Throws InputError(file, line, field, too_many_jobs_message(count, what)) when count >
// kMaxJobsPerRun.
void check_job_count(std::uint64_t count, const std::string& what, const std::string& file, long line,
                     const std::string& field);

// `source`, throwing InputError(file, line, field, ...) when it hands out a job past
// kMaxJobsPerRun (before that job is used).
std::unique_ptr<JobSource> with_job_limit(std::unique_ptr<JobSource> source, std::string file, long line,
                                          std::string field);

}  // namespace schedlab::workload
