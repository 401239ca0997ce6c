// Reading `emulation:`: a failure plan of real kills, each one checked.
#include "config/emulation_config.h"

#include <algorithm>
#include <random>

#include <fmt/format.h>

namespace schedlab::config {

namespace {
std::uint32_t host_index(const YAML::Node& n, const util::At& at, std::uint32_t hosts) {
  const std::string name = util::get_string(n, at);
  std::uint64_t h = 0;
  const bool ok = name.size() >= 2 && name.size() <= 11 && name[0] == 'h' &&
                  std::all_of(name.begin() + 1, name.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
                  (h = std::stoull(name.substr(1))) < hosts;
  if (!ok) fail(n, at, fmt::format("'{}' is not a host of the cluster (h0 to h{})", name, hosts - 1));
  return static_cast<std::uint32_t>(h);
}
}  // namespace

EmulationConfig read_emulation(const YAML::Node& root, const util::At& at0, std::uint32_t hosts, std::uint64_t seed) {
  EmulationConfig c;
  const auto& e = root["emulation"];
  if (!e) return c;
  const util::At at = at0 / "emulation";
  util::require_map(e, at);
  util::check_keys(e, {"failures", "random_failures"}, at);
  if (const auto& list = e["failures"]) {
    const util::At lat = at / "failures";
    if (!list.IsSequence()) fail(list, lat, "expected a list of {at_s, kill: agent|worker, host | job, rank}");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const auto& n = list[i];
      const util::At iat = lat / std::to_string(i);
      util::require_map(n, iat);
      util::check_keys(n, {"at_s", "kill", "host", "job", "rank"}, iat);
      PlannedKill k;
      if (!n["at_s"]) fail(n, iat / "at_s", "required key is missing (trace seconds)");
      k.at = util::checked_duration_seconds(util::get_double(n["at_s"], iat / "at_s"),
                                            util::FieldContext{at.file, util::line_of(n["at_s"]), (iat / "at_s").path});
      if (!n["kill"]) fail(n, iat / "kill", "required key is missing (agent or worker)");
      k.what = util::get_choice(n["kill"], iat / "kill", {"agent", "worker"}) == "agent" ? PlannedKill::What::agent
                                                                                         : PlannedKill::What::worker;
      if (k.what == PlannedKill::What::agent) {
        if (n["job"] || n["rank"]) fail(n, iat, "an agent kill names a host, not a job or rank");
        if (n["host"]) k.host = host_index(n["host"], iat / "host", hosts);
      } else {
        if (n["host"]) fail(n["host"], iat / "host", "a worker kill names a job (and rank), not a host");
        if (n["job"]) k.job = util::get_int_in<std::uint32_t>(n["job"], iat / "job", 0, kAnyTarget - 1);
        if (n["rank"]) k.rank = util::get_int_in<std::uint32_t>(n["rank"], iat / "rank", 0, 1u << 20);
      }
      c.kills.push_back(k);
    }
  }
  if (const auto& r = e["random_failures"]) {
    const util::At rat = at / "random_failures";
    util::require_map(r, rat);
    util::check_keys(r, {"agents", "workers", "from_s", "to_s"}, rat);
    const auto agents = r["agents"] ? util::get_int_in<std::uint32_t>(r["agents"], rat / "agents", 0, 10000) : 0u;
    const auto workers = r["workers"] ? util::get_int_in<std::uint32_t>(r["workers"], rat / "workers", 0, 10000) : 0u;
    if (!r["to_s"]) fail(r, rat / "to_s", "required key is missing (the kills fall in [from_s, to_s] trace seconds)");
    auto secs = [&](const char* key) {
      return util::checked_duration_seconds(util::get_double(r[key], rat / key),
                                            util::FieldContext{at.file, util::line_of(r[key]), (rat / key).path});
    };
    const engine::Time from = r["from_s"] ? secs("from_s") : 0, to = secs("to_s");
    if (to <= from) fail(r["to_s"], rat / "to_s", "must be after from_s");
    // Their own stream: the same seed gives the same plan whatever the workload.
    std::mt19937_64 rng(seed ^ 0x656d756c6174ULL);
    std::uniform_int_distribution<engine::Time> when(from, to);
    std::uniform_int_distribution<std::uint32_t> host(0, hosts - 1);
    for (std::uint32_t i = 0; i < agents; ++i)
      c.kills.push_back({when(rng), PlannedKill::What::agent, host(rng), kAnyTarget, 0});
    for (std::uint32_t i = 0; i < workers; ++i)
      c.kills.push_back({when(rng), PlannedKill::What::worker, kAnyTarget, kAnyTarget, 0});
  }
  std::stable_sort(c.kills.begin(), c.kills.end(), [](const auto& a, const auto& b) { return a.at < b.at; });
  return c;
}

}  // namespace schedlab::config
