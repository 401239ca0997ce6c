// A long run's progress for a terminal: how far into the trace it is and how many jobs have
// ended, handed to a callback at most every half second of wall time (checked every few
// thousand instants, so it costs nothing measurable) and once at the end.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

#include "metrics/observer.h"

namespace schedlab::metrics {

struct Progress {
  engine::Time now = 0;
  std::uint64_t jobs_seen = 0, jobs_ended = 0;
  double wall_s = 0;
  double share = -1;  // of the workload handed out (JobSource::fraction_done), -1 unknown
  bool done = false;
};

class ProgressObserver final : public RunObserver {
 public:
  // `share` tells how much of the workload has been handed out (may be empty).
  ProgressObserver(std::function<void(const Progress&)> report, std::function<double()> share = {})
      : report_(std::move(report)), share_(std::move(share)), start_(std::chrono::steady_clock::now()), last_(start_) {}
  void on_submit(const workload::JobSpec&, engine::Time) override { ++p_.jobs_seen; }
  void on_drop(const workload::JobSpec&, engine::Time, const std::string&) override {
    ++p_.jobs_seen;
    ++p_.jobs_ended;
  }
  void on_life(const LifeEvent& e) override {
    if (e.step == LifeStep::finish || e.step == LifeStep::fail) ++p_.jobs_ended;
  }
  void on_instant(const InstantState& s) override {
    if (++instants_ % 4096) return;
    const auto t = std::chrono::steady_clock::now();
    if (t - last_ < std::chrono::milliseconds(500)) return;
    last_ = t;
    p_.now = s.now;
    p_.wall_s = std::chrono::duration<double>(t - start_).count();
    if (share_) p_.share = share_();
    report_(p_);
  }
  void on_finish(engine::Time now) override {
    p_.now = now;
    p_.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    p_.done = true;
    p_.share = 1;
    report_(p_);
  }

 private:
  std::function<void(const Progress&)> report_;
  std::function<double()> share_;
  std::chrono::steady_clock::time_point start_, last_;
  std::uint64_t instants_ = 0;
  Progress p_;
};

}  // namespace schedlab::metrics
