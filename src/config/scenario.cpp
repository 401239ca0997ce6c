// Scenario validation: every key checked, every name resolved, errors with file:line.
#include "config/scenario.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <numeric>

#include "cluster/resources.h"
#include "config/cluster_config.h"
#include "config/elastic_config.h"
#include "config/load_knob.h"
#include "config/measure_window_config.h"
#include "config/scheduler_section.h"
#include "config/long_running_config.h"
#include "util/named_args_yaml.h"
#include "util/yaml_util.h"
#include "sched/decision_policies.h"
#include "sched/elastic_settings.h"
#include "sched/gavel/gavel_settings.h"
#include "util/error.h"
#include "util/path_name.h"
#include "util/suggest.h"
#include "util/text.h"
#include "workload/job_limit.h"

namespace schedlab::config {

namespace {
// A copy of a node parsed from a --set value, without that string's marks: they would say
// "line 1" and point error messages at an unrelated line of the scenario file.
YAML::Node without_marks(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Scalar:
      return YAML::Node(n.Scalar());
    case YAML::NodeType::Sequence: {
      YAML::Node out(YAML::NodeType::Sequence);
      for (const auto& item : n) out.push_back(without_marks(item));
      return out;
    }
    case YAML::NodeType::Map: {
      YAML::Node out(YAML::NodeType::Map);
      // A list or map used as a key is kept as such, so that the scenario's checks report it.
      for (const auto& kv : n)
        out[kv.first.IsScalar() ? YAML::Node(kv.first.Scalar()) : without_marks(kv.first)] = without_marks(kv.second);
      return out;
    }
    default:
      return YAML::Node(YAML::NodeType::Null);
  }
}
}  // namespace

void apply_override(YAML::Node& root, const std::string& assignment) {
  auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) throw util::InputError("--set", 0, assignment, "expected key.path=value");
  std::string path = assignment.substr(0, eq);
  // The value is checked by parse_yaml; the key path enters the tree as it is, so it is
  // checked here, at the same edge (util/text.h).
  if (const std::size_t bad = util::utf8_error_at(path); bad != std::string::npos)
    throw util::InputError("--set", 0, util::printable(path),
                           fmt::format("not valid UTF-8: byte 0x{:02x} at offset {}",
                                       static_cast<unsigned>(static_cast<unsigned char>(path[bad])), bad));
  YAML::Node value;
  try {
    value = without_marks(util::parse_yaml(assignment.substr(eq + 1), "--set"));
  } catch (const util::InputError& e) {
    // The line parse_yaml names is within the value, not a file's.
    throw util::InputError("--set", 0, path, "value is not valid YAML: " + e.what_here());
  }
  set_at_path(root, path, value, [&](const std::string& what) { throw util::InputError("--set", 0, path, what); });
}

