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
  // Its speed now and with the step, asked again only when its count changes.
  std::vector<double> now_of(jobs.size()), then_of(jobs.size());
  auto refresh = [&](std::size_t i) {
    now_of[i] = rate(i, size[i]);
    then_of[i] = next(i) <= jobs[i].max ? rate(i, next(i)) : 0.0;
  };
  for (std::size_t i = 0; i < jobs.size(); ++i) refresh(i);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  for (;;) {
    // The favourite (shortest first) keeps the GPU unless a longer job's gain over its new speed
    // beats the favourite's gain over its old speed (a job with no GPUs: infinite).
    std::size_t fav = jobs.size();
    double fav_ratio = 0;
    for (std::size_t i : order) {
      const std::uint64_t to = next(i);
      if (to > jobs[i].max || to - size[i] > capacity) continue;
      const double now = now_of[i], then = then_of[i];
      if (!(then > now)) continue;  // no gain, no GPU
      if (fav == jobs.size()) {
        fav = i;
        fav_ratio = now == 0 ? kInf : (then - now) / now;
        continue;
      }
      if ((then - now) / then > fav_ratio) {
        fav = i;
        fav_ratio = now == 0 ? kInf : (then - now) / now;
      }
    }
    if (fav == jobs.size()) break;
    capacity -= next(fav) - size[fav];
    size[fav] = next(fav);
    refresh(fav);
  }
  return size;
}

}  // namespace schedlab::sched
