// Grid points whose seeds cannot change their results (sweep_seeds.h).
#include "sweep/sweep_seeds.h"

#include <fmt/format.h>

#include "config/scenario.h"
#include "run/seed_uses.h"
#include "util/yaml_util.h"

namespace schedlab::sweep {

std::optional<std::string> seeds_without_effect(const SweepSpec& spec) {
  if (spec.seeds.size() < 2) return std::nullopt;
  const std::size_t seeds = spec.seeds.size();
  const std::size_t points = cell_count(spec) / seeds;
  std::size_t fixed = 0, loaded = 0;
  std::string first;  // the first fixed point's grid values
  for (std::size_t p = 0; p < points; ++p) {
    const SweepCell cell = cell_at(spec, p * seeds);
    try {
      const auto sc = config::load_scenario(spec.scenario, cell_sets(spec, cell), cell.seed);
      ++loaded;
      if (!run::seed_uses(sc).empty()) continue;
      if (fixed++ == 0)
        for (std::size_t a = 0; a < spec.grid.size(); ++a)
          first += fmt::format("{}{}={}", a ? ", " : "", spec.grid[a].key, cell.values[a]);
    } catch (const std::exception&) {
    }
  }
  if (fixed == 0) return std::nullopt;
  const std::string what = fmt::format(
      "a fixed trace and no random draws (no workload.generate, failure rates, perf.model placement, pools spread "
      "or external policy): its {} seeds repeat one run, and sweep-summary.csv shows sd 0 with no confidence "
      "interval",
      seeds);
  if (fixed == loaded)
    return fmt::format("sweep {}: its seeds cannot change its results: {}", spec.file, what);
  return fmt::format("sweep {}: at {} of {} grid points (first: {}) its seeds cannot change the results: {}",
                     spec.file, fixed, loaded, first.empty() ? "the only one" : first, what);
}

}  // namespace schedlab::sweep
