// Optimus' greedy marginal-gain allocation.
#include "sched/optimus_plan.h"

#include <queue>
#include <tuple>

namespace schedlab::sched {

std::vector<std::uint64_t> optimus_sizes(const std::vector<SizingJob>& jobs, std::uint64_t capacity,
                                         const std::function<double(std::size_t, std::uint64_t)>& speed) {
  std::vector<std::uint64_t> size(jobs.size(), 0);
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (jobs[i].min <= capacity) {
      size[i] = jobs[i].min;
      capacity -= jobs[i].min;
    }
  // Optimus' marginal gain: the drop in the job's remaining time, remaining / speed, that one
  // more GPU buys. Greedy, as Optimus: a job whose next GPU gains nothing gets no more. The
  // speeds on its count now and one more are kept, so each GPU given asks for one speed.
  std::vector<double> now(jobs.size()), then(jobs.size());
  auto gain = [&](std::size_t i) {
    then[i] = speed(i, size[i] + 1);
    return jobs[i].remaining / now[i] - jobs[i].remaining / then[i];
  };
  using Entry = std::tuple<double, std::size_t>;  // gain, job index
  auto worse = [](const Entry& a, const Entry& b) {
    return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) < std::get<0>(b) : std::get<1>(a) > std::get<1>(b);
  };
  std::vector<Entry> first;
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (size[i] > 0 && size[i] < jobs[i].max) {
      now[i] = speed(i, size[i]);
      first.emplace_back(gain(i), i);
    }
  // Built at once (the order is total, so the heap's shape does not change what it gives).
  std::priority_queue<Entry, std::vector<Entry>, decltype(worse)> best(worse, std::move(first));
  while (capacity > 0 && !best.empty()) {
    const auto [g, i] = best.top();
    if (!(g > 0)) break;  // the best gains nothing: neither does anyone else
    best.pop();
    // The job keeps the next GPUs while its gain stays the best (the order is total, so it
    // would be the top again): no heap round trip for them.
    for (;;) {
      ++size[i];
      --capacity;
      if (size[i] == jobs[i].max) break;
      now[i] = then[i];
      const Entry next{gain(i), i};
      if (capacity > 0 && std::get<0>(next) > 0 && (best.empty() || !worse(next, best.top()))) continue;
      best.push(next);
      break;
    }
  }
  return size;
}

}  // namespace schedlab::sched
