// `schedlab list`: every registered policy part, perf model, trace format and GPU model.
#include <fmt/format.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "config/cluster_config.h"
#include "perf/perf_registry.h"
#include "sched/decision_policies.h"
#include "sched/registry.h"
#include "workload/trace_format.h"

namespace schedlab::cli {

namespace {
template <class Part>
void print_parts(const sched::PartList<Part>& list) {
  fmt::print("{}:\n", list.kind());
  for (const auto& p : list.items()) fmt::print("  {:<18} {}\n", p.name, p.help);
}

template <class Items>
nlohmann::ordered_json named_list(const Items& items) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& item : items) out.push_back({{"name", item.name}, {"help", item.help}});
  return out;
}

// The same lists as the text, for scripts: parts by kind, perf models, trace formats and the
// catalog's GPU models (null when the catalog is not found).
void print_json(const std::string& catalog_path) {
  const auto& r = sched::builtin_parts();
  nlohmann::ordered_json out;
  auto& parts = out["parts"];
  parts["queue"] = named_list(r.queues.items());
  parts["admission"] = named_list(r.admissions.items());
  parts["filter"] = named_list(r.filters.items());
  parts["placement"] = named_list(r.placements.items());
  parts["preemption"] = named_list(r.preemptions.items());
  parts["backfill"] = named_list(r.backfills.items());
  out["policies"] = named_list(sched::decision_policies());
  out["perf_models"] = named_list(perf::perf_models());
  out["trace_formats"] = named_list(workload::trace_formats());
  std::error_code ec;
  if (std::filesystem::exists(catalog_path, ec)) {
    auto cat = config::load_catalog(catalog_path);
    auto models = nlohmann::ordered_json::array();
    for (const auto& m : cat.models())
      models.push_back({{"name", m.name},
                        {"generation", m.generation},
                        {"memory_gb", m.memory_gb},
                        {"speed_vs_v100", m.speed},
                        {"intra_link", m.intra_link},
                        {"intra_gbps", m.intra_gbps}});
    out["gpu_models"] = {{"catalog", catalog_path}, {"models", models}};
  } else {
    out["gpu_models"] = nullptr;
  }
  fmt::print("{}\n", out.dump(2));
}
}  // namespace

void add_list_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("list", "List scheduler parts, perf models, trace formats and GPU models");
  auto catalog = std::make_shared<std::string>("configs/gpus.yaml");
  cmd->add_option("--catalog", *catalog, "GPU catalog to list")->capture_default_str();
  auto format = std::make_shared<std::string>("text");
  cmd->add_option("--format", *format, "text (for people) or json (the same lists, for scripts)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->callback([catalog, format, &exit_code] {
    exit_code = 0;
    if (*format == "json") return print_json(*catalog);
    const auto& r = sched::builtin_parts();
    print_parts(r.queues);
    print_parts(r.admissions);
    print_parts(r.filters);
    print_parts(r.placements);
    print_parts(r.preemptions);
    print_parts(r.backfills);
    fmt::print("policy (scheduler.policy: decides in the parts' place; docs/elastic.md):\n");
    for (const auto& p : sched::decision_policies()) fmt::print("  {:<18} {}\n", p.name, p.help);
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
