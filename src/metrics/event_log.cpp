// The event log's rows: what happened to which job, why, where, and the work it kept or lost.
#include "metrics/event_log.h"

#include <fmt/format.h>

#include "metrics/writers.h"
#include "util/csv.h"

namespace schedlab::metrics {

EventLog::EventLog(std::ostream& out, const workload::StringPool& strings) : out_(out), strings_(strings) {
  out_ << kEventLogHeader;
}

void EventLog::remember(const workload::JobSpec& job) {
  if (job.id >= names_.size()) names_.resize(job.id + 1);
  names_[job.id] = Name{job.trace_number, job.trace_id};
}

std::string EventLog::name(workload::JobId id) const {
  if (id >= names_.size()) return std::to_string(id);
  return trace_name(names_[id].trace_id, names_[id].trace_number, strings_);
}

void EventLog::on_submit(const workload::JobSpec& job, engine::Time) { remember(job); }

void EventLog::on_drop(const workload::JobSpec& job, engine::Time now, const std::string& why) {
  remember(job);
  row(now, job.id, "drop", why, nullptr, 0, 0);
}

void EventLog::on_start(const workload::JobSpec& job, const cluster::Placement& tasks, engine::Time, bool) {
  // Tasks that start later join the attempt; a stop row names everything the job vacates.
  auto& p = attempt_[job.id];
  p.tasks.insert(p.tasks.end(), tasks.tasks.begin(), tasks.tasks.end());
}

std::string EventLog::reason(const LifeEvent& e) const {
  switch (e.step) {
    case LifeStep::stop: {
      std::string why;
      switch (e.cause) {
        case sched::StopCause::preempted:
          why = e.by != sched::kNoJob ? "preempted by job " + name(e.by) : std::string("preempted");
          break;
        case sched::StopCause::host_failed: why = fmt::format("host h{} failed", e.host); break;
        case sched::StopCause::gpu_failed: why = fmt::format("GPU failed on h{}", e.host); break;
        case sched::StopCause::task_failed: why = fmt::format("task failed on h{}", e.host); break;
        case sched::StopCause::killed: why = "killed by a user"; break;
        case sched::StopCause::reclaimed: why = "reclaimed: its pool held more than its entitlement"; break;
        case sched::StopCause::resized: why = "resized: restarts at once at another size"; break;
      }
      if (e.hold > 0) why += fmt::format("; saves a checkpoint for {:g} s", engine::to_seconds(e.hold));
      return why;
    }
    case LifeStep::restart:
      if (e.cause == sched::StopCause::resized)
        return fmt::format("resize {}: on {} GPUs", e.life->resizes, e.placement ? e.placement->gpus() : 0);
      return fmt::format("restart {}: {}", e.life->restarts,
                         e.life->work_done > 0 ? "restores its checkpoint" : "from the beginning");
    case LifeStep::fail:
      return fmt::format("retries exhausted after {} failures", e.life->failures);
    case LifeStep::start:
    case LifeStep::finish:
      return {};
  }
  return {};
}

void EventLog::row(engine::Time now, workload::JobId job, const char* event, const std::string& why,
                   const cluster::Placement* where, double work_done_us, double lost_work_s) {
  line_ = fmt::format("{},{},{},{},{},{},{:.6f},{:.6f}\n", engine::seconds_text(now), util::csv_field(name(job)), event,
                      util::csv_field(why), where ? gpu_milli_text(where->used_milli()) : std::string(),
                      where ? util::csv_field(where->describe()) : std::string(), work_done_us / 1e6, lost_work_s);
  out_ << line_;
}

void EventLog::on_life(const LifeEvent& e) {
  const auto id = e.job->id;
  const auto& life = *e.life;
  switch (e.step) {
    case LifeStep::start:
    case LifeStep::restart:
      // Work done: the checkpoint it starts from.
      row(e.now, id, step_name(e.step), reason(e), e.placement, life.work_done, 0);
      break;
    case LifeStep::stop: {
      // Work done: what its checkpoint keeps; lost: what it throws away.
      auto it = attempt_.find(id);
      row(e.now, id, "stop", reason(e), it != attempt_.end() ? &it->second : nullptr, life.work_done, e.lost_work_s);
      if (it != attempt_.end()) attempt_.erase(it);
      break;
    }
    case LifeStep::finish: {
      auto it = attempt_.find(id);
      row(e.now, id, "finish", reason(e), it != attempt_.end() ? &it->second : nullptr, life.work_total, 0);
      if (it != attempt_.end()) attempt_.erase(it);
      break;
    }
    case LifeStep::fail:
      // Terminated: it keeps nothing; its GPUs were freed when it stopped.
      attempt_.erase(id);
      row(e.now, id, "fail", reason(e), nullptr, 0, e.lost_work_s);
      break;
  }
}

}  // namespace schedlab::metrics
