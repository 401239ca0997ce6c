// AFS-L: one GPU at a time, shortest remaining work first unless a longer job gains more.
#include "sched/afs_plan.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace schedlab::sched {

std::vector<std::uint64_t> afs_sizes(const std::vector<SizingJob>& jobs, const std::vector<bool>& running,
                                     std::uint64_t capacity,
                                     const std::function<double(std::size_t, std::uint64_t)>& speed) {
  std::vector<std::uint64_t> size(jobs.size(), 0);
  // A running job is never stopped to make room: its fewest GPUs first.
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (running[i] && jobs[i].min <= capacity) {
      size[i] = jobs[i].min;
      capacity -= jobs[i].min;
    }
  std::vector<std::size_t> order(jobs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return jobs[a].remaining < jobs[b].remaining; });
  auto rate = [&](std::size_t i, std::uint64_t n) { return n == 0 ? 0.0 : speed(i, n); };
  // A job's next step: one more GPU, or its fewest from none.
  auto next = [&](std::size_t i) { return size[i] == 0 ? jobs[i].min : size[i] + 1; };
  // Its speed now and with the step, and what the rule compares, made again only when its count
  // changes: the gain over the new speed (as a challenger), over the old one (as the favourite;
  // a job with no GPUs: infinite), whether the step gains at all, and the GPUs it takes.
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<double> over_then(jobs.size()), over_now(jobs.size());
  std::vector<std::uint64_t> step(jobs.size());
  std::vector<char> gains(jobs.size());
  auto refresh = [&](std::size_t i) {
    const double now = rate(i, size[i]);
    const double then = next(i) <= jobs[i].max ? rate(i, next(i)) : 0.0;
    gains[i] = next(i) <= jobs[i].max && then > now;  // no gain, no GPU
    over_then[i] = (then - now) / then;
    over_now[i] = now == 0 ? kInf : (then - now) / now;
    step[i] = next(i) - size[i];
  };
  for (std::size_t i = 0; i < jobs.size(); ++i) refresh(i);
  // The scan's state (favourite and its ratio) before each place in `order`, so that the next
  // GPU's scan starts again only where something changed: at the job that took the GPU, or at
  // an earlier one the smaller capacity rules out (a job with no GPUs, whose step is its min).
  const std::size_t none = jobs.size();
  std::vector<std::size_t> place(jobs.size()), fav_before(jobs.size() + 1);
  std::vector<double> ratio_before(jobs.size() + 1);
  for (std::size_t p = 0; p < order.size(); ++p) place[order[p]] = p;
  std::vector<std::size_t> without;  // places of the jobs with no GPUs yet
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (size[i] == 0) without.push_back(place[i]);
  std::size_t from = 0;
  for (;;) {
    // The favourite (shortest first) keeps the GPU unless a longer job's gain over its new speed
    // beats the favourite's gain over its old speed.
    std::size_t fav = from == 0 ? none : fav_before[from];
    double fav_ratio = from == 0 ? 0 : ratio_before[from];
    for (std::size_t p = from; p < order.size(); ++p) {
      fav_before[p] = fav;
      ratio_before[p] = fav_ratio;
      const std::size_t i = order[p];
      if (!gains[i] || step[i] > capacity) continue;
      if (fav == none || over_then[i] > fav_ratio) {
        fav = i;
        fav_ratio = over_now[i];
      }
    }
    if (fav == none) break;
    const std::uint64_t had = capacity;
    capacity -= step[fav];
    size[fav] = next(fav);
    refresh(fav);
    from = place[fav];
    if (capacity == 0) from = 0;  // every step is ruled out now: scan it all
    for (std::size_t p : without) {
      const std::size_t i = order[p];
      if (size[i] == 0 && gains[i] && step[i] > capacity && step[i] <= had) from = std::min(from, p);
    }
  }
  return size;
}

}  // namespace schedlab::sched
