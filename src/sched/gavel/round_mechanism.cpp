// Priorities and the greedy pick of Gavel's rounds.
#include "sched/gavel/round_mechanism.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace schedlab::sched::gavel {
namespace {

// Gavel's stand-in for an infinite priority: a job that has not run on a type yet.
constexpr double kNeverRan = 1e9;

void check_sizes(const ThroughputMatrix& m, const Allocation& x, const RoundHistory& h) {
  const std::size_t cells = m.jobs.size() * m.types.size();
  if (x.jobs() * x.types() != cells || (x.types() != m.types.size() && !m.jobs.empty()))
    throw std::invalid_argument("gavel rounds: the allocation does not match the throughput matrix");
  for (const std::vector<double>* v : {&h.received, &h.deficit}) {
    if (!v->empty() && v->size() != cells)
      throw std::invalid_argument("gavel rounds: a history does not match the throughput matrix");
  }
  for (double r : h.received)
    if (!std::isfinite(r) || r < 0) throw std::invalid_argument("gavel rounds: received time negative or not finite");
  for (double d : h.deficit)
    if (!std::isfinite(d)) throw std::invalid_argument("gavel rounds: a deficit is not finite");
}

struct Entry {
  std::size_t job, type;
  double priority, deficit, allocation;
};

}  // namespace

std::vector<double> round_priorities(const ThroughputMatrix& m, const Allocation& x, const RoundHistory& history) {
  check_sizes(m, x, history);
  const std::size_t n = m.jobs.size(), types = m.types.size();
  std::vector<double> type_total(types, 0.0);
  if (!history.received.empty())
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = 0; k < types; ++k) type_total[k] += history.received[i * types + k];
  std::vector<double> priority(n * types, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < types; ++k) {
      const double share = x.at(i, k);
      if (share <= 0 || m.jobs[i].throughput[k] <= 0) continue;
      const double got = history.received.empty() ? 0.0 : history.received[i * types + k];
      const double fraction = type_total[k] > 0 ? got / type_total[k] : 0.0;
      priority[i * types + k] = fraction > 0 ? share / fraction : share * kNeverRan;
    }
  return priority;
}

std::vector<std::optional<std::size_t>> next_round(const ThroughputMatrix& m, const Allocation& x,
                                                   const RoundHistory& history, const RoundOptions& options) {
  const std::vector<double> priority = round_priorities(m, x, history);
  const std::size_t n = m.jobs.size(), types = m.types.size();
  std::vector<Entry> queue;
  queue.reserve(n * types);
  // Gavel sorts (priority, deficit, allocation) descending with Python's stable sort: equal
  // keys keep their order, which is type by type, then job by job.
  auto by_key = [](const Entry& a, const Entry& b) {
    if (a.priority != b.priority) return a.priority > b.priority;
    if (a.deficit != b.deficit) return a.deficit > b.deficit;
    return a.allocation > b.allocation;
  };
  for (std::size_t k = 0; k < types; ++k) {
    const std::size_t begin = queue.size();
    for (std::size_t i = 0; i < n; ++i)
      queue.push_back(Entry{i, k, priority[i * types + k],
                            history.deficit.empty() ? 0.0 : history.deficit[i * types + k], x.at(i, k)});
    if (!options.global_queue)
      std::stable_sort(queue.begin() + static_cast<std::ptrdiff_t>(begin), queue.end(), by_key);
  }
  if (options.global_queue) std::stable_sort(queue.begin(), queue.end(), by_key);

  std::vector<long> left(types);
  for (std::size_t k = 0; k < types; ++k) left[k] = m.types[k].count;
  std::vector<std::optional<std::size_t>> chosen(n);
  for (const Entry& e : queue) {
    const GavelJob& j = m.jobs[e.job];
    if (left[e.type] == 0 || chosen[e.job] || j.throughput[e.type] <= 0 || j.scale_factor > left[e.type]) continue;
    left[e.type] -= j.scale_factor;
    chosen[e.job] = e.type;
  }
  return chosen;
}

}  // namespace schedlab::sched::gavel
