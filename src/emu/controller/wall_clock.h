// The emulator's clock: trace time runs `speedup` times faster than the wall clock, from the
// instant the emulation starts. The loop asks it for its next instant (sim/clock.h); it sleeps
// until the wall clock reaches the next queued event, or wakes early when something arrives
// from outside. Arrivals (a task exited, an agent was lost, a job was submitted) are posted
// from any thread as closures and run in the loop's thread at the instant they are delivered,
// so nothing outside ever touches the scheduler concurrently. It also measures how late the
// loop handled its instants against the scaled wall clock (the fidelity report's clock lag).
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <limits>
#include <mutex>
#include <vector>

#include "sim/clock.h"

namespace schedlab::emu {

class WallClock final : public sim::Clock {
 public:
  using Arrival = std::function<void(engine::Time now, sim::OutsideEvents& outside)>;
  using SteadyTime = std::chrono::steady_clock::time_point;

  // `speedup`: trace seconds per wall second (> 0). `may_hear`: whether anything can still
  // arrive from outside (live tasks, lost hosts); asked only when nothing is queued, so that
  // a loop with nothing left to wait for ends instead of sleeping forever.
  WallClock(double speedup, std::function<bool()> may_hear);

  // Loop thread, before the first advance(): `started` hears the anchor of trace time when the
  // clock starts (the journal keeps it); `batch_done` hears the instant of each delivery of
  // arrivals, after they ran (the journal writes their line).
  void on_start(std::function<void(engine::Time origin, std::chrono::system_clock::time_point wall)> started) {
    on_start_ = std::move(started);
  }
  void on_batch_done(std::function<void(engine::Time at)> done) { on_batch_done_ = std::move(done); }
  // A resumed emulation: trace time `origin` was due at `wall` (the clock runs on from
  // there, so the time the controller was away has passed in trace time too), and instants
  // before `last` were handled already.
  void resume(engine::Time origin, std::chrono::system_clock::time_point wall, engine::Time last);

  // Any thread: runs `arrival` in the loop's thread at the next instant.
  void post(Arrival arrival);
  engine::Time advance(engine::Time next, sim::OutsideEvents& outside) override;

  // Whether the clock runs (from the first advance()).
  bool started() const {
    std::lock_guard lock(mu_);
    return started_;
  }
  // The wall time at which trace time `t` is due.
  SteadyTime wall_of(engine::Time t) const;
  double speedup() const { return speedup_; }
  // How late each queued instant was handled, in wall microseconds (0 when on time).
  const std::vector<double>& lag_us() const { return lag_us_; }

 private:
  engine::Time scaled(SteadyTime wall) const;
  SteadyTime wall_of_locked(engine::Time t) const;

  const double speedup_;
  std::function<bool()> may_hear_;
  std::function<void(engine::Time, std::chrono::system_clock::time_point)> on_start_;
  std::function<void(engine::Time)> on_batch_done_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::deque<Arrival> inbox_;
  bool started_ = false;
  SteadyTime wall0_{};
  engine::Time origin_ = 0;
  engine::Time last_ = std::numeric_limits<engine::Time>::min();
  std::vector<double> lag_us_;
};

}  // namespace schedlab::emu
