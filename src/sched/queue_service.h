// Attained service as queue orders that rank by it (las, gittins) see it: wall time or
// GPU-time, the live run included, and the exact instant a running job reaches a given
// amount; one arithmetic for both, so that a key recomputed at that instant agrees.
#pragma once

#include <cmath>
#include <memory>
#include <vector>

#include "sched/job_life.h"
#include "sched/parts.h"
#include "util/checked.h"
#include "util/named_args.h"

namespace schedlab::sched {

enum class ServiceKind : std::uint8_t { time, gpu_time };

// GPUs the job asks for (a share of one for fractional jobs).
inline double requested_gpus(const workload::JobSpec& job) {
  return job.fractional() ? job.gpu_milli / 1000.0 : static_cast<double>(job.total_gpus());
}

// A job's service in microseconds (wall) or GPU-microseconds: `before` over ended runs,
// growing at `rate` per microsecond from `run_start` while `live`.
struct ServiceView {
  double before = 0;
  bool live = false;
  engine::Time run_start = 0;
  double rate = 1;

  // The ledger is the truth (a stopping job still accrues); a job the scheduler has just
  // started is not yet in the ledger (the simulation records starts after the pass): its run
  // starts now, on the GPUs it asked for.
  ServiceView(const workload::JobSpec& job, const JobLedger& ledger, bool running, engine::Time now, ServiceKind kind) {
    const JobLife& l = ledger.life(job.id);
    live = l.run_start >= 0 || running;
    run_start = l.run_start >= 0 ? l.run_start : now;
    if (kind == ServiceKind::time) {
      before = static_cast<double>(l.attained);
    } else {
      before = l.attained_gpu_us;
      rate = l.held_milli > 0 ? static_cast<double>(l.held_milli) / 1000.0 : requested_gpus(job);
    }
  }

  double at(engine::Time now) const {
    return live && now > run_start ? before + rate * static_cast<double>(now - run_start) : before;
  }
  // The first instant at which the service is at least `target` (kTimeMax: never, it does not run).
  engine::Time reaches(double target) const {
    if (before >= target) return run_start;
    if (!live || !(rate > 0)) return engine::kTimeMax;
    return util::add_time(run_start, util::time_from_double_clamped(std::ceil((target - before) / rate)));
  }
  // Has the service reached `target` by `now`? Decided by reaches(), so that a timer set at
  // reaches(target) sees it reached.
  bool reached(double target, engine::Time now) const { return before >= target || reaches(target) <= now; }
};

// las' queues on their own, for an order that ranks within them (gittins `thresholds`): keys
// {2 x queue + waiting, entered}, `demote_at: tiresias-py2` when `py2`, no promotion.
std::unique_ptr<QueueOrder> make_las_levels(std::vector<double> thresholds, ServiceKind kind, bool py2);
// The `thresholds` arg as las reads it (positive, strictly increasing), in service microseconds.
std::vector<double> las_thresholds(const util::ArgReader& a);

}  // namespace schedlab::sched
