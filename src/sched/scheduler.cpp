// The scheduling pass: queue order, admission, filters, placement as one transaction per
// job, and backfilling past the first blocked job.
#include "sched/scheduler.h"

#include <fmt/format.h>

#include <algorithm>

#include "util/suggest.h"

namespace schedlab::sched {

namespace {
PartArgs args_for(const SchedulerConfig& c, const std::string& name) {
  auto it = c.args.find(name);
  return it == c.args.end() ? PartArgs{} : it->second;
}

std::string model_list(cluster::ModelMask mask, const cluster::GpuCatalog& catalog) {
  std::vector<std::string> names;
  for (cluster::ModelId m = 0; m < catalog.size(); ++m)
    if (mask >> m & 1) names.push_back(catalog.model(m).name);
  return names.empty() ? std::string("none") : join(names, "|");
}
}  // namespace

Scheduler::Scheduler(const SchedulerConfig& c, const PartRegistry& r, const cluster::Topology& topo)
    : topo_(&topo),
      queue_order_(r.queues.make(c.queue, args_for(c, c.queue))),
      placement_(r.placements.make(c.placement, args_for(c, c.placement))),
      preemption_(r.preemptions.make(c.preemption, args_for(c, c.preemption))),
      backfill_(r.backfills.make(c.backfill, args_for(c, c.backfill))) {
  for (const auto& a : c.admission) admissions_.push_back(r.admissions.make(a, args_for(c, a)));
  for (const auto& f : c.filters) filters_.push_back(r.filters.make(f, args_for(c, f)));
  host_size_counts_.resize(topo.catalog().size());
  for (cluster::ModelId m = 0; m < topo.catalog().size(); ++m) host_size_counts_[m].assign(topo.max_host_gpus(m) + 1u, 0);
  for (const auto& h : topo.hosts()) ++host_size_counts_[h.model][h.gpus];
}

cluster::ModelMask Scheduler::allowed_models(const PendingJob& job) const {
  cluster::ModelMask mask = topo_->models_present();
  for (const auto& f : filters_) mask = f->allowed(job, mask, *topo_);
  return mask;
}

bool Scheduler::one_generation(const PendingJob& job) const {
  return std::any_of(filters_.begin(), filters_.end(), [&](const auto& f) { return f->one_generation(job); });
}

std::vector<cluster::ModelMask> Scheduler::placement_groups(const PendingJob& job) const {
  cluster::ModelMask allowed = allowed_models(job);
  if (!one_generation(job)) return {allowed};
  // One group per generation, newest first.
  const auto& catalog = topo_->catalog();
  std::vector<int> gens;
  for (cluster::ModelId m = 0; m < catalog.size(); ++m)
    if (allowed >> m & 1) gens.push_back(catalog.model(m).generation);
  std::sort(gens.rbegin(), gens.rend());
  gens.erase(std::unique(gens.begin(), gens.end()), gens.end());
  std::vector<cluster::ModelMask> groups;
  for (int g : gens) {
    if (job.generation != 0 && g != job.generation) continue;  // join the tasks already running
    cluster::ModelMask mask = 0;
    for (cluster::ModelId m = 0; m < catalog.size(); ++m)
      if ((allowed >> m & 1) && catalog.model(m).generation == g) mask |= cluster::ModelMask{1} << m;
    groups.push_back(mask);
  }
  return groups;
}

std::optional<std::string> Scheduler::never_fits(const PendingJob& job) const {
  const auto& s = *job.spec;
  const auto& catalog = topo_->catalog();
  auto groups = placement_groups(job);
  if (groups.size() == 1 && groups[0] == 0)
    return fmt::format("unresolvable: no GPU of the allowed model(s) in the cluster (requested {})",
                       model_list(job.requested, catalog));
  if (s.fractional()) return std::nullopt;
  std::uint64_t best_tasks = 0;
  std::uint16_t largest_host = 0;
  for (auto mask : groups) {
    std::uint64_t tasks = 0;
    for (cluster::ModelId m = 0; m < catalog.size(); ++m) {
      if (!(mask >> m & 1)) continue;
      const auto& counts = host_size_counts_[m];
      for (std::size_t k = 1; k < counts.size(); ++k) tasks += counts[k] * (k / s.gpus_per_task);
      largest_host = std::max(largest_host, topo_->max_host_gpus(m));
    }
    if (tasks >= s.tasks) return std::nullopt;
    best_tasks = std::max(best_tasks, tasks);
  }
  if (largest_host < s.gpus_per_task)
    return fmt::format("unresolvable: a task needs {} GPUs on one host; the largest allowed host has {}",
                       s.gpus_per_task, largest_host);
  return fmt::format("unresolvable: needs {} tasks x {} GPUs{}; the cluster fits at most {}", s.tasks,
                     s.gpus_per_task, groups.size() > 1 ? " of one generation" : "", best_tasks);
}

std::optional<std::string> Scheduler::submit(const workload::JobSpec& spec, cluster::ModelMask requested,
                                            engine::Time now) {
  PendingJob job{&spec, requested, spec.tasks, 0};
  job.allowed = allowed_models(job);
  if (auto why = never_fits(job)) return why;
  job.key = queue_order_->key(job, now);
  queue_.emplace(QueueKey{job.key, spec.id}, job);
  return std::nullopt;
}

bool Scheduler::try_start(PendingJob& job, bool after_block, const SchedContext& ctx, cluster::AllocationState& alloc,
                          std::vector<cluster::TaskSlot>& slots) {
  bool whole = false;
  for (const auto& a : admissions_) {
    if (!a->admit(job, ctx).is_ok()) return false;
    whole = whole || a->all_or_nothing(job);
  }
  const std::uint32_t need = whole ? job.tasks_left : 1;
  const std::uint64_t per_task = job.spec->fractional() ? 1 : job.spec->gpus_per_task;
  // Behind a blocked job, ask the backfill part first (with the fewest GPUs the job could
  // start on): most candidates are refused without a placement attempt.
  if (after_block && !backfill_->may_start(job, need * per_task, ctx)) return false;
  for (auto mask : placement_groups(job)) {
    slots.clear();
    cluster::AllocationTransaction tx(alloc);
    placement_->place(job, job.tasks_left, mask, tx, slots);
    if (slots.size() < need) continue;  // discarded: tx rolls back
    if (after_block) {
      std::uint64_t gpus = cluster::Placement{slots}.gpus();
      if (!backfill_->may_start(job, gpus, ctx)) continue;
      backfill_->started(job, gpus, ctx);
    }
    tx.commit();
    if (one_generation(job) && !slots.empty())
      job.generation = topo_->catalog().model(topo_->host(slots.front().host).model).generation;
    return true;
  }
  slots.clear();
  return false;
}

void Scheduler::schedule(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts) {
  const bool strict = backfill_->max_scan() == 0;
  if (strict && last_block_.valid && !queue_.empty() && queue_.begin()->second.id() == last_block_.job &&
      alloc.release_epoch() == last_block_.epoch)
    return;
  last_block_.valid = false;
  SchedContext ctx{*topo_, alloc, now};
  bool blocked = false;
  std::size_t scanned_after_block = 0;
  std::vector<cluster::TaskSlot> slots;
  // The first job that cannot (fully) start: later ones may only backfill around it.
  auto block_on = [&](const PendingJob& job) {
    blocked = true;
    if (!strict) backfill_->on_blocked(job, ctx, running_by_end_);
  };
  for (auto it = queue_.begin(); it != queue_.end();) {
    if (blocked && scanned_after_block++ >= backfill_->max_scan()) break;
    if (alloc.free_gpus() == 0 && alloc.shared_gpus() == 0) break;
    PendingJob& job = it->second;
    if (!try_start(job, blocked, ctx, alloc, slots)) {
      if (!blocked) {
        if (strict) last_block_ = {true, job.id(), alloc.release_epoch()};
        block_on(job);
      }
      ++it;
      continue;
    }
    job.tasks_left -= static_cast<std::uint32_t>(slots.size());
    StartDecision d{job.id(), slots, job.tasks_left == 0};
    if (!strict) {
      // Only backfilling looks at running jobs.
      auto& run = running_[job.id()];
      if (run.gpus) running_by_end_.erase(run);
      run.id = job.id();
      run.gpus += cluster::Placement{slots}.gpus();
      const auto& s = *job.spec;
      run.expected_end = now + (s.estimate > 0 ? s.estimate : s.duration);
      running_by_end_.insert(run);
    }
    starts.push_back(std::move(d));
    if (job.tasks_left == 0) {
      it = queue_.erase(it);
      continue;
    }
    // Partly started: the rest of the job waits, and blocks what follows.
    if (!blocked) block_on(job);
    ++it;
  }
}

void Scheduler::job_ended(workload::JobId id) {
  auto it = running_.find(id);
  if (it == running_.end()) return;
  running_by_end_.erase(it->second);
  running_.erase(it);
}

}  // namespace schedlab::sched
