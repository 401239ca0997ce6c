// The table of `scheduler.policy` values (decision_policies.h).
#include "sched/decision_policies.h"

namespace schedlab::sched {

const std::vector<NamedDecisionPolicy>& decision_policies() {
  static const std::vector<NamedDecisionPolicy> table{
      {"none", "the parts above decide (queue, admission, filters, placement, preemption, backfill)"},
      {"optimus", "Optimus (EuroSys'18): elastic jobs sized by greedy marginal gain in remaining time; min_gain_s guards growth"},
      {"pollux", "Pollux (OSDI'21): sizes maximising the power mean (p) of goodput speedups, restarts discounted"},
      {"afs", "AFS-L (NSDI'21): each GPU to the shortest job unless a longer one gains more per its new throughput"},
      {"sia", "Sia (SOSP'23): each job's GPU type and count by integer program over normalised goodputs (power p), restarts discounted"},
      {"gavel-max-min-fairness", "Gavel (OSDI'20): heterogeneity-aware max-min fairness by linear program, realised in rounds"},
      {"gavel-finish-time-fairness", "Gavel (OSDI'20): finish-time fairness (Themis' rho) by linear program, in rounds"},
  };
  return table;
}

std::vector<std::string> decision_policy_names() {
  std::vector<std::string> names;
  for (const auto& p : decision_policies()) names.push_back(p.name);
  return names;
}

}  // namespace schedlab::sched
