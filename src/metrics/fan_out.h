// Several observers of one run (results and an event log), each told everything in the
// order they were given.
#pragma once

#include <vector>

#include "metrics/observer.h"

namespace schedlab::metrics {

class FanOut final : public RunObserver {
 public:
  explicit FanOut(std::vector<RunObserver*> observers) : observers_(std::move(observers)) {}

  void on_submit(const workload::JobSpec& job, engine::Time now) override {
    for (auto* o : observers_) o->on_submit(job, now);
  }
  void on_drop(const workload::JobSpec& job, engine::Time now, const std::string& reason) override {
    for (auto* o : observers_) o->on_drop(job, now, reason);
  }
  void on_start(const workload::JobSpec& job, const cluster::Placement& tasks, engine::Time now, bool first) override {
    for (auto* o : observers_) o->on_start(job, tasks, now, first);
  }
  void on_run_end(const workload::JobSpec& job, const cluster::Placement& tasks, engine::Time start, engine::Time now,
                  bool job_done) override {
    for (auto* o : observers_) o->on_run_end(job, tasks, start, now, job_done);
  }
  void on_life(const LifeEvent& event) override {
    for (auto* o : observers_) o->on_life(event);
  }
  void on_long_running(const LongRunningEvent& event) override {
    for (auto* o : observers_) o->on_long_running(event);
  }
  void on_instant(const InstantState& state) override {
    for (auto* o : observers_) o->on_instant(state);
  }
  void on_finish(engine::Time now) override {
    for (auto* o : observers_) o->on_finish(now);
  }

 private:
  std::vector<RunObserver*> observers_;
};

}  // namespace schedlab::metrics
