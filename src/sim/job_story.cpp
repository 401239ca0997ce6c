// Waiting reasons are asked only while the job waits and written only when they change, so a
// job that waits behind the same job for a day takes one line, not one per pass.
#include "sim/job_story.h"

#include <fmt/format.h>

#include "metrics/writers.h"
#include "sched/decisions.h"

namespace schedlab::sim {

bool JobStory::is_it(const workload::JobSpec& job) {
  if (job.id != target_) return false;
  if (id_) return true;
  id_ = job.id;
  header_ = fmt::format("job {} (trace id {}): {} task(s) x {} GPU(s){}{}", job.id,
                        metrics::trace_name(job.trace_id, job.trace_number, strings_), job.tasks, job.gpus_per_task,
                        job.user != workload::kNoLabel ? fmt::format(", user {}", strings_.str(job.user)) : std::string(),
                        job.gpu_request != workload::kNoLabel ? fmt::format(", asks {}", strings_.str(job.gpu_request)) : std::string());
  return true;
}

void JobStory::line(engine::Time t, std::string what) {
  lines_.push_back(fmt::format("  {:>12} s  {}", engine::seconds_text(t), what));
}

void JobStory::on_submit(const workload::JobSpec& job, engine::Time now) {
  if (!is_it(job)) return;
  line(now, "submitted");
  waiting_ = true;
}

void JobStory::on_drop(const workload::JobSpec& job, engine::Time now, const std::string& reason) {
  if (!is_it(job)) return;
  line(now, "dropped: " + reason);
  waiting_ = false;
}

void JobStory::on_start(const workload::JobSpec& job, const cluster::Placement& tasks, engine::Time now, bool first) {
  if (!id_ || job.id != *id_) return;
  line(now, fmt::format("{} on {}", first ? "started" : "more tasks started", tasks.describe()));
  waiting_ = false;
  last_reason_.clear();
}

void JobStory::on_life(const metrics::LifeEvent& e) {
  if (!id_ || e.job->id != *id_) return;
  switch (e.step) {
    case metrics::LifeStep::stop: {
      std::string why = sched::cause_name(e.cause);
      if (e.by != sched::kNoJob) why += fmt::format(" for job {}", e.by);
      if (e.lost_work_s > 0) why += fmt::format(", {:.1f} s of work lost", e.lost_work_s);
      line(e.now, "stopped: " + why);
      waiting_ = true;
      break;
    }
    case metrics::LifeStep::restart:
      line(e.now, "restarted" + (e.placement ? " on " + e.placement->describe() : std::string()));
      waiting_ = false;
      last_reason_.clear();
      break;
    case metrics::LifeStep::finish:
      line(e.now, fmt::format("finished (JCT {} s)", engine::seconds_text(e.now - e.job->submit)));
      waiting_ = false;
      break;
    case metrics::LifeStep::fail:
      line(e.now, std::string("failed: ") + sched::cause_name(e.cause));
      waiting_ = false;
      break;
    case metrics::LifeStep::start:
      break;  // on_start says where
  }
}

void JobStory::on_instant(const metrics::InstantState& s) {
  if (!waiting_ || !id_ || !why_) return;
  std::string reason = why_(*id_);
  // Behind the same job is the same story, whatever its place in the queue.
  const std::string key = reason.substr(0, reason.find(" (position"));
  if (reason.empty() || key == last_reason_) return;
  last_reason_ = key;
  line(s.now, reason);
}

std::string JobStory::text() const {
  if (!id_) return fmt::format("--explain: no job {} in this run (jobs.csv's id column names them)\n", target_);
  std::string out = header_ + "\n";
  for (const auto& l : lines_) out += l + "\n";
  return out;
}

}  // namespace schedlab::sim
