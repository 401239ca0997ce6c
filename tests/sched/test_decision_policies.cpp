// The `scheduler.policy` table `schedlab list` prints names exactly the policies the steps accept.
#include <doctest/doctest.h>

#include "sched/decision_policies.h"
#include "sched/elastic_settings.h"
#include "sched/gavel/gavel_settings.h"

using namespace schedlab;

TEST_CASE("Sched.DecisionPolicies.the_table_names_none_and_every_step_policy_once") {
  std::vector<std::string> expected{"none"};
  for (const auto& e : sched::elastic_policy_names()) expected.push_back(e);
  for (const auto& g : sched::gavel::gavel_policy_names()) expected.push_back(g);
  CHECK(sched::decision_policy_names() == expected);
  for (const auto& p : sched::decision_policies()) {
    CAPTURE(p.name);
    CHECK_FALSE(p.help.empty());
  }
}
