// Optimus' allocation (Peng et al., EuroSys'18; the marginal-gain idea as AFS, NSDI'21, uses
// it), as a plain function over numbers: every job first gets its fewest GPUs, in the order
// given, as far as they fit; then the GPUs left go one at a time to the job whose remaining
// time drops most with one more GPU, until none is left or no job gains. The scheduler's
// `scheduler.policy: optimus` step (optimus_step.h) realises the sizes this returns.
#pragma once

#include <cstdint>
#include <algorithm>
#include <functional>
#include <vector>

namespace schedlab::sched {

struct SizingJob {
  std::uint64_t min = 1, max = 1;  // the GPU range (a rigid job: min = max)
  double remaining = 0;            // work left, in the perf model's units (time at speed 1)
};

// speed(i, n): job i's speed on n GPUs (> 0). Returns each job's GPUs (0 = it waits), in the
// order of `jobs`; their sum is at most `capacity`. Ties in gain go to the earlier job.
std::vector<std::uint64_t> optimus_sizes(const std::vector<SizingJob>& jobs, std::uint64_t capacity,
                                         const std::function<double(std::size_t, std::uint64_t)>& speed);

// The same with any callable for the speeds (a plan asks for one per GPU it gives: no indirect
// call in that loop).
template <class Speed>
std::vector<std::uint64_t> optimus_sizes_by(const std::vector<SizingJob>& jobs, std::uint64_t capacity, Speed&& speed) {
  std::vector<std::uint64_t> size(jobs.size(), 0);
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (jobs[i].min <= capacity) {
      size[i] = jobs[i].min;
      capacity -= jobs[i].min;
    }
  // Optimus' marginal gain: the drop in the job's remaining time, remaining / speed, that one
  // more GPU buys. Greedy, as Optimus: a job whose next GPU gains nothing gets no more. The
  // remaining times on its count now and one more are kept, so each GPU given asks for one
  // speed and makes one division.
  std::vector<double> left(jobs.size()), left_then(jobs.size());
  auto gain = [&](std::size_t i) {
    left_then[i] = jobs[i].remaining / speed(i, size[i] + 1);
    return left[i] - left_then[i];
  };
  struct Entry {
    double gain;
    std::size_t job;
  };
  // The order is total (ties in gain: the earlier job first), so whichever heap holds them, the
  // top is the same entry.
  auto worse = [](const Entry& a, const Entry& b) { return a.gain != b.gain ? a.gain < b.gain : a.job > b.job; };
  // Only entries that gain are kept: one that gains nothing would stop the hand-out on reaching
  // the top (every other entry then gains nothing either), so leaving it out, or dropping it
  // when its next gain is none, gives the same picks.
  std::vector<Entry> best;
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (size[i] > 0 && size[i] < jobs[i].max) {
      left[i] = jobs[i].remaining / speed(i, size[i]);
      if (const double g = gain(i); g > 0) best.push_back({g, i});
    }
  std::make_heap(best.begin(), best.end(), worse);
  // Puts e at the root's place (a binary heap, as make_heap builds), bottom-up as libstdc++'s
  // pop_heap: the hole goes down the better children to a leaf, then e rises to its place. A
  // job's next gain is mostly below the others', so it sinks far: one comparison a level
  // instead of two. The better children form a decreasing path, so e ends where a plain
  // sift-down would put it.
  auto sift_root = [&](Entry e) {
    const std::size_t n = best.size();
    std::size_t i = 0;
    for (std::size_t c = 1; c < n; c = 2 * i + 1) {
      if (c + 1 < n && worse(best[c], best[c + 1])) ++c;
      best[i] = best[c];
      i = c;
    }
    while (i > 0) {
      const std::size_t p = (i - 1) / 2;
      if (!worse(best[p], e)) break;
      best[i] = best[p];
      i = p;
    }
    best[i] = e;
  };
  auto drop_root = [&] {
    const Entry last = best.back();
    best.pop_back();
    if (!best.empty()) sift_root(last);
  };
  while (capacity > 0 && !best.empty()) {
    const std::size_t i = best.front().job;
    ++size[i];
    --capacity;
    if (size[i] == jobs[i].max) {
      drop_root();
      continue;
    }
    // Its next gain takes its place: one sift instead of a pop and a push.
    left[i] = left_then[i];
    if (const double g = gain(i); g > 0)
      sift_root({g, i});
    else
      drop_root();
  }
  return size;
}

}  // namespace schedlab::sched
