// JobSpec: what a trace says about one job, as a small value. Strings (user, pool, GPU
// request, original trace id) are interned in the workload's StringPool so that a
// million-job trace costs tens of bytes per job.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/time.h"
#include "workload/string_pool.h"

namespace schedlab::workload {

using JobId = std::uint32_t;          // dense: 0..n-1 in submit order

// JobSpec::recorded_wait_s of a job whose trace records no start (in memory only: jobs.csv
// writes an empty cell and the summary leaves the job out).
inline constexpr std::uint32_t kNoRecordedWait = ~std::uint32_t{0};

enum class JobKind : std::uint8_t { batch, service, cron };
// "batch", "service", "cron": as the native trace format and jobs.csv write it.
const char* kind_name(JobKind k);

// How the job ended in the original trace (kept for analysis; does not change replay).
enum class TraceStatus : std::uint8_t { unknown, pass, failed, killed };

struct JobSpec {
  JobId id = 0;
  // The wait before the job's first start as the trace recorded it (SWF's wait time, a Philly
  // job's first attempt start - submitted_time, ...), in whole seconds (rounded), or
  // kNoRecordedWait. Only compared with the simulated first wait (docs/metrics.md, "Replay
  // against the record"); it never changes the replay. 32 bits here fill what was padding.
  std::uint32_t recorded_wait_s = kNoRecordedWait;
  engine::Time submit = 0;
  engine::Time duration = 0;  // run time on the traced placement, at the traced speed
  engine::Time estimate = 0;  // the user's requested run time; 0 = unknown
  std::uint32_t tasks = 1;
  std::uint32_t gpus_per_task = 1;  // 0 for a job that needs no GPU (it needs CPUs)
  // Share of one GPU per task in thousandths, for fractional (GPU-sharing) tasks; 1000 for
  // whole-GPU tasks. Only meaningful with gpus_per_task == 1.
  std::uint16_t gpu_milli = 1000;
  std::int16_t min_generation = 0;  // 0 = any
  Label gpu_request = kNoLabel;     // GPU model name, or names separated by '|'; "" = any
  Label user = kNoLabel;
  Label pool = kNoLabel;
  Label group = kNoLabel;     // a service's or cron entry's name (workload/long_running.h)
  Label trace_id = kNoLabel;  // the trace's own id when it is not a number
  Label job_type = kNoLabel;  // the trace's workload type (Acme: Pretrain, SFT, Evaluation, ...)
  // An elastic job's GPU range (docs/elastic.md, "Elastic jobs"): it runs one-GPU tasks, as
  // many as a resizing policy gives it within [min_gpus, max_gpus]; `tasks` is its traced size,
  // the size it runs at under a policy that cannot resize. 0 = not given (rigid). 16 bits each
  // fill what was padding (a million-job trace keeps its 120 bytes a job).
  std::uint16_t min_gpus = 0, max_gpus = 0;
  std::uint64_t trace_number = 0;  // the trace's numeric id (when trace_id is empty)
  std::uint32_t line = 0;  // line of the trace file the job came from (0 = not from a file)
  std::int32_t priority = 0;
  // CPUs (thousandths) and memory (MiB) per task. Where the trace gives them, *_given is set;
  // the rest come from the scenario's per-GPU defaults (workload/resource_defaults.h) before
  // the job is scheduled. 0 = the task asks for none.
  std::uint32_t cpu_milli = 0;
  std::uint32_t mem_mib = 0;
  // Checkpoint costs from the trace, in seconds; negative = not given (scenario or model decide).
  float ckpt_interval_s = -1, ckpt_save_s = -1, ckpt_restore_s = -1;
  bool gang = true;
  // false: never stopped to make room for another job (Peloton's non-preemptible jobs); under
  // admission `pools` it starts only within its pool's reservation.
  bool preemptible = true;
  bool cpu_given = false;
  bool mem_given = false;
  JobKind kind = JobKind::batch;
  TraceStatus status = TraceStatus::unknown;
  // The training model the trace names for the job (a native trace's `model` column), interned;
  // kNoLabel = none (the perf model's `model_mix` draws one). A perf model that knows training
  // models checks the name before the run. 32 bits here fill the padding at the end.
  Label model = kNoLabel;

  std::uint64_t total_gpus() const { return std::uint64_t{tasks} * gpus_per_task; }
  bool needs_gpu() const { return gpus_per_task > 0; }
  bool fractional() const { return gpu_milli < 1000; }
  bool has_recorded_wait() const { return recorded_wait_s != kNoRecordedWait; }
  bool elastic() const { return min_gpus != max_gpus; }
  // The fewest and most GPUs it may run on (a rigid job: its traced size).
  std::uint64_t min_size() const { return elastic() ? min_gpus : total_gpus(); }
  std::uint64_t max_size() const { return elastic() ? max_gpus : total_gpus(); }
};

// A stream of jobs in submit order. Readers and generators implement it; the simulator
// pulls one job at a time so that a trace is never held twice in memory.
class JobSource {
 public:
  virtual ~JobSource() = default;
  // The next job, or false at the end. Throws InputError on a bad row.
  virtual bool next(JobSpec& out) = 0;
  // Where interned strings of the produced jobs live.
  virtual StringPool& strings() = 0;
  // Rows skipped (with --skip-bad-rows) or dropped by the format's rules, for the summary.
  virtual std::uint64_t skipped_rows() const { return 0; }
  // The share of the workload handed out so far, 0 to 1, or -1 when the source cannot
  // tell (a progress line's "done" and ETA).
  virtual double fraction_done() const { return -1.0; }
  // skipped_rows() per reason, in the order the reasons first occurred.
  virtual std::vector<std::pair<std::string, std::uint64_t>> skipped_by_reason() const { return {}; }
  // What the file's header declares and does not (an SWF log's MaxProcs, ...), for `trace
  // stats`; "" when the format has no header to speak of.
  virtual std::string declarations() const { return {}; }
};

// A source that changes the jobs of another on their way (arrival scale, resource defaults,
// the job limit): everything but next() is the inner source's.
class ForwardingJobSource : public JobSource {
 public:
  explicit ForwardingJobSource(std::unique_ptr<JobSource> inner) : inner_(std::move(inner)) {}
  StringPool& strings() override { return inner_->strings(); }
  std::uint64_t skipped_rows() const override { return inner_->skipped_rows(); }
  double fraction_done() const override { return inner_->fraction_done(); }
  std::vector<std::pair<std::string, std::uint64_t>> skipped_by_reason() const override {
    return inner_->skipped_by_reason();
  }
  std::string declarations() const override { return inner_->declarations(); }

 protected:
  std::unique_ptr<JobSource> inner_;
};

}  // namespace schedlab::workload
