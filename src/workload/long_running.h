// Work that shares the cluster with a trace's batch jobs: Marathon's long-running services
// (N instances, started at a time, kept up until a stop time or the end of the run, restarted
// after a backoff when an instance fails, scaled at given times) and Chronos' cron jobs (a
// repeating schedule whose occurrences are batch jobs, optionally waiting for parent jobs).
// A scenario's `workload.services:` and `workload.cron:` lists, as values; MixedSource turns
// them into jobs beside the trace's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/time.h"
#include "workload/chronos_schedule.h"

namespace schedlab::workload {

// The shape every job of a service or cron entry shares.
struct EntryShape {
  std::uint32_t tasks = 1;
  std::uint32_t gpus_per_task = 0;
  std::uint32_t cpu_milli = 0;  // per task; 0 with cpu_given false: the per-GPU default
  std::uint32_t mem_mib = 0;
  bool cpu_given = false;
  bool mem_given = false;
  std::string gpu_model;  // "" = any; names separated by '|'
  std::string user;
  std::string pool;
  std::int32_t priority = 0;
};

struct ServiceScale {
  engine::Time at = 0;
  std::uint32_t instances = 0;
};

struct ServiceSpec {
  std::string name;
  long line = 0;
  EntryShape shape;  // per instance (tasks is 1: an instance is one task)
  std::uint32_t instances = 1;
  engine::Time start = 0;
  engine::Time stop = engine::kTimeMax;  // kTimeMax: with the run's other work
  std::vector<ServiceScale> scale;       // in time order, all after start and before stop
  // Marathon's launch backoff: the n-th failure of an instance waits
  // min(backoff * factor^(n-1), max_backoff) before the instance asks for resources again.
  engine::Time backoff = 1 * engine::kMicrosPerSecond;
  double backoff_factor = 1.15;
  engine::Time max_backoff = 3600 * engine::kMicrosPerSecond;
};

// One instance of a service over the span it is wanted: from `from` (its start, or the scale-up
// that asked for it) to `to` (the scale-down that no longer wants it, the stop, or kTimeMax).
struct InstanceSpan {
  std::uint32_t index = 0;
  engine::Time from = 0;
  engine::Time to = engine::kTimeMax;
};
// In order of `from`, then index. A scale-down retires the highest indexes.
std::vector<InstanceSpan> instance_spans(const ServiceSpec& s);

struct CronSpec {
  std::string name;
  long line = 0;
  EntryShape shape;
  engine::Time duration = 0;
  std::string schedule_text;
  ChronosSchedule schedule;
  std::vector<std::string> parents;  // earlier entries of the list
  bool skip_overlap = false;         // an occurrence is skipped while the previous one is still there
};

struct LongRunningWork {
  std::vector<ServiceSpec> services;
  std::vector<CronSpec> cron;
  std::int64_t epoch_us = 0;             // the calendar instant trace time 0 stands for
  engine::Time until = engine::kTimeMax;  // unbounded schedules end here (or with the trace)
  bool empty() const { return services.empty() && cron.empty(); }
};

// The jobs a service makes: its instances, and one more per instance a scale step adds.
// Each is a job of the run, bounded by kMaxJobsPerRun (workload/job_limit.h).
std::uint64_t service_job_count(const ServiceSpec& s);
// At most how many occurrences a cron entry has in a run that ends at trace time `until`
// (kTimeMax: unknown), or nullopt when its schedule is unbounded and the run's end unknown.
std::optional<std::uint64_t> cron_occurrence_bound(const CronSpec& c, std::int64_t epoch_us, engine::Time until);

// The k-th occurrence's trace time: -1 when it lies before the epoch, nullopt when there is no
// k-th occurrence (a bounded schedule's count reached, or beyond the clock).
std::optional<engine::Time> occurrence_time(const CronSpec& c, std::uint64_t k, std::int64_t epoch_us);

}  // namespace schedlab::workload
