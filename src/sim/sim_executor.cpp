// Run lengths from the perf model.
#include "sim/sim_executor.h"

#include <cassert>
#include <cmath>

namespace schedlab::sim {

void SimExecutor::start(RunId run, const workload::JobSpec& job, const cluster::Placement& placement, engine::Time now) {
  double speed = perf_->speed(job, placement, *topo_);
  assert(speed > 0);
  // Round up: a run never ends before its work is done.
  auto length = static_cast<engine::Time>(std::ceil(static_cast<double>(job.duration) / speed));
  queue_->push(now + length, engine::EventClass::completion, run);
}

}  // namespace schedlab::sim
