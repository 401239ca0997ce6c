// `schedlab list`: every registered policy part, perf model, trace format and GPU model.
#include <fmt/format.h>

#include <filesystem>

#include "cli/commands.h"
#include "config/cluster_config.h"
#include "perf/perf_registry.h"
#include "sched/registry.h"
#include "workload/trace_format.h"

namespace schedlab::cli {

namespace {
template <class Part>
void print_parts(const sched::PartList<Part>& list) {
  fmt::print("{}:\n", list.kind());
  for (const auto& p : list.items()) fmt::print("  {:<18} {}\n", p.name, p.help);
}
}  // namespace

void add_list_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("list", "List scheduler parts, perf models, trace formats and GPU models");
  auto catalog = std::make_shared<std::string>("configs/gpus.yaml");
  cmd->add_option("--catalog", *catalog, "GPU catalog to list")->capture_default_str();
  cmd->callback([catalog, &exit_code] {
    const auto& r = sched::builtin_parts();
    print_parts(r.queues);
    print_parts(r.admissions);
    print_parts(r.filters);
    print_parts(r.placements);
    print_parts(r.preemptions);
    print_parts(r.backfills);
    fmt::print("perf models:\n");
    for (const auto& m : perf::perf_models()) fmt::print("  {:<18} {}\n", m.name, m.help);
    fmt::print("trace formats:\n");
    for (const auto& f : workload::trace_formats()) fmt::print("  {:<18} {}\n", f.name, f.help);
    std::error_code ec;
    if (std::filesystem::exists(*catalog, ec)) {
      auto cat = config::load_catalog(*catalog);
      fmt::print("GPU models ({}):\n", *catalog);
      for (const auto& m : cat.models())
        fmt::print("  {:<18} generation {:>3}, {:>5g} GB, speed {:>4g}x V100, {} {:g} GB/s\n", m.name, m.generation,
                   m.memory_gb, m.speed, m.intra_link, m.intra_gbps);
    } else {
      fmt::print("GPU models: {} not found (run from the repository root or pass --catalog)\n", *catalog);
    }
    exit_code = 0;
  });
}

}  // namespace schedlab::cli
