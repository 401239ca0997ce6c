// Progressive filling (Bertsekas & Gallager, Data Networks, §6.5.2) over weighted flows.
//
// Every unfrozen flow has received the same increments since the start, so they all stand at one
// level: a round finds the common step, raises the level and the links' used capacity, and
// freezes the flows at their cap (kept in cap order) and those on links that filled. Only
// limited links that some unfrozen flow crosses are walked (an unlimited one never fills nor
// bounds a step), in two passes a round: one lowers each link's room and notes whether it
// filled, one drops the links no unfrozen flow crosses any more and takes the next step's
// minimum. A link's weight is summed again, over its unfrozen flows in index order, only when
// one of its flows froze (or, for whole weights, which add up exactly in any order, the frozen
// flow's weight is taken off): every value is the same as a walk over all flows and links would
// compute, so the rates are the same bits.
#include "perf/max_min_share.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace schedlab::perf {

namespace {
// The working vectors, kept between calls (a run asks at every instant where a shared run starts
// or ends): their storage is reused instead of allocated again.
struct Scratch {
  std::vector<double> left, weight, full;
  std::vector<std::uint32_t> first, at, loaded, frozen, touched, filled;
  std::vector<std::pair<std::uint32_t, double>> on;    // (flow, weight)
  std::vector<std::pair<double, std::uint32_t>> by_cap;  // (cap, flow)
  std::vector<char> live, mark;
};
}  // namespace

std::vector<double> max_min_rates(const std::vector<double>& capacity, const std::vector<FairFlow>& flows) {
  thread_local Scratch scratch;
  // Named references, not a structured binding: clang 14 (the fuzz and sanitizer builds) does not
  // let the lambdas below capture bindings.
  auto &left = scratch.left, &weight = scratch.weight, &full = scratch.full;
  auto &first = scratch.first, &at = scratch.at, &loaded = scratch.loaded, &frozen = scratch.frozen,
       &touched = scratch.touched, &filled = scratch.filled;
  auto& on = scratch.on;
  auto& by_cap = scratch.by_cap;
  auto &live = scratch.live, &mark = scratch.mark;
  const double inf = std::numeric_limits<double>::infinity();
  const std::size_t n_flows = flows.size(), n_links = capacity.size();
  std::vector<double> rate(n_flows, 0.0);
  left.resize(n_links);
  for (std::size_t l = 0; l < n_links; ++l) left[l] = capacity[l] > 0 ? capacity[l] : inf;
  // Each link's (flow, weight) entries in flow order, as compressed rows.
  first.assign(n_links + 1, 0);
  for (const auto& f : flows)
    for (const auto& [l, w] : f.links) ++first[l + 1];
  for (std::size_t l = 0; l < n_links; ++l) first[l + 1] += first[l];
  on.resize(first[n_links]);
  at.assign(first.begin(), first.end() - 1);
  // A link's weight is summed as its entries are laid down, in flow order, as sum_weight sums them.
  // Whole weights (a ring crosses a link a whole number of times) add up exactly in any order:
  // then a frozen flow's weights are taken off its links instead of summing them again.
  weight.assign(n_links, 0.0);
  bool whole = on.size() < (std::size_t{1} << 20);
  for (std::size_t f = 0; f < n_flows; ++f)
    for (const auto& [l, w] : flows[f].links) {
      on[at[l]++] = {static_cast<std::uint32_t>(f), w};
      weight[l] += w;
      whole = whole && (w == 1.0 || (w == std::floor(w) && std::abs(w) <= 4294967296.0));
    }
  live.assign(n_flows, 1);
  auto sum_weight = [&](std::size_t l) {
    double s = 0.0;
    for (std::uint32_t e = first[l]; e < first[l + 1]; ++e)
      if (live[on[e].first]) s += on[e].second;
    weight[l] = s;
  };
  // The limited links some unfrozen flow loads (weight > 0), in index order, and the room
  // below which each counts as full.
  loaded.clear();
  full.resize(n_links);
  for (std::size_t l = 0; l < n_links; ++l)
    if (weight[l] > 0 && left[l] < inf) {
      loaded.push_back(static_cast<std::uint32_t>(l));
      full[l] = 1e-12 * std::max(1.0, capacity[l]);
    }
  // Flows by cap, and so by the level at which their cap freezes them (cap x (1 - 1e-12), a
  // relative tolerance for rounding, never decreases as the cap grows).
  by_cap.resize(n_flows);
  for (std::size_t f = 0; f < n_flows; ++f) by_cap[f] = {flows[f].cap, static_cast<std::uint32_t>(f)};
  if (!std::is_sorted(by_cap.begin(), by_cap.end())) std::sort(by_cap.begin(), by_cap.end());  // often equal caps
  std::size_t capped = 0;  // by_cap[0, capped) are frozen or were when reached
  std::size_t n_live = n_flows;
  double least_cap = inf;  // the least cap of an unfrozen flow
  auto next_cap = [&] {
    while (capped < n_flows && !live[by_cap[capped].second]) ++capped;
    least_cap = capped < n_flows ? flows[by_cap[capped].second].cap : inf;
  };
  mark.assign(n_links, 0);
  double level = 0.0;
  next_cap();
  // The largest common increment: the nearest cap, or the link that fills first; the links no
  // unfrozen flow crosses any more are dropped on the way (order kept). A link whose room is
  // surely above next x weight has a ratio, correctly rounded, of at least next, which leaves
  // the minimum as it is: its division is skipped. (fl(next w)(1 + 2^-50), rounded, exceeds the
  // exact next w by more than the two roundings can take off; p is a normal number.)
  auto least_step = [&] {
    double next = least_cap - level;
    std::size_t kept = 0;
    for (auto l : loaded) {
      const double w = weight[l];
      if (!(w > 0)) continue;
      loaded[kept++] = l;
      const double p = next * w;
      if (p >= 0x1p-1000 && left[l] > p * (1 + 0x1p-50)) continue;
      next = std::min(next, left[l] / w);
    }
    loaded.resize(kept);
    return next;
  };
  double step = least_step();
  while (n_live > 0) {
    step = std::max(step, 0.0);
    level += step;
    filled.clear();
    for (auto l : loaded) {
      left[l] -= step * weight[l];
      if (left[l] <= full[l]) filled.push_back(l);
    }
    // Freeze flows at their cap or on a full link.
    frozen.clear();
    for (std::size_t c = capped; c < n_flows && level >= by_cap[c].first * (1 - 1e-12); ++c)
      if (live[by_cap[c].second]) live[by_cap[c].second] = 0, frozen.push_back(by_cap[c].second);
    for (auto l : filled)
      for (std::uint32_t e = first[l]; e < first[l + 1]; ++e)
        if (on[e].second > 0 && live[on[e].first]) live[on[e].first] = 0, frozen.push_back(on[e].first);
    if (frozen.empty()) break;  // cannot happen with positive caps; guards against a stall
    n_live -= frozen.size();
    for (auto f : frozen) rate[f] = level;
    if (whole) {
      for (auto f : frozen)
        for (const auto& [l, w] : flows[f].links) weight[l] -= w;
    } else {
      touched.clear();
      for (auto f : frozen)
        for (const auto& [l, w] : flows[f].links)
          if (!mark[l]) mark[l] = 1, touched.push_back(l);
      for (auto l : touched) mark[l] = 0, sum_weight(l);
    }
    next_cap();
    step = least_step();
  }
  for (std::size_t f = 0; f < n_flows; ++f)
    if (live[f]) rate[f] = level;
  return rate;
}

}  // namespace schedlab::perf
