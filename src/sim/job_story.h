// `run --explain JOB`: the story of one job, as a researcher asks "why did my job wait?":
// submitted, each change in why it waited (behind which job, or what the cluster lacked for
// it when first in line), started where, stopped why and by whom, restarted, ended. An
// observer that follows one job (by its id, jobs.csv's first column) and asks the run why it
// waits after each scheduling pass while it does.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "metrics/observer.h"
#include "workload/job_spec.h"

namespace schedlab::sim {

class JobStory final : public metrics::RunObserver {
 public:
  using WhyWaiting = std::function<std::string(workload::JobId)>;
  JobStory(workload::JobId id, const workload::StringPool& strings) : target_(id), strings_(strings) {}
  // Set once the run exists (it is built after its observers).
  void ask_why_with(WhyWaiting why) { why_ = std::move(why); }

  void on_submit(const workload::JobSpec& job, engine::Time now) override;
  void on_drop(const workload::JobSpec& job, engine::Time now, const std::string& reason) override;
  void on_start(const workload::JobSpec& job, const cluster::Placement& tasks, engine::Time now, bool first) override;
  void on_life(const metrics::LifeEvent& e) override;
  void on_instant(const metrics::InstantState& s) override;

  bool found() const { return id_.has_value(); }
  workload::JobId target() const { return target_; }
  // The story, one line per step; a line saying the job was not found when it was not.
  std::string text() const;

 private:
  void line(engine::Time t, std::string what);
  bool is_it(const workload::JobSpec& job);

  workload::JobId target_;
  const workload::StringPool& strings_;
  WhyWaiting why_;
  std::optional<workload::JobId> id_;
  std::string header_;
  bool waiting_ = false;
  std::string last_reason_;
  std::vector<std::string> lines_;
};

}  // namespace schedlab::sim
