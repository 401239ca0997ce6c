// Parts that can have no effect in their combination: a queue order keyed by what a job has
// run (las, srtf, gittins) without a preemption part that compares keys orders waiting jobs
// as its submit-time counterpart does (`las` + `preemption: none` gives fifo's results to the
// digit); `promote_after` lifts only jobs that were stopped; `fifo` keys never let a waiting
// job outrank a running one unless a backfill started it ahead; `same-generation` on a
// cluster of one GPU generation. Each is named once on stderr (a notice), not refused: a
// study may include the combination on purpose, as a control. A plain function over the
// configuration, so that it is tested table by table.
#pragma once

#include <string>
#include <vector>

#include "cluster/topology.h"
#include "sched/scheduler_config.h"

namespace schedlab::sched {

// What else stops running jobs, besides the preemption part: failures, a pool reclaim. A
// stopped job waits again with service attained, so run-time keys do tell it apart.
struct OtherStops {
  bool failures = false;
};

// One sentence per part without effect (or with an effect on stopped jobs only), naming the
// part and the setting that would give it one; empty when every part can act.
std::vector<std::string> parts_without_effect(const SchedulerConfig& config, const cluster::Topology& topo,
                                              OtherStops stops);

}  // namespace schedlab::sched
