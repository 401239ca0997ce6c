// A scenario file (scenarios/*.yaml) as validated values: cluster, workload, scheduler,
// perf model, metrics and named variants. Defaults live here and nowhere else.
// Overrides (`--set key.path=value`) are applied to the YAML before validation, so they
// are checked exactly like the file.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "metrics/measure_window.h"
#include "cluster/gpu_catalog.h"
#include "cluster/topology.h"
#include "config/emulation_config.h"
#include "config/pools_config.h"
#include "config/lifecycle_config.h"
#include "workload/long_running.h"
#include "sched/scheduler_config.h"
#include "workload/generator.h"
#include "workload/elastic_range.h"
#include "workload/resource_defaults.h"
#include "workload/trace_format.h"
#include "util/parsed_yaml_files.h"

namespace schedlab::config {

// `workload.mode: packing` (sim/packing_run.h): the experiment of Weng et al. (ATC'23, FGD).
struct PackingConfig {
  bool shuffled = true;      // `order: shuffled` (by the scenario's seed) or `trace` (as the reader serves them)
  double arrive_until = 1.3;  // arrivals stop when their GPU demand reaches this many times the cluster's GPUs
};

struct WorkloadConfig {
  bool packing_mode = false;  // `mode: packing`; else `replay` (in time)
  long mode_line = 0;         // the line of `mode:`, for errors (0 when not given)
  long line = 0;              // the line of `workload:` (or its `trace:`), for errors about the whole
  PackingConfig packing;
  std::string trace;  // resolved path; empty when generated
  workload::TraceOptions options;
  std::optional<workload::GeneratorConfig> generate;
  std::uint64_t max_jobs = 0;  // 0 = all
  double arrival_scale = 1;    // gaps between submissions multiplied (workload/arrival_scale.h)
  double load = 0;             // `load: X` when given (0 = not): demand X times the trace's, arrival_scale = 1/X
  // `resources:` CPUs and memory per GPU for jobs whose trace has no such columns.
  workload::ResourceDefaults resources;
  // `elastic:` ranges for jobs whose trace gives none, and the restart cost of a resize.
  workload::ElasticDefaults elastic;
  // `services:` and `cron:` beside the trace (or instead of one), with `epoch` and `until_s`.
  workload::LongRunningWork long_running;
};

struct PerfConfig {
  std::string model = "trace";
  long model_line = 0;  // where `perf.model` is written, for an unknown name
  util::NamedArgs args;  // the other `perf:` keys: the model's settings, validated by the model
};

// A named variant of a scenario, for compare: either one of the scenario's own `variants:`
// (`index` into that list; its `set:` is applied from the file, located) or one given on the
// command line as text ("key.path=value" in `sets`).
struct Variant {
  std::string name;
  std::vector<std::string> sets;     // "key.path=value" (--variant)
  std::optional<std::size_t> index;  // the scenario's variants[index]
  long line = 0;                     // of its name in the scenario, 0 for --variant
};

struct Scenario {
  std::string file;
  std::string name;
  std::uint64_t seed = 1;
  std::string cluster_file;
  std::string catalog_file;
  cluster::GpuCatalog catalog;
  cluster::ClusterSpec cluster;
  WorkloadConfig workload;
  sched::SchedulerConfig scheduler;
  PerfConfig perf;
  LifecycleSettings lifecycle;  // checkpoint:, preemption:, failures: (config/lifecycle_config.h)
  EmulationConfig emulation;    // emulation: (only `schedlab emulate` reads it)
  pools::PoolsConfig pools;            // pools: (config/pools_config.h)
  engine::Time timeline_interval = 600 * engine::kMicrosPerSecond;
  metrics::MeasureWindow measure_window;  // metrics.window, metrics.warmup_s (docs/metrics.md)
  std::vector<Variant> variants;
  YAML::Node resolved;  // the scenario after overrides, as run (written to run.yaml)
};

// Loads and validates a scenario. `variant` applies the `set:` of the scenario's own
// variants[variant] first; `sets` are "key.path=value" overrides, applied after it; `seed`
// replaces the file's seed when given. `files` (a sweep's, for its forked cells): parsed copies
// of the scenario, cluster and catalog files set aside (util/parsed_yaml_files.h); null: parse.
Scenario load_scenario(const std::string& path, const std::vector<std::string>& sets = {},
                       std::optional<std::uint64_t> seed = std::nullopt,
                       std::optional<std::size_t> variant = std::nullopt, util::ParsedYamlFiles* files = nullptr);

// Applies one "key.path=value" override to a YAML tree (value parsed as YAML).
void apply_override(YAML::Node& root, const std::string& assignment);
// Puts `value` at the dotted `path` of `root`, creating maps on the way; `refuse` is called
// (and must throw) when a key on the way holds something other than a map.
void set_at_path(YAML::Node& root, const std::string& path, const YAML::Node& value,
                 const std::function<void(const std::string&)>& refuse);

}  // namespace schedlab::config
