// The list of built-in scheduler parts: adding a part is one line here.
#include "sched/registry.h"

#include "sched/builtin_parts.h"

namespace schedlab::sched {

void register_builtin_parts(PartRegistry& r) {
  r.queues.add("fifo", "first come, first served: by submit time, then job id", make_fifo_queue);
  r.queues.add("priority", "the trace's priority, larger first; then first come, first served", make_priority_queue);
  r.queues.add("sjf", "shortest job first: the trace's run-time estimate, else its duration (knows run times)",
               make_sjf_queue);
  r.queues.add("srtf", "shortest remaining time first: traced work less work done (knows run times)",
               make_srtf_queue);
  r.queues.add("fair-share", "the user holding the fewest GPUs first, then FIFO", make_fair_share_queue);
  r.queues.add("las", "Tiresias discretized least attained service: queues by service thresholds (no run times)",
               make_las_queue);
  r.queues.add("gittins", "Tiresias Gittins index over the service distribution of jobs submitted so far",
               make_gittins_queue);
  r.queues.add("ftf", "Themis finish-time fairness: largest shared/ideal finish-time ratio first, every round",
               make_ftf_queue);

  r.admissions.add("gang", "a gang job's tasks start at one instant or none do; non-gang jobs start task by task",
                   make_gang_admission);
  r.admissions.add("incremental", "every job's tasks start as they fit, gang flag or not", make_incremental_admission);
  r.admissions.add("pools",
                   "Peloton: a job starts only within its pool's entitlement (a non-preemptible pool's: its "
                   "reservation); needs pools: in the scenario",
                   make_pools_admission);

  r.filters.add("gpu-model", "only GPUs of the job's requested model(s) and minimum generation", make_gpu_model_filter);
  r.filters.add("same-generation", "all of a job's GPUs of one generation (Peloton constraint placement)",
                make_same_generation_filter);
  r.filters.add("gpu-hosts-for-gpu-jobs",
                "jobs that need no GPU stay off hosts with GPUs (Mesos GPU isolation); unless_idle_s lends their spare "
                "CPUs while no GPU job has waited longer",
                make_gpu_hosts_for_gpu_jobs_filter);

  r.placements.add("first-fit", "lowest-numbered hosts with room, in order", make_first_fit_placement);
  r.placements.add("best-fit", "each task on the host left with the fewest idle GPUs (packs tightly)",
                   make_best_fit_placement);
  r.placements.add("rack-pack", "fewest hosts, then fewest racks: one host, else one rack, else fewest racks",
                   make_rack_pack_placement);
  r.placements.add("spread", "each task on the emptiest host not yet used by the job", make_spread_placement);
  r.placements.add("fgd",
                   "fragmentation gradient descent (Weng et al., ATC'23): where the expected GPU fragmentation, "
                   "against the workload's mix of requests, grows least",
                   make_fgd_placement);

  r.preemptions.add("none", "never evict a running job", make_no_preemption);
  r.preemptions.add("reorder", "Tiresias: a waiting job with a better key evicts the worst-keyed running jobs it needs",
                    make_reorder_preemption);
  r.preemptions.add("priority",
                    "Kubernetes: a waiting job evicts running jobs of a lower class (key primary), youngest first, "
                    "none it can spare",
                    make_priority_preemption);
  r.preemptions.add("pool-reclaim",
                    "Peloton: a pool above its entitlement for sustained_periods gives the surplus back, lowest "
                    "priority then shortest run first, each gang whole; needs pools: in the scenario",
                    make_pool_reclaim_preemption);

  r.backfills.add("none", "strict queue order: nothing starts ahead of a blocked job", make_no_backfill);
  r.backfills.add("easy", "EASY: a later job may start if it does not delay the first blocked job's reservation",
                  make_easy_backfill);
  r.backfills.add("greedy", "any later job that fits may start past a blocked one; no reservation",
                  make_greedy_backfill);
}

const PartRegistry& builtin_parts() {
  static const PartRegistry registry = [] {
    PartRegistry r;
    register_builtin_parts(r);
    return r;
  }();
  return registry;
}

const char* code_name(Code c) {
  switch (c) {
    case Code::success: return "success";
    case Code::wait: return "wait";
    case Code::unschedulable: return "unschedulable";
    case Code::unresolvable: return "unresolvable";
  }
  return "?";
}

}  // namespace schedlab::sched
