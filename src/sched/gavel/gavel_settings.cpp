#include "sched/gavel/gavel_settings.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "sched/part_args.h"
#include "util/suggest.h"

namespace schedlab::sched::gavel {

const std::vector<std::string>& gavel_policy_names() {
  static const std::vector<std::string> names{"gavel-max-min-fairness", "gavel-finish-time-fairness"};
  return names;
}

std::optional<std::string> policy_conflict(const SchedulerConfig& config, const std::string& perf_model, bool pools,
                                           bool packing) {
  const auto& names = gavel_policy_names();
  if (std::find(names.begin(), names.end(), config.policy) == names.end())
    return util::unknown_name_message("scheduler policy", config.policy, names);
  if (!config.external.command.empty()) return "a policy and an external scheduler exclude each other";
  if (pools) return "a Gavel policy cannot be combined with pools: (not supported)";
  if (packing) return "the packing mode runs the built-in parts only";
  // Gavel's throughput matrix is the perf model's speed of each job on each GPU type.
  if (perf_model == "trace" || perf_model == "none")
    return fmt::format(
        "policy '{}' needs a throughput matrix (each job's speed on each GPU type), and perf model '{}' runs every "
        "job at its traced speed everywhere; set perf.model: placement",
        config.policy, perf_model);
  return std::nullopt;
}

GavelSettings gavel_settings(const SchedulerConfig& config) {
  GavelSettings s;
  if (config.policy == "gavel-finish-time-fairness")
    s.policy = GavelPolicy::finish_time_fairness;
  else if (config.policy != "gavel-max-min-fairness")
    throw std::invalid_argument("gavel_settings: not a Gavel policy: " + config.policy);
  auto it = config.args.find(config.policy);
  const PartArgs none;
  const auto args = part_args(it == config.args.end() ? none : it->second, config.policy, {"round_s", "fill_leftover"});
  s.round = args.seconds("round_s", s.round, true);
  s.fill_leftover = args.flag("fill_leftover", s.fill_leftover);
  return s;
}

}  // namespace schedlab::sched::gavel
