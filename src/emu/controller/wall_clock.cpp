// Scaled wall time, and the one inbox through which the outside world reaches the loop.
#include "emu/controller/wall_clock.h"

#include <algorithm>
#include <cmath>

#include "util/checked.h"

namespace schedlab::emu {

WallClock::WallClock(double speedup, std::function<bool()> may_hear)
    : speedup_(speedup), may_hear_(std::move(may_hear)) {}

void WallClock::post(Arrival arrival) {
  {
    std::lock_guard lock(mu_);
    inbox_.push_back(std::move(arrival));
  }
  wake_.notify_one();
}

void WallClock::resume(engine::Time origin, std::chrono::system_clock::time_point wall, engine::Time last) {
  std::lock_guard lock(mu_);
  started_ = true;
  origin_ = origin;
  // The steady clock of another process cannot be carried over; the system clock can.
  wall0_ = std::chrono::steady_clock::now() -
           std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::system_clock::now() - wall);
  last_ = last;
}

engine::Time WallClock::scaled(SteadyTime wall) const {
  const double wall_us = std::chrono::duration<double, std::micro>(wall - wall0_).count();
  return util::add_time(origin_, util::time_from_double_clamped(std::floor(wall_us * speedup_)));
}

WallClock::SteadyTime WallClock::wall_of(engine::Time t) const {
  std::lock_guard lock(mu_);
  return wall_of_locked(t);
}

WallClock::SteadyTime WallClock::wall_of_locked(engine::Time t) const {
  // Far-future instants (kTimeMax) stay far in the future without overflowing the clock.
  const double wall_us = std::min(static_cast<double>(util::sub_time(t, origin_)) / speedup_, 1e15);
  return wall0_ + std::chrono::microseconds(static_cast<std::int64_t>(std::ceil(wall_us)));
}

engine::Time WallClock::advance(engine::Time next, sim::OutsideEvents& outside) {
  std::unique_lock lock(mu_);
  if (!started_) {
    started_ = true;
    wall0_ = std::chrono::steady_clock::now();
    origin_ = next == engine::kTimeMax ? 0 : next;
    if (on_start_) {
      const auto wall = std::chrono::system_clock::now();
      lock.unlock();
      on_start_(origin_, wall);
      lock.lock();
    }
  }
  for (;;) {
    const auto wall = std::chrono::steady_clock::now();
    const engine::Time shown = scaled(wall);
    if (next != engine::kTimeMax && next <= shown) {
      // Due, or overdue: the loop is behind the clock by this much.
      lag_us_.push_back(std::chrono::duration<double, std::micro>(wall - wall_of_locked(next)).count());
      last_ = std::max(last_, next);
      return next;
    }
    if (!inbox_.empty()) {
      const engine::Time at = std::max(last_, shown);
      last_ = at;
      std::deque<Arrival> arrivals;
      arrivals.swap(inbox_);
      // Outside of the lock: an arrival may post further ones (and the poster must not wait).
      lock.unlock();
      for (auto& a : arrivals) a(at, outside);
      if (on_batch_done_) on_batch_done_(at);
      return at;
    }
    if (next == engine::kTimeMax) {
      lock.unlock();
      const bool waiting = may_hear_ && may_hear_();
      lock.lock();
      if (!waiting && inbox_.empty()) return engine::kTimeMax;
      // Something may still arrive: check again now and then (may_hear can change without a post).
      wake_.wait_for(lock, std::chrono::milliseconds(100));
      continue;
    }
    wake_.wait_until(lock, wall_of_locked(next));
  }
}

}  // namespace schedlab::emu
