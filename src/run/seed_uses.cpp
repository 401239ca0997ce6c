// What draws from a scenario's seed (seed_uses.h): each user of `sc.seed` in run/ and below.
#include "run/seed_uses.h"

#include <algorithm>

namespace schedlab::run {

std::vector<std::string> seed_uses(const config::Scenario& sc) {
  std::vector<std::string> out;
  if (sc.workload.generate) out.emplace_back("workload.generate");
  const auto& rates = sc.lifecycle.failures.rates;
  if (rates.host_mtbf_h > 0 || rates.gpu_failures_per_gpu_h > 0) out.emplace_back("failures (rates)");
  if (sc.perf.model == "placement") out.emplace_back("perf.model: placement (model_mix)");
  if (sc.pools.enabled &&
      std::any_of(sc.pools.rules.begin(), sc.pools.rules.end(), [](const auto& r) { return !r.spread.empty(); }))
    out.emplace_back("pools.assign (spread)");
  if (sc.workload.packing_mode && sc.workload.packing.shuffled) out.emplace_back("workload.packing.order: shuffled");
  if (!sc.scheduler.external.command.empty()) out.emplace_back("scheduler.external");
  return out;
}

}  // namespace schedlab::run
