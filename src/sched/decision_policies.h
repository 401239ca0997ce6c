// The values of `scheduler.policy`: the decision steps that replace the built-in passes (Gavel's
// rounds, the resizing policies), each with the one line `schedlab list` prints, beside "none"
// (the built-in parts decide). The names are those the steps' own settings accept
// (elastic_settings.h, gavel/gavel_settings.h); a unit test holds the two lists together.
#pragma once

#include <string>
#include <vector>

namespace schedlab::sched {

struct NamedDecisionPolicy {
  std::string name;
  std::string help;
};

const std::vector<NamedDecisionPolicy>& decision_policies();
// The names alone, "none" first: what `scheduler.policy` accepts.
std::vector<std::string> decision_policy_names();

}  // namespace schedlab::sched
