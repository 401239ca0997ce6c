// Reading `pools:`: the tree, its numbers checked against each other and the cluster, the rules.
#include "config/pools_config.h"

#include <fmt/format.h>

#include <cmath>

#include "util/suggest.h"

namespace schedlab::config {

namespace {
constexpr std::size_t kMaxPools = 4096;
constexpr int kMaxDepth = 16;

std::string amount_text(double v, std::size_t r) {
  return fmt::format("{:g} {}", v, r == 0 ? "GPUs" : r == 1 ? "CPUs" : "GB of memory");
}

// {gpus: N, cpus: N, mem_gb: N}; a plain number is GPUs only (`all`: every resource).
pools::PoolAmounts read_amounts(const YAML::Node& n, const util::At& at, pools::PoolAmounts base, bool all) {
  if (n.IsScalar()) {
    const double v = util::get_real_in(n, at, 0, 1e12);
    if (all) return {v, v, v};
    base[0] = v;
    return base;
  }
  util::require_map(n, at);
  util::check_keys(n, {"gpus", "cpus", "mem_gb"}, at);
  for (std::size_t r = 0; r < 3; ++r) {
    const char* key = pools::kPoolResourceKeys[r];
    if (n[key]) base[r] = util::get_real_in(n[key], at / key, 0, 1e12);
  }
  return base;
}

struct Reader {
  const util::At& root_at;
  pools::PoolsConfig& c;

  void pools(const YAML::Node& list, const util::At& at, std::int32_t parent, int depth) {
    if (!list.IsSequence() || list.size() == 0)
      fail(list, at, "expected a list of pools ({name, reservation, limit, share, type, preemptible, children})");
    if (depth > kMaxDepth) fail(list, at, fmt::format("pools nest deeper than {} levels", kMaxDepth));
    for (std::size_t i = 0; i < list.size(); ++i) pool(list[i], at / std::to_string(i), parent, depth);
  }

  void pool(const YAML::Node& n, const util::At& at, std::int32_t parent, int depth) {
    util::require_map(n, at);
    util::check_keys(n, {"name", "type", "reservation", "limit", "share", "preemptible", "children"}, at);
    if (c.pools.size() >= kMaxPools) fail(n, at, fmt::format("more than {} pools", kMaxPools));
    pools::PoolSpec p;
    p.parent = parent;
    p.line = util::line_of(n);
    if (!n["name"]) fail(n, at / "name", "required key is missing");
    p.name = util::get_string(n["name"], at / "name");
    if (p.name.empty()) fail(n["name"], at / "name", "must not be empty");
    if (c.find(p.name) >= 0)
      fail(n["name"], at / "name", fmt::format("'{}' names two pools (the other at line {})", p.name,
                                               c.pools[static_cast<std::size_t>(c.find(p.name))].line));
    if (n["type"]) p.static_reservation = util::get_choice(n["type"], at / "type", {"elastic", "static"}) == "static";
    if (n["reservation"]) p.reservation = read_amounts(n["reservation"], at / "reservation", p.reservation, false);
    if (n["limit"]) p.limit = read_amounts(n["limit"], at / "limit", p.limit, false);
    if (n["share"]) {
      p.share = read_amounts(n["share"], at / "share", p.share, true);
      for (std::size_t r = 0; r < 3; ++r)
        if (!(p.share[r] > 0)) fail(n["share"], at / "share", "every share must be above 0");
    }
    if (n["preemptible"]) p.preemptible = util::get_bool(n["preemptible"], at / "preemptible");
    for (std::size_t r = 0; r < 3; ++r)
      if (p.limit[r] < p.reservation[r])
        fail(n["limit"], at / "limit" / pools::kPoolResourceKeys[r],
             fmt::format("{} is below the reservation ({})", amount_text(p.limit[r], r),
                         amount_text(p.reservation[r], r)));
    if (parent >= 0) {
      auto& up = c.pools[static_cast<std::size_t>(parent)];
      up.leaf = false;
      // What the children reserve comes out of their parent's reservation.
      for (std::size_t r = 0; r < 3; ++r) {
        double sum = p.reservation[r];
        for (const auto& q : c.pools)
          if (q.parent == parent) sum += q.reservation[r];
        if (sum > up.reservation[r] * (1 + 1e-12))
          fail(n["reservation"] ? n["reservation"] : n, at / "reservation",
               fmt::format("the pools under '{}' reserve {}, more than its own reservation of {}", up.name,
                           amount_text(sum, r), amount_text(up.reservation[r], r)));
      }
    }
    const auto self = static_cast<std::int32_t>(c.pools.size());
    c.pools.push_back(p);
    if (n["children"]) pools(n["children"], at / "children", self, depth + 1);
  }

  // A pool a job may be placed in: a leaf, named with the closest name when it is no pool.
  void leaf_name(const YAML::Node& n, const util::At& at, const std::string& name) {
    const auto i = c.find(name);
    if (i < 0) {
      std::vector<std::string> names;
      for (const auto& p : c.pools) names.push_back(p.name);
      const auto near = util::closest_match(name, names);
      fail(n, at, fmt::format("'{}' is not a pool{}", name, near.empty() ? "" : fmt::format(" (closest: '{}')", near)));
    }
    if (!c.pools[static_cast<std::size_t>(i)].leaf)
      fail(n, at, fmt::format("'{}' has pools under it: jobs go to pools without children", name));
  }

