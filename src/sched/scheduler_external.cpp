// An external policy's decisions pass through the same allocation transaction and records as
// the built-in parts' (record_start, stop_running), so the simulation's invariants hold
// whatever the policy says: a decision is applied wholly or not at all.
#include <fmt/format.h>

#include "sched/external/external_policy.h"
#include "sched/placement_common.h"
#include "sched/scheduler.h"

namespace schedlab::sched {

using nlohmann::json;

Scheduler::~Scheduler() = default;

namespace {
const char* protocol_cause(StopCause c) {
  switch (c) {
    case StopCause::preempted: return "preempted";
    case StopCause::host_failed: return "host_failed";
    case StopCause::gpu_failed: return "gpu_failed";
    case StopCause::task_failed: return "task_failed";
    case StopCause::reclaimed: return "reclaimed";
    case StopCause::killed: return "killed";
  }
  return "?";
}
}  // namespace

void Scheduler::external_submitted(const PendingJob& job) {
  const auto& s = *job.spec;
  auto name = [&](workload::Label l) {
    return strings_ && l != workload::kNoLabel ? std::string(strings_->str(l)) : std::string();
  };
  std::string trace_id = name(s.trace_id);
  if (trace_id.empty()) trace_id = std::to_string(s.trace_number);
  external_->submitted(job, trace_id, name(s.user), name(s.gpu_request));
}

void Scheduler::external_stopped(workload::JobId id, StopCause cause) { external_->stopped(id, protocol_cause(cause)); }

void Scheduler::external_pass(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts,
                              std::vector<StopDecision>& stops) {
  // Hosts down or up since the last tick (a scan only when the count of down GPUs moved).
  if (alloc.down_gpus() != external_down_gpus_) {
    external_down_gpus_ = alloc.down_gpus();
    for (cluster::HostId h = 0; h < external_down_.size(); ++h) {
      if (alloc.down(h) != external_down_[h]) {
        external_down_[h] = alloc.down(h);
        external_->host_changed(h, alloc.down(h));
      }
    }
  }
  if (!external_->has_events()) return;
  auto state = [&] {
    json hosts = json::array();
    for (cluster::HostId h = 0; h < topo_->hosts().size(); ++h)
      hosts.push_back({{"name", external_->host_name(h)},
                       {"free_gpus", alloc.whole_free(h)},
                       {"down", alloc.down(h) > 0},
                       {"gpus_down", alloc.down(h)},
                       {"free_cpus", alloc.free_cpu_milli(h) / 1000.0},
                       {"free_mem_gb", alloc.free_mem_mib(h) / 1024.0}});
    json running = json::array();
    std::vector<workload::JobId> ids;
    for (const auto& [id, run] : running_) ids.push_back(id);
    std::sort(ids.begin(), ids.end());  // a hash map's order is not the same everywhere
    std::vector<cluster::TaskSlot> held;
    for (auto id : ids) {
      const auto& life = ledger_->life(id);
      ledger_->held_slots(id, held);
      json on = json::array();
      for (const auto& t : held) on.push_back(external_->host_name(t.host));
      const double current = life.run_start >= 0 ? static_cast<double>(life.held_milli) / 1000.0 *
                                                       static_cast<double>(now - life.run_start)
                                                 : 0.0;
      running.push_back({{"id", id},
                         {"hosts", std::move(on)},
                         {"since", life.run_start >= 0 ? engine::to_seconds(life.run_start) : -1.0},
                         {"attained_gpu_s", (life.attained_gpu_us + current) / 1e6}});
    }
    json queue = json::array();
    for (const auto& [key, job] : queue_) queue.push_back(job.id());
    return json{{"hosts", std::move(hosts)}, {"running", std::move(running)}, {"queue", std::move(queue)}};
  };
  for (const auto& d : external_->tick(now, state)) {
    switch (d.kind) {
      case ExternalDecision::Kind::start: external_start(d, now, alloc, starts); break;
      case ExternalDecision::Kind::preempt: external_preempt(d, now, alloc, stops); break;
      case ExternalDecision::Kind::timer: timers_.push_back({d.at, kExternalTimer, 0}); break;
    }
  }
}

void Scheduler::external_start(const ExternalDecision& d, engine::Time now, cluster::AllocationState& alloc,
                               std::vector<StartDecision>& starts) {
  if (!has_key(d.job) || !key_state(d.job).queued) {
    external_->invalid(d, has_key(d.job) ? fmt::format("job {} is not waiting", d.job)
                                         : fmt::format("no job {} is known (submitted and not ended)", d.job));
    return;
  }
  auto it = queue_.find(QueueKey{key_state(d.job).key, d.job});
  PendingJob& job = it->second;
  const auto& spec = *job.spec;
  const auto tasks = static_cast<std::uint32_t>(d.hosts.size());
  if (tasks > job.tasks_left) {
    external_->invalid(d, fmt::format("{} hosts for {} waiting task(s)", tasks, job.tasks_left));
    return;
  }
  if (spec.gang && tasks < job.tasks_left) {
    external_->invalid(d, fmt::format("job {} is a gang: its {} waiting tasks start together, not {}", d.job,
                                      job.tasks_left, tasks));
    return;
  }
  const auto g = static_cast<std::uint16_t>(spec.fractional() ? 0 : spec.gpus_per_task);
  const cluster::TaskNeed need = job.need();
  std::vector<cluster::TaskSlot> slots;
  cluster::AllocationTransaction tx(alloc);
  for (std::uint32_t i = 0; i < tasks; ++i) {
    const cluster::HostId h = d.hosts[i];
    const auto& info = topo_->host(h);
    const auto& name = external_->host_name(h);
    const cluster::ModelMask host_class =
        info.gpus ? cluster::ModelMask{1} << info.model : cluster::kHostsWithoutGpus;
    std::string why;
    if (alloc.down(h) > 0 && alloc.host_down(h))
      why = fmt::format("host {} is down", name);
    else if (!(job.allowed & host_class))
      why = info.gpus ? fmt::format("host {} has {} GPUs, a model job {} may not use", name,
                                    topo_->catalog().model(info.model).name, d.job)
                      : fmt::format("host {} has no GPU and job {} needs one", name, d.job);
    else if (spec.fractional() && alloc.share_slot_with_room(h, spec.gpu_milli, true) < 0 && alloc.whole_free(h) == 0)
      why = fmt::format("host {} has no GPU with room for a {:g} share", name, spec.gpu_milli / 1000.0);
    else if (alloc.whole_free(h) < g)
      why = fmt::format("host {} has {} free GPUs, task {} needs {}", name, alloc.whole_free(h), i + 1, g);
    else if (!alloc.fits(h, need))
      why = fmt::format("host {} has {:g} free CPUs and {:g} GB free memory, task {} needs {:g} and {:g}", name,
                        alloc.free_cpu_milli(h) / 1000.0, alloc.free_mem_mib(h) / 1024.0, i + 1,
                        need.cpu_milli / 1000.0, need.mem_mib / 1024.0);
    if (!why.empty()) {
      external_->invalid(d, why);
      return;  // tx rolls back the tasks taken so far
    }
    slots.push_back(tx.take(task_slot(job, h, g)));
  }
  tx.commit();
  record_start(job, slots, now, starts);
  if (job.tasks_left == 0) {
    key_state(d.job).queued = false;
    dequeue(it);
  }
}

void Scheduler::external_preempt(const ExternalDecision& d, engine::Time now, cluster::AllocationState& alloc,
                                 std::vector<StopDecision>& stops) {
  if (!running_.count(d.job)) {
    external_->invalid(d, fmt::format("job {} is not running", d.job));
    return;
  }
  if (!key_state(d.job).spec->preemptible) {
    external_->invalid(d, fmt::format("job {} is not preemptible", d.job));
    return;
  }
  stop_running(d.job, StopCause::preempted, kNoJob, now, alloc, stops);
}

}  // namespace schedlab::sched
