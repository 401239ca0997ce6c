// Factories of the built-in scheduler parts, one per file; listed in registry.cpp.
#pragma once

#include <memory>

#include "sched/parts.h"

namespace schedlab::sched {

std::unique_ptr<QueueOrder> make_fifo_queue(const PartArgs& args);
std::unique_ptr<QueueOrder> make_sjf_queue(const PartArgs& args);
std::unique_ptr<QueueOrder> make_srtf_queue(const PartArgs& args);
std::unique_ptr<QueueOrder> make_fair_share_queue(const PartArgs& args);
std::unique_ptr<QueueOrder> make_las_queue(const PartArgs& args);
std::unique_ptr<QueueOrder> make_gittins_queue(const PartArgs& args);
std::unique_ptr<QueueOrder> make_ftf_queue(const PartArgs& args);
std::unique_ptr<QueueOrder> make_priority_queue(const PartArgs& args);
std::unique_ptr<Admission> make_gang_admission(const PartArgs& args);
std::unique_ptr<Admission> make_incremental_admission(const PartArgs& args);
std::unique_ptr<Filter> make_gpu_model_filter(const PartArgs& args);
std::unique_ptr<Filter> make_same_generation_filter(const PartArgs& args);
std::unique_ptr<Filter> make_gpu_hosts_for_gpu_jobs_filter(const PartArgs& args);
std::unique_ptr<PlacementPolicy> make_first_fit_placement(const PartArgs& args);
std::unique_ptr<PlacementPolicy> make_best_fit_placement(const PartArgs& args);
std::unique_ptr<PlacementPolicy> make_rack_pack_placement(const PartArgs& args);
std::unique_ptr<PlacementPolicy> make_spread_placement(const PartArgs& args);
std::unique_ptr<PlacementPolicy> make_fgd_placement(const PartArgs& args);
std::unique_ptr<Preemption> make_no_preemption(const PartArgs& args);
std::unique_ptr<Preemption> make_reorder_preemption(const PartArgs& args);
std::unique_ptr<Preemption> make_priority_preemption(const PartArgs& args);
std::unique_ptr<Preemption> make_pool_reclaim_preemption(const PartArgs& args);
std::unique_ptr<Admission> make_pools_admission(const PartArgs& args);
std::unique_ptr<Backfill> make_no_backfill(const PartArgs& args);
std::unique_ptr<Backfill> make_easy_backfill(const PartArgs& args);
std::unique_ptr<Backfill> make_greedy_backfill(const PartArgs& args);

}  // namespace schedlab::sched
