// The preemption pass: after the start pass, running jobs may be stopped (as whole gangs)
// so that better-keyed waiting jobs start. Only `none` is registered so far.
#include "sched/scheduler.h"

namespace schedlab::sched {

void Scheduler::preempt_pass(engine::Time, cluster::AllocationState&, std::vector<StartDecision>&,
                             std::vector<StopDecision>&) {}

}  // namespace schedlab::sched
