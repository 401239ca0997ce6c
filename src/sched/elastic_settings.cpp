#include "sched/elastic_settings.h"

#include <algorithm>

#include "sched/part_args.h"
#include "util/checked.h"

namespace schedlab::sched {

namespace {
const PartArgs& args_of(const SchedulerConfig& config) {
  static const PartArgs none;
  auto it = config.args.find(config.policy);
  return it == config.args.end() ? none : it->second;
}
}  // namespace

const std::vector<std::string>& elastic_policy_names() {
  static const std::vector<std::string> names{"optimus", "pollux", "afs", "sia"};
  return names;
}

bool is_elastic_policy(const std::string& policy) {
  const auto& names = elastic_policy_names();
  return std::find(names.begin(), names.end(), policy) != names.end();
}

PolluxSettings pollux_settings(const SchedulerConfig& config) {
  PolluxSettings s;
  const auto args = part_args(args_of(config), "pollux", {"p", "restart_penalty_s", "growth", "interval_s"});
  s.p = args.real("p", s.p, -10, 1);
  s.restart_penalty_s = args.real("restart_penalty_s", s.restart_penalty_s, 0, util::kMaxInputSeconds);
  s.growth = args.real("growth", s.growth, 0, 1024);
  // Below 1 a job could never grow past one GPU: a typo, not a policy.
  if (s.growth > 0 && s.growth < 1)
    args.fail("growth", *args.find("growth"), "must be 0 (off) or in [1, 1024], got " + args.text("growth", ""));
  s.interval_s = args.real("interval_s", s.interval_s, 0, util::kMaxInputSeconds);
  return s;
}

OptimusSettings optimus_settings(const SchedulerConfig& config) {
  OptimusSettings s;
  const auto args = part_args(args_of(config), "optimus", {"min_gain_s"});
  s.min_gain_s = args.real("min_gain_s", s.min_gain_s, 0, util::kMaxInputSeconds);
  return s;
}

SiaSettings sia_settings(const SchedulerConfig& config) {
  SiaSettings s;
  const auto args = part_args(args_of(config), "sia", {"p", "lambda_n", "lambda_a", "restart_penalty_s", "mip_nodes"});
  s.p = args.real("p", s.p, -10, 1);
  // Sia's objective is a sum of g^p (maximised for p > 0, its negation for p < 0): p = 0 has none.
  if (s.p == 0) args.fail("p", *args.find("p"), "0 has no sum form in Sia's objective: use a small p (-0.1, 0.1)");
  s.lambda_n = args.real("lambda_n", s.lambda_n, 1, 100, true);
  s.lambda_a = args.real("lambda_a", s.lambda_a, 0, 10);
  s.restart_penalty_s = args.real("restart_penalty_s", s.restart_penalty_s, 0, util::kMaxInputSeconds);
  s.mip_nodes = static_cast<std::uint64_t>(args.integer("mip_nodes", static_cast<std::int64_t>(s.mip_nodes), 0, 1000000));
  return s;
}

void check_elastic_args(const SchedulerConfig& config) {
  if (config.policy == "pollux")
    pollux_settings(config);
  else if (config.policy == "optimus")
    optimus_settings(config);
  else if (config.policy == "sia")
    sia_settings(config);
  else
    part_args(args_of(config), config.policy);  // afs takes no args
}

}  // namespace schedlab::sched
