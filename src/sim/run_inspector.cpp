// The API's views, waiting reasons and the per-instant snapshot.
#include "sim/run_inspector.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <vector>

namespace schedlab::sim {

void RunInspector::describe_job(workload::JobId id, RunView::Job& j) const {
  const auto& spec = jobs_.spec(id);
  const auto& rt = jobs_.record(id);
  j.id = id;
  j.name = spec.trace_id == workload::kNoLabel ? "" : strings_.str(spec.trace_id);
  j.user = spec.user == workload::kNoLabel ? "" : strings_.str(spec.user);
  j.state = rt.life.state;
  j.submit = spec.submit;
  j.tasks = spec.tasks;
  j.gpus_per_task = spec.gpus_per_task;
  j.preemptions = rt.life.preemptions;
  j.failures = rt.life.failures;
  j.restarts = rt.life.restarts;
  j.work_total_s = rt.life.work_total / 1e6;
  for (RunId r : rt.runs) {
    if (!j.placement.empty()) j.placement += ' ';
    j.placement += jobs_.run(r).placement.describe();
  }
}

std::string RunInspector::lacking(const sched::PendingJob& p) const {
  const auto allowed = scheduler_.allowed_models(p);
  std::uint64_t usable = 0;
  const auto g = static_cast<std::uint16_t>(p.spec->fractional() ? 1 : p.spec->gpus_per_task);
  for (cluster::ModelId m = 0; m < topo_.catalog().size(); ++m)
    if (allowed >> m & 1) usable += alloc_.usable_gpus(m, g);
  return fmt::format("needs {} more task(s) of {} GPU(s) on one host; {} free GPUs are on hosts with room for one "
                     "such task, {} free in all",
                     p.tasks_left, p.spec->gpus_per_task, usable, alloc_.free_gpus());
}

std::string RunInspector::why_waiting(const sched::PendingJob& p, std::uint32_t position,
                                      workload::JobId head) const {
  if (position > 1) return fmt::format("waits behind job {} (position {} in the queue)", head, position);
  return "first in the queue: " + lacking(p);
}

std::string RunInspector::waiting_reason(workload::JobId id) const {
  std::vector<const sched::PendingJob*> waiting;
  scheduler_.queue_order(waiting, std::numeric_limits<std::size_t>::max());
  for (std::size_t i = 0; i < waiting.size(); ++i) {
    if (waiting[i]->id() != id) continue;
    const auto position = static_cast<std::uint32_t>(i + 1);
    // The part that refused it in the last pass, when that pass got as far as this job.
    if (const auto& r = scheduler_.watched_refusal())
      return fmt::format("{}: {} (position {} in the queue)", r->part,
                         r->reason.empty() ? lacking(*waiting[i]) : r->reason, position);
    return why_waiting(*waiting[i], position, waiting.front()->id());
  }
  return {};
}

void RunInspector::inspect(RunView& out, std::size_t limit, bool queue_only) const {
  const engine::Time now = out.now;
  out.hosts.clear();
  for (cluster::HostId h = 0; h < topo_.hosts().size(); ++h)
    out.hosts.push_back({topo_.host(h).gpus, alloc_.whole_free(h), alloc_.down(h)});
  out.active_jobs = jobs_.active_jobs();
  out.running_jobs = jobs_.running_jobs();
  out.pending_jobs = scheduler_.pending();
  out.jobs_by_state = {};
  for (std::size_t s = 0; s < kJobStates; ++s) out.jobs_by_state[s] = jobs_.ended(static_cast<sched::JobState>(s));
  // The job read ahead of its submit time has a record but has not arrived: not counted.
  for (workload::JobId id = 0; id < jobs_.size(); ++id)
    if (jobs_.active(id) && !outside_.count(id) && jobs_.spec(id).submit <= now)
      ++out.jobs_by_state[static_cast<std::size_t>(jobs_.record(id).life.state)];
  out.jobs.clear();
  std::vector<const sched::PendingJob*> waiting;
  scheduler_.queue_order(waiting, queue_only ? limit : std::numeric_limits<std::size_t>::max());
  std::unordered_map<workload::JobId, std::uint32_t> position;
  for (std::size_t i = 0; i < waiting.size(); ++i) position[waiting[i]->id()] = static_cast<std::uint32_t>(i + 1);
  auto add = [&](workload::JobId id) {
    RunView::Job j;
    describe_job(id, j);
    j.work_done_s = jobs_.work_done(id, now) / 1e6;
    if (auto it = position.find(id); it != position.end()) {
      j.queue_position = it->second;
      j.waiting = why_waiting(*waiting[it->second - 1], it->second, waiting.front()->id());
    }
    out.jobs.push_back(std::move(j));
  };
  if (queue_only) {
    for (const auto* p : waiting) add(p->id());
    return;
  }
  for (workload::JobId id = 0; id < jobs_.size() && out.jobs.size() < limit; ++id)
    if (jobs_.active(id) && !outside_.count(id)) add(id);
}

metrics::InstantState RunInspector::snapshot(engine::Time now, const pools::PoolBook* pools) const {
  metrics::InstantState s;
  s.now = now;
  s.used_milli = alloc_.used_milli();
  s.free_gpus = alloc_.free_gpus();
  s.down_gpus = alloc_.down_gpus();
  s.running_jobs = jobs_.running_jobs();
  s.pending_jobs = scheduler_.pending();
  s.used_cpu_milli = alloc_.used_cpu_milli();
  s.pools = pools;
  if (const auto* head = scheduler_.head(); head && head->spec->needs_gpu()) {
    // Free GPUs the first pending job cannot use: on hosts too full for one of its tasks
    // (GPUs, CPUs or memory), or of models it may not use.
    const cluster::ModelMask allowed = scheduler_.allowed_models(*head);
    const auto g = static_cast<std::uint16_t>(head->spec->fractional() ? 1 : head->spec->gpus_per_task);
    const cluster::TaskNeed need = head->need();
    auto& memo = usable_memo_;
    if (memo.version != alloc_.version() || memo.job != head->id() || memo.allowed != allowed ||
        memo.gpus_per_task != g || memo.need.cpu_milli != need.cpu_milli || memo.need.mem_mib != need.mem_mib) {
      std::uint64_t usable = 0;
      for (cluster::ModelId m = 0; m < topo_.catalog().size(); ++m)
        if (allowed >> m & 1) usable += alloc_.usable_gpus(m, g, need);
      memo = {alloc_.version(), head->id(), allowed, g, need, usable};
    }
    s.fragmented_gpus = s.free_gpus - std::min(memo.usable, s.free_gpus);
  }
  return s;
}

}  // namespace schedlab::sim