  void rules(const YAML::Node& list, const util::At& at) {
    if (!list.IsSequence()) fail(list, at, "expected a list of rules ({user|label|user_prefix|label_prefix: V, pool: P} or {spread: [P, ...], on: label|user|job})");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const auto& n = list[i];
      const util::At rat = at / std::to_string(i);
      util::require_map(n, rat);
      util::check_keys(n, {"user", "label", "user_prefix", "label_prefix", "pool", "spread", "on"}, rat);
      pools::PoolRule r;
      r.line = util::line_of(n);
      if (n["spread"]) {
        if (n["pool"] || n["user"] || n["label"] || n["user_prefix"] || n["label_prefix"])
          fail(n, rat, "a spread rule has only spread: [pools] and on: label|user|job");
        r.spread = util::get_string_list(n["spread"], rat / "spread");
        if (r.spread.empty()) fail(n["spread"], rat / "spread", "names no pool");
        for (std::size_t k = 0; k < r.spread.size(); ++k)
          leaf_name(n["spread"].IsSequence() ? n["spread"][k] : n["spread"], rat / "spread", r.spread[k]);
        if (n["on"]) {
          const auto on = util::get_choice(n["on"], rat / "on", {"label", "user", "job"});
          using On = pools::PoolRule::On;
          r.on = on == "user" ? On::user : on == "job" ? On::job : On::label;
        }
        c.rules.push_back(std::move(r));
        continue;
      }
      if (n["on"]) fail(n["on"], rat / "on", "only spread rules take on:");
      int given = 0;
      for (const char* k : {"user", "label", "user_prefix", "label_prefix"})
        if (n[k]) {
          ++given;
          const std::string key = k;
          r.on = key.rfind("user", 0) == 0 ? pools::PoolRule::On::user : pools::PoolRule::On::label;
          (key.find("prefix") != std::string::npos ? r.prefix : r.equals) = util::get_string(n[k], rat / key);
          if (key.find("prefix") != std::string::npos && r.prefix.empty())
            fail(n[k], rat / key, "an empty prefix would match every job: use default: instead");
        }
      if (given != 1) fail(n, rat, "give exactly one of user, label, user_prefix, label_prefix");
      if (!n["pool"]) fail(n, rat / "pool", "required key is missing");
      r.pool = util::get_string(n["pool"], rat / "pool");
      leaf_name(n["pool"], rat / "pool", r.pool);
      c.rules.push_back(std::move(r));
    }
  }
};
}  // namespace

pools::PoolsConfig read_pools(const YAML::Node& root, const util::At& at0, const cluster::ClusterSpec& cluster) {
  pools::PoolsConfig c;
  c.file = at0.file;
  const auto& n = root["pools"];
  if (!n || n.IsNull()) return c;  // `pools: ~` (a variant's way to run without pools)
  const util::At at = at0 / "pools";
  util::require_map(n, at);
  util::check_keys(n, {"tree", "assign", "default", "entitlement_period_s", "sustained_periods"}, at);
  c.enabled = true;
  Reader rd{at, c};
  if (!n["tree"]) fail(n, at / "tree", "required key is missing (a list of pools)");
  rd.pools(n["tree"], at / "tree", -1, 0);
  // The top-level reservations must fit in the cluster.
  pools::PoolAmounts capacity{0, 0, 0};
  for (const auto& r : cluster.racks)
    for (const auto& g : r.hosts) {
      const double hosts = static_cast<double>(r.count) * g.count;
      capacity[0] += hosts * g.gpus;
      capacity[1] += hosts * g.cpu_milli / 1000.0;
      capacity[2] += hosts * g.mem_mib / 1024.0;
    }
  for (std::size_t r = 0; r < 3; ++r) {
    double sum = 0;
    for (const auto& p : c.pools)
      if (p.parent < 0) {
        sum += p.reservation[r];
        if (sum > capacity[r] * (1 + 1e-12))
          throw util::InputError(at.file, p.line, (at / "tree").path + "." + p.name + ".reservation",
                                 fmt::format("the top-level pools reserve {} up to here, more than the cluster's {}",
                                             amount_text(sum, r), amount_text(capacity[r], r)));
      }
  }
  if (n["entitlement_period_s"]) {
    const util::At pat = at / "entitlement_period_s";
    c.period =
        util::checked_duration_seconds(util::get_real_in(n["entitlement_period_s"], pat, 0, 1e9, true),
                                       util::FieldContext{at.file, util::line_of(n["entitlement_period_s"]), pat.path});
    if (c.period < 1) fail(n["entitlement_period_s"], pat, "must be at least a microsecond");
  }
  if (n["sustained_periods"])
    c.sustained_periods = util::get_int_in<std::uint32_t>(n["sustained_periods"], at / "sustained_periods", 1, 1000000);
  if (n["assign"]) rd.rules(n["assign"], at / "assign");
  if (n["default"]) {
    c.default_pool = util::get_string(n["default"], at / "default");
    rd.leaf_name(n["default"], at / "default", c.default_pool);
  }
  return c;
}

}  // namespace schedlab::config
