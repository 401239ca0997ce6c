// An external policy's decisions pass through the same allocation transaction and records as
// the built-in parts' (record_start, stop_running), so the simulation's invariants hold
// whatever the policy says: a decision is applied wholly or not at all.
#include "sched/external_step.h"

#include <fmt/format.h>

#include "sched/external/external_policy.h"
#include "sched/placement_common.h"

namespace schedlab::sched {

using nlohmann::json;

namespace {
const char* protocol_cause(StopCause c) {
  switch (c) {
    case StopCause::preempted: return "preempted";
    case StopCause::host_failed: return "host_failed";
    case StopCause::gpu_failed: return "gpu_failed";
    case StopCause::task_failed: return "task_failed";
    case StopCause::reclaimed: return "reclaimed";
    case StopCause::killed: return "killed";
    case StopCause::resized: return "resized";
  }
  return "?";
}
}  // namespace

ExternalStep::ExternalStep(Scheduler& s, const ExternalConfig& config)
    : s_(s), policy_(std::make_unique<ExternalPolicy>(config, *s.topo_)), down_(s.topo_->hosts().size(), 0) {}

ExternalStep::~ExternalStep() = default;

void ExternalStep::job_submitted(const PendingJob& job) {
  const auto& s = *job.spec;
  auto name = [&](workload::Label l) {
    return s_.strings_ && l != workload::kNoLabel ? std::string(s_.strings_->str(l)) : std::string();
  };
  std::string trace_id = name(s.trace_id);
  if (trace_id.empty()) trace_id = std::to_string(s.trace_number);
  policy_->submitted(job, trace_id, name(s.user), name(s.gpu_request));
}

void ExternalStep::job_stopped(workload::JobId id, StopCause cause) { policy_->stopped(id, protocol_cause(cause)); }
void ExternalStep::job_requeued(const PendingJob& job) { policy_->requeued(job.id()); }
void ExternalStep::job_ended(workload::JobId id, bool was_running) {
  if (was_running) policy_->ended(id);
}
void ExternalStep::job_forgotten(workload::JobId id) { policy_->gone(id); }
void ExternalStep::own_timer(engine::Time now) { policy_->timer_due(now); }

void ExternalStep::decide(engine::Time now, cluster::AllocationState& alloc, std::vector<StartDecision>& starts,
                          std::vector<StopDecision>& stops) {
  // Hosts down or up since the last tick (a scan only when the count of down GPUs moved).
  if (alloc.down_gpus() != down_gpus_) {
    down_gpus_ = alloc.down_gpus();
    for (cluster::HostId h = 0; h < down_.size(); ++h) {
      if (alloc.down(h) != down_[h]) {
        down_[h] = alloc.down(h);
        policy_->host_changed(h, alloc.down(h));
      }
    }
  }
  if (!policy_->has_events()) return;
  auto state = [&] {
    json hosts = json::array();
    for (cluster::HostId h = 0; h < s_.topo_->hosts().size(); ++h)
      hosts.push_back({{"name", policy_->host_name(h)},
                       {"free_gpus", alloc.whole_free(h)},
                       {"down", alloc.down(h) > 0},
                       {"gpus_down", alloc.down(h)},
                       {"free_cpus", alloc.free_cpu_milli(h) / 1000.0},
                       {"free_mem_gb", alloc.free_mem_mib(h) / 1024.0}});
    json running = json::array();
    std::vector<workload::JobId> ids;
    for (const auto& [id, run] : s_.running_) ids.push_back(id);
    std::sort(ids.begin(), ids.end());  // a hash map's order is not the same everywhere
    std::vector<cluster::TaskSlot> held;
    for (auto id : ids) {
      const auto& life = s_.ledger_->life(id);
      s_.ledger_->held_slots(id, held);
      json on = json::array();
      for (const auto& t : held) on.push_back(policy_->host_name(t.host));
      const double current = life.run_start >= 0 ? static_cast<double>(life.held_milli) / 1000.0 *
                                                       static_cast<double>(now - life.run_start)
                                                 : 0.0;
      running.push_back({{"id", id},
                         {"hosts", std::move(on)},
                         {"since", life.run_start >= 0 ? engine::to_seconds(life.run_start) : -1.0},
                         {"attained_gpu_s", (life.attained_gpu_us + current) / 1e6}});
    }
    json queue = json::array();
    for (const auto& [key, job] : s_.queue_) queue.push_back(job.id());
    return json{{"hosts", std::move(hosts)}, {"running", std::move(running)}, {"queue", std::move(queue)}};
  };
  for (const auto& d : policy_->tick(now, state)) {
    switch (d.kind) {
      case ExternalDecision::Kind::start: start(d, now, alloc, starts); break;
      case ExternalDecision::Kind::preempt: preempt(d, alloc, stops); break;
      case ExternalDecision::Kind::timer: s_.timers_.push_back({d.at, kExternalTimer, 0}); break;
    }
  }
}

void ExternalStep::start(const ExternalDecision& d, engine::Time now, cluster::AllocationState& alloc,
                         std::vector<StartDecision>& starts) {
  if (!s_.has_key(d.job) || !s_.key_state(d.job).queued) {
    policy_->invalid(d, s_.has_key(d.job) ? fmt::format("job {} is not waiting", d.job)
                                         : fmt::format("no job {} is known (submitted and not ended)", d.job));
    return;
  }
  auto it = s_.queue_.find(Scheduler::QueueKey{s_.key_state(d.job).key, d.job});
  PendingJob& job = it->second;
  const auto& spec = *job.spec;
  const auto tasks = static_cast<std::uint32_t>(d.hosts.size());
  if (tasks > job.tasks_left) {
    policy_->invalid(d, fmt::format("{} hosts for {} waiting task(s)", tasks, job.tasks_left));
    return;
  }
  if (spec.gang && tasks < job.tasks_left) {
    policy_->invalid(d, fmt::format("job {} is a gang: its {} waiting tasks start together, not {}", d.job,
                                      job.tasks_left, tasks));
    return;
  }
  const auto g = static_cast<std::uint16_t>(spec.fractional() ? 0 : spec.gpus_per_task);
  const cluster::TaskNeed need = job.need();
  std::vector<cluster::TaskSlot> slots;
  cluster::AllocationTransaction tx(alloc);
  for (std::uint32_t i = 0; i < tasks; ++i) {
    const cluster::HostId h = d.hosts[i];
    const auto& info = s_.topo_->host(h);
    const auto& name = policy_->host_name(h);
    const cluster::ModelMask host_class =
        info.gpus ? cluster::ModelMask{1} << info.model : cluster::kHostsWithoutGpus;
    std::string why;
    if (alloc.down(h) > 0 && alloc.host_down(h))
      why = fmt::format("host {} is down", name);
    else if (!(job.allowed & host_class))
      why = info.gpus ? fmt::format("host {} has {} GPUs, a model job {} may not use", name,
                                    s_.topo_->catalog().model(info.model).name, d.job)
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
      policy_->invalid(d, why);
      return;  // tx rolls back the tasks taken so far
    }
    slots.push_back(tx.take(task_slot(job, h, g)));
  }
  tx.commit();
  s_.record_start(job, slots, now, starts);
  if (job.tasks_left == 0) {
    s_.key_state(d.job).queued = false;
    s_.dequeue(it);
  }
}

void ExternalStep::preempt(const ExternalDecision& d, cluster::AllocationState& alloc,
                           std::vector<StopDecision>& stops) {
  if (!s_.running_.count(d.job)) {
    policy_->invalid(d, fmt::format("job {} is not running", d.job));
    return;
  }
  if (!s_.key_state(d.job).spec->preemptible) {
    policy_->invalid(d, fmt::format("job {} is not preemptible", d.job));
    return;
  }
  s_.stop_running(d.job, StopCause::preempted, kNoJob, alloc, stops);
}

}  // namespace schedlab::sched