void set_at_path(YAML::Node& root, const std::string& path, const YAML::Node& value,
                 const std::function<void(const std::string&)>& refuse) {
  std::vector<std::string> keys;
  std::size_t start = 0;
  for (;;) {
    auto dot = path.find('.', start);
    keys.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  // yaml-cpp nodes are handles: walk down by re-binding a vector of handles.
  std::vector<YAML::Node> chain{root};
  for (std::size_t i = 0; i + 1 < keys.size(); ++i) {
    YAML::Node child = chain.back()[keys[i]];
    if (!child.IsDefined() || child.IsNull()) {
      chain.back()[keys[i]] = YAML::Node(YAML::NodeType::Map);
      child = chain.back()[keys[i]];
    }
    if (!child.IsMap()) {
      refuse("'" + keys[i] + "' is not a map");
      return;
    }
    chain.push_back(child);
  }
  chain.back()[keys.back()] = value;
}

namespace {

// Weights of a weighted draw: finite, not negative, not all zero.
std::vector<double> get_weights(const YAML::Node& n, const util::At& at) {
  std::vector<double> w = util::get_double_list(n, at);
  double total = 0;
  for (double x : w) {
    if (!(x >= 0)) util::fail(n, at, fmt::format("weights must not be negative, got {}", x));
    total += x;
  }
  if (!w.empty() && !(total > 0 && std::isfinite(total)))
    util::fail(n, at, "weights must add up to a finite number greater than 0");
  return w;
}

workload::GeneratorConfig read_generator(const YAML::Node& n, const util::At& at, const cluster::GpuCatalog& catalog) {
  workload::GeneratorConfig g;
  util::check_keys(n,
                   {"jobs", "arrival_rate_per_hour", "duration_median_s", "duration_sigma", "duration_min_s",
                    "duration_max_s", "gpu_sizes", "gpu_size_weights", "gpus_per_host", "models", "model_weights",
                    "users", "cpu_job_share", "cpu_sizes", "cpu_size_weights", "mem_gb_per_cpu", "services",
                    "service_instances_max", "cron_entries", "cron_period_s", "cron_duration_s"},
                   at);
  // Durations and gaps within the 100 years any time may span; sizes within 32 bits.
  auto seconds = [&](const char* key, double& out) {
    if (n[key]) out = util::get_real_in(n[key], at / key, 0, util::kMaxInputSeconds, true);
  };
  if (n["jobs"]) {
    g.jobs = util::get_count(n["jobs"], at / "jobs");
    if (g.jobs > workload::kMaxJobsPerRun)
      util::fail(n["jobs"], at / "jobs", workload::too_many_jobs_message(g.jobs, "jobs"));
  }
  if (n["arrival_rate_per_hour"])
    g.arrival_rate_per_hour =
        util::get_real_in(n["arrival_rate_per_hour"], at / "arrival_rate_per_hour", 0, 1e12, true);
  seconds("duration_median_s", g.duration_median_s);
  if (n["duration_sigma"]) g.duration_sigma = util::get_real_in(n["duration_sigma"], at / "duration_sigma", 0, 100);
  seconds("duration_min_s", g.duration_min_s);
  seconds("duration_max_s", g.duration_max_s);
  if (n["gpu_sizes"]) {
    g.gpu_sizes.clear();
    const std::string field = (at / "gpu_sizes").path;
    const util::FieldContext where{at.file, util::line_of(n["gpu_sizes"]), field};
    for (double d : util::get_double_list(n["gpu_sizes"], at / "gpu_sizes"))
      g.gpu_sizes.push_back(util::checked_int<std::uint32_t>(d, where, 1, std::numeric_limits<std::uint32_t>::max()));
  }
  if (n["gpu_size_weights"]) g.gpu_size_weights = get_weights(n["gpu_size_weights"], at / "gpu_size_weights");
  if (n["gpus_per_host"]) g.gpus_per_host = util::get_count(n["gpus_per_host"], at / "gpus_per_host");
  if (n["models"]) {
    g.models = util::get_string_list(n["models"], at / "models");
    // Checked now, against the scenario's catalog, rather than when the first job asks mid-run
    // (the simulation reads a request as names joined by '|'; "any" asks for none).
    for (const auto& m : g.models) {
      if (m == "any") continue;
      std::size_t start = 0;
      for (;;) {
        std::size_t bar = m.find('|', start);
        std::string name = m.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
        if (!catalog.find(name))
          util::fail(n["models"], at / "models",
                     util::unknown_name_message("GPU model", name, catalog.names()) + " (or 'any')");
        if (bar == std::string::npos) break;
        start = bar + 1;
      }
    }
  }
  if (n["model_weights"]) g.model_weights = get_weights(n["model_weights"], at / "model_weights");
  if (n["users"]) g.users = util::get_count(n["users"], at / "users");
  if (n["cpu_job_share"]) g.cpu_job_share = util::get_real_in(n["cpu_job_share"], at / "cpu_job_share", 0, 1);
  if (n["services"]) g.services = util::get_int_in<std::uint32_t>(n["services"], at / "services", 0, 10'000);
  if (n["service_instances_max"])
    g.service_instances_max = util::get_count(n["service_instances_max"], at / "service_instances_max", 1000);
  if (n["cron_entries"])
    g.cron_entries = util::get_int_in<std::uint32_t>(n["cron_entries"], at / "cron_entries", 0, 10'000);
  if (n["cron_period_s"])
    g.cron_period_s = util::get_real_in(n["cron_period_s"], at / "cron_period_s", 1, 366 * 86400.0);
  if (n["cron_duration_s"])
    g.cron_duration_s = util::get_real_in(n["cron_duration_s"], at / "cron_duration_s", 1, 3.2e9);
  if (n["cpu_sizes"]) {
    g.cpu_sizes.clear();
    const std::string field = (at / "cpu_sizes").path;
    const util::FieldContext where{at.file, util::line_of(n["cpu_sizes"]), field};
    for (double d : util::get_double_list(n["cpu_sizes"], at / "cpu_sizes"))
      g.cpu_sizes.push_back(
          util::checked_int<std::uint32_t>(d, where, 1, static_cast<std::uint32_t>(cluster::kMaxCpus)));
  }
  if (n["cpu_size_weights"]) g.cpu_size_weights = get_weights(n["cpu_size_weights"], at / "cpu_size_weights");
  if (n["mem_gb_per_cpu"])
    g.mem_gb_per_cpu = util::get_real_in(n["mem_gb_per_cpu"], at / "mem_gb_per_cpu", 0, cluster::kMaxMemGb);
  // Arrivals are a Poisson process with mean gap θ: twice the mean span plus 50 gaps stays within
  // the 100 years a time may span with a probability that misses by less than e^-50, where a
  // single job's gap alone would otherwise pass it often.
  const double gap_s = 3600.0 / g.arrival_rate_per_hour;
  const double mean_span_s = static_cast<double>(g.jobs) * gap_s;
  if (2 * mean_span_s + 50 * gap_s > util::kMaxInputSeconds)
    util::fail(
        n["arrival_rate_per_hour"] ? n["arrival_rate_per_hour"] : n, at / "arrival_rate_per_hour",
        fmt::format("{} job(s) at {} per hour would arrive over {:.3g} years on average, too close to the 100-year "
                    "limit of simulated time",
                    g.jobs, g.arrival_rate_per_hour, mean_span_s / (365 * 86400.0)));
  // The generator's own checks, after ours: ours name the key's line and the span's reason.
  try {
    workload::validate(g);
  } catch (const util::InputError& e) {
    util::fail(n, at, e.what());
  }
  return g;
}

// Seeds are 64-bit unsigned, through the same conversion as --seed; anything else is a located error.
std::uint64_t get_seed(const YAML::Node& n, const util::At& at) {
  if (!n.IsScalar()) util::fail(n, at, "expected a whole number, got a non-scalar");
  const std::string field = at.path;
  return util::checked_number<std::uint64_t>(n.Scalar(), util::FieldContext{at.file, util::line_of(n), field});
}

// Applies the `set:` of the scenario's variant `index` to `root`. The values are the file's
// own nodes, marks and all: an error in one is reported at its line in the scenario.
// Returns what it set, so that read_scenario can give run.yaml copies of those values (a node
// shared with the variants list would be written as a YAML anchor and alias).
std::vector<std::pair<std::string, YAML::Node>> apply_variant(YAML::Node& root, std::size_t index, const util::At& at) {
  const YAML::Node variants = root["variants"];
  if (!variants.IsSequence() || index >= variants.size()) return {};  // read_scenario reports it
  const util::At vat = at / "variants" / std::to_string(index) / "set";
  const YAML::Node set = variants[index]["set"];
  if (!set) return {};
  util::require_map(set, vat);
  std::vector<std::pair<std::string, YAML::Node>> assignments;
  for (const auto& kv : set) assignments.emplace_back(util::key_of(kv.first, vat), kv.second);
  for (const auto& assignment : assignments) {
    const std::string& key = assignment.first;  // named, not a structured binding: lambdas capture it
    if (key == "variants" || key.starts_with("variants."))
      util::fail(set, vat / key, "a variant cannot change the list of variants");
    set_at_path(root, key, assignment.second, [&](const std::string& what) { util::fail(set, vat / key, what); });
  }
  return assignments;
}

Scenario read_scenario(const std::string& path, YAML::Node root, const std::vector<std::string>& sets,
                       std::optional<std::uint64_t> seed, std::optional<std::size_t> variant,
                       util::ParsedYamlFiles* files) {
  util::At at{path, ""};
  util::require_map(root, at);
  std::vector<std::pair<std::string, YAML::Node>> variant_sets;
  if (variant) variant_sets = apply_variant(root, *variant, at);
  for (const auto& s : sets) apply_override(root, s);
  if (seed) root["seed"] = *seed;
  util::check_keys(root,
                   {"name", "description", "seed", "cluster", "workload", "resources", "scheduler", "perf", "metrics",
                    "variants", "checkpoint", "preemption", "failures", "emulation", "pools", "elastic"},
                   at);

  Scenario sc;
  sc.file = path;
  sc.resolved = root;
  sc.name = root["name"] ? util::get_string(root["name"], at / "name") : std::filesystem::path(path).stem().string();
  // The name becomes the results folder's (results/<name>/).
  util::check_path_name(sc.name, util::FieldContext{path, util::line_of(root["name"]), "name"});
  if (root["seed"]) sc.seed = get_seed(root["seed"], at / "seed");

  if (!root["cluster"]) util::fail(root, at / "cluster", "required key is missing (a file in configs/clusters/)");
  sc.cluster_file = util::resolve_path(path, util::get_string(root["cluster"], at / "cluster"));
  util::require_file(sc.cluster_file, root["cluster"], at / "cluster");
  sc.catalog_file = catalog_path_of(sc.cluster_file, files);
  sc.catalog = load_catalog(sc.catalog_file, files);
  sc.cluster = load_cluster(sc.cluster_file, sc.catalog, files).spec;
  sc.lifecycle = read_lifecycle(root, at, sc.cluster, sc.catalog);
  sc.pools = read_pools(root, at, sc.cluster);
  sc.workload.elastic = read_elastic(root["elastic"], at / "elastic");
  {
    std::uint64_t hosts = 0;
    for (const auto& r : sc.cluster.racks)
      for (const auto& g : r.hosts) hosts += std::uint64_t{r.count} * g.count;
    sc.emulation = read_emulation(root, at, static_cast<std::uint32_t>(std::min<std::uint64_t>(hosts, kAnyTarget - 1)),
                                  sc.seed);
  }

  const auto& w = root["workload"];
  util::At wat = at / "workload";
  if (!w) util::fail(root, wat, "required key is missing (trace: FILE or generate: {...})");
  {
    std::vector<std::string> keys{"trace",    "format",        "skip_bad_rows", "args", "generate",
                                  "max_jobs", "arrival_scale", "load", "mode",   "packing"};
    keys.insert(keys.end(), kLongRunningKeys.begin(), kLongRunningKeys.end());
    util::check_keys(w, keys, wat);
  }
  if (w["trace"] && w["generate"]) util::fail(w, wat, "give either trace or generate, not both");
  if (!w["trace"] && !w["generate"] && !w["services"] && !w["cron"])
    util::fail(w, wat, "needs trace: FILE or generate: {...} (or services: and cron: lists)");
  if (w["trace"]) {
    sc.workload.trace = util::resolve_path(path, util::get_string(w["trace"], wat / "trace"));
    util::require_file(sc.workload.trace, w["trace"], wat / "trace", /*any_kind=*/true);
  }
  if (w["format"]) {
    std::vector<std::string> names{"auto"};
    for (const auto& f : workload::trace_formats()) names.push_back(f.name);
    sc.workload.options.format = util::get_choice(w["format"], wat / "format", names);
  }
  if (w["skip_bad_rows"]) sc.workload.options.skip_bad_rows = util::get_bool(w["skip_bad_rows"], wat / "skip_bad_rows");
  if (w["args"]) sc.workload.options.args = util::read_named_args(w["args"], wat / "args");
  sc.workload.line = util::line_of(w["trace"] ? w["trace"] : w);
  if (w["generate"]) sc.workload.generate = read_generator(w["generate"], wat / "generate", sc.catalog);
  // Job ids are 32-bit: no run holds more jobs.
  if (w["max_jobs"]) sc.workload.max_jobs = util::get_count(w["max_jobs"], wat / "max_jobs");
  read_load_knob(w, wat, sc.workload);
  sc.workload.long_running =
      read_long_running(w, wat, sc.catalog, sc.pools, static_cast<bool>(w["trace"] || w["generate"]));
  if (w["mode"]) {
    sc.workload.packing_mode = util::get_choice(w["mode"], wat / "mode", {"replay", "packing"}) == "packing";
    sc.workload.mode_line = util::line_of(w["mode"]);
  }
  if (w["packing"]) {
    util::At pat = wat / "packing";
    if (!sc.workload.packing_mode) util::fail(w["packing"], pat, "applies only with workload.mode: packing");
    util::require_map(w["packing"], pat);
    util::check_keys(w["packing"], {"order", "arrive_until"}, pat);
    if (const auto& o = w["packing"]["order"])
      sc.workload.packing.shuffled = util::get_choice(o, pat / "order", {"shuffled", "trace"}) == "shuffled";
    if (const auto& u = w["packing"]["arrive_until"])
      sc.workload.packing.arrive_until = util::get_real_in(u, pat / "arrive_until", 0, 100, /*lo_open=*/true);
  }
  if (sc.workload.packing_mode) {
    if (!w["trace"] && !w["generate"]) util::fail(w, wat / "mode", "packing needs pods: a trace or generate");
    if (!sc.workload.long_running.empty())
      util::fail(w, wat / "mode", "packing places pods that never end: services and cron entries do not apply");
    sc.workload.options.times_optional = true;
  }

  if (const auto& r = root["resources"]) {
    // Per GPU, for jobs whose trace gives no CPUs or memory (workload/resource_defaults.h).
    util::At rat = at / "resources";
    util::require_map(r, rat);
    util::check_keys(r, {"cpus_per_gpu", "mem_gb_per_gpu"}, rat);
    if (r["cpus_per_gpu"])
      sc.workload.resources.cpu_milli_per_gpu = cluster::checked_cpu_milli(
          util::get_double(r["cpus_per_gpu"], rat / "cpus_per_gpu"),
          util::FieldContext{path, util::line_of(r["cpus_per_gpu"]), (rat / "cpus_per_gpu").path});
    if (r["mem_gb_per_gpu"])
      sc.workload.resources.mem_mib_per_gpu = cluster::checked_mem_mib(
          util::get_double(r["mem_gb_per_gpu"], rat / "mem_gb_per_gpu"),
          util::FieldContext{path, util::line_of(r["mem_gb_per_gpu"]), (rat / "mem_gb_per_gpu").path});
  }

  sc.scheduler = read_scheduler(root["scheduler"], at / "scheduler");
  if (sc.pools.enabled && !sc.scheduler.external.command.empty())
    util::fail(root["scheduler"]["external"], at / "scheduler" / "external",
               "an external scheduler cannot be combined with pools: (not supported)");
  if (sc.workload.packing_mode) {
    const auto& sn = root["scheduler"];
    if (!sc.scheduler.external.command.empty())
      util::fail(sn["external"], at / "scheduler" / "external", "the packing mode runs the built-in parts only");
    if (sc.scheduler.preemption != "none")
      util::fail(sn["preemption"], at / "scheduler" / "preemption",
                 "the packing mode places pods that are never stopped: preemption must be none");
    if (sc.pools.enabled)
      util::fail(root["pools"], at / "pools", "the packing mode does not apply pools (pods never end)");
  }
  if (!sc.pools.enabled) {
    const auto& sn = root["scheduler"];
    if (std::find(sc.scheduler.admission.begin(), sc.scheduler.admission.end(), "pools") !=
        sc.scheduler.admission.end())
      util::fail(sn["admission"], at / "scheduler" / "admission",
                 "admission 'pools' needs a pools: section in the scenario");
    if (sc.scheduler.preemption == "pool-reclaim")
      util::fail(sn["preemption"], at / "scheduler" / "preemption",
                 "preemption 'pool-reclaim' needs a pools: section in the scenario");
  }

  if (const auto& p = root["perf"]) {
    util::At pat = at / "perf";
    sc.perf.args = util::read_named_args(p, pat);
    if (auto m = sc.perf.args.values.extract("model")) {
      sc.perf.model = util::get_string(p["model"], pat / "model");
      sc.perf.model_line = m.mapped().line;
    }
    for (const auto& kv : p) {
      std::string key = util::key_of(kv.first, pat);
      // Files the perf model reads: a missing one or a folder is reported at its line here.
      if ((key == "profile" || key == "models") && kv.second.IsScalar())
        util::require_file(util::resolve_path(path, kv.second.Scalar()), kv.second, pat / key);
    }
  }
  if (!sc.scheduler.policy.empty()) {
    const auto& node = root["scheduler"]["policy"];
    const util::At pat = at / "scheduler" / "policy";
    const std::vector<std::string> names = sched::decision_policy_names();
    if (std::find(names.begin(), names.end(), sc.scheduler.policy) == names.end())
      util::fail(node, pat, util::unknown_name_message("scheduler policy", sc.scheduler.policy, names));
    if (sched::is_elastic_policy(sc.scheduler.policy)) {
      if (!sc.scheduler.external.command.empty())
        util::fail(node, pat, "a policy and an external scheduler exclude each other (both decide sizes)");
      if (sc.pools.enabled)
        util::fail(node, pat, "policy " + sc.scheduler.policy + " cannot be combined with pools: (not supported)");
      if (sc.workload.packing_mode) util::fail(node, pat, "the packing mode runs the built-in parts only");
      sched::check_elastic_args(sc.scheduler);  // its arguments' errors, at their lines
    } else {
      if (auto why =
              sched::gavel::policy_conflict(sc.scheduler, sc.perf.model, sc.pools.enabled, sc.workload.packing_mode))
        util::fail(node, pat, *why);
      sched::gavel::gavel_settings(sc.scheduler);  // its arguments' errors, at their lines
    }
  }
  if (const auto& m = root["metrics"]) {
    util::At mat = at / "metrics";
    util::check_keys(m, {"timeline_interval_s", "window", "warmup_s"}, mat);
    // At least the clock's 1 us tick; a fine interval over a long run is coarsened by the
    // collector, which keeps the timeline within its row limit.
    if (m["timeline_interval_s"])
      sc.timeline_interval = util::checked_seconds(
          util::get_real_in(m["timeline_interval_s"], mat / "timeline_interval_s", 1e-6, util::kMaxInputSeconds),
          util::FieldContext{path, util::line_of(m["timeline_interval_s"]), "metrics.timeline_interval_s"});
    read_measure_window(m, mat, path, sc.measure_window);
  }
  if (const auto& vs = root["variants"]) {
    util::At vat = at / "variants";
    if (!vs.IsSequence()) util::fail(vs, vat, "expected a list of {name, set}");
    for (std::size_t i = 0; i < vs.size(); ++i) {
      util::At iat = vat / std::to_string(i);
      util::check_keys(vs[i], {"name", "set"}, iat);
      Variant v;
      if (!vs[i]["name"]) util::fail(vs[i], iat / "name", "required key is missing");
      v.name = util::get_string(vs[i]["name"], iat / "name");
      v.line = util::line_of(vs[i]["name"]);
      v.index = i;
      // A folder inside the compare's results.
      util::check_path_name(v.name, util::FieldContext{path, v.line, (iat / "name").path});
      if (const auto& s = vs[i]["set"]) {
        util::require_map(s, iat / "set");
        for (const auto& kv : s) util::key_of(kv.first, iat / "set");
      }
      sc.variants.push_back(std::move(v));
    }
  }
  // Read and checked with the file's marks; run.yaml gets copies (no anchors and aliases).
  for (const auto& [key, value] : variant_sets) set_at_path(root, key, YAML::Clone(value), [](const std::string&) {});
  return sc;
}

}  // namespace

Scenario load_scenario(const std::string& path, const std::vector<std::string>& sets, std::optional<std::uint64_t> seed,
                       std::optional<std::size_t> variant, util::ParsedYamlFiles* files) {
  YAML::Node root = util::load_yaml_file(path, files);
  return util::with_yaml_errors(path, [&] { return read_scenario(path, root, sets, seed, variant, files); });
}

}  // namespace schedlab::config
