// A job's pool: rules, then its trace column, then the default; remembered per label pair.
#include "pools/pool_assigner.h"

#include <fmt/format.h>

#include "util/error.h"
#include "util/suggest.h"

namespace schedlab::pools {

namespace {
// FNV-1a, then a splitmix64 finish with the seed: the same on every machine and build.
std::uint64_t seeded_hash(std::string_view s, std::uint64_t seed) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  h ^= seed + 0x9e3779b97f4a7c15ULL;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
  return h ^ (h >> 31);
}
}  // namespace

PoolAssigner::PoolAssigner(const PoolsConfig& config, std::uint64_t seed) : config_(config), seed_(seed) {
  for (const auto& r : config_.rules) per_job_ = per_job_ || r.on == PoolRule::On::job;
}

std::int32_t PoolAssigner::resolve(std::string_view user, std::string_view label, std::string_view job) const {
  for (const auto& r : config_.rules) {
    const std::string_view v = r.on == PoolRule::On::user ? user : r.on == PoolRule::On::job ? job : label;
    if (!r.spread.empty()) {
      if (v.empty()) continue;
      return config_.find(r.spread[seeded_hash(v, seed_) % r.spread.size()]);
    }
    const bool match = r.prefix.empty() ? v == r.equals : v.rfind(r.prefix, 0) == 0;
    if (match) return config_.find(r.pool);
  }
  if (const auto i = config_.find(std::string(label)); i >= 0 && config_.pools[static_cast<std::size_t>(i)].leaf) return i;
  return config_.default_pool.empty() ? -1 : config_.find(config_.default_pool);
}

std::int32_t PoolAssigner::pool_of(const workload::JobSpec& job, const workload::StringPool& strings,
                                   const std::string& trace_name) {
  const std::uint64_t key = std::uint64_t{job.user} << 32 | job.pool;
  if (!per_job_)
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  const std::string job_id = per_job_ ? (job.trace_id != workload::kNoLabel ? std::string(strings.str(job.trace_id))
                                                                          : std::to_string(job.trace_number))
                                      : std::string();
  const std::int32_t p = resolve(strings.str(job.user), strings.str(job.pool), job_id);
  if (p < 0) {
    const std::string label(strings.str(job.pool));
    std::vector<std::string> leaves;
    for (const auto& q : config_.pools)
      if (q.leaf) leaves.push_back(q.name);
    const std::string near = label.empty() ? "" : util::closest_match(label, leaves);
    throw util::InputError(
        trace_name, job.line, "pool",
        fmt::format("{} matches no rule of pools.assign and names no pool{}; add a rule or pools.default "
                    "(scenario {})",
                    label.empty() ? fmt::format("job of user '{}' (no pool column)", strings.str(job.user))
                                  : fmt::format("'{}'", label),
                    near.empty() ? "" : fmt::format(" (closest: '{}')", near), config_.file));
  }
  if (!per_job_) memo_.emplace(key, p);
  return p;
}

}  // namespace schedlab::pools
