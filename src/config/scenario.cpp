// Scenario validation: every key checked, every name resolved, errors with file:line.
#include "config/scenario.h"

#include <cmath>
#include <filesystem>

#include "config/cluster_config.h"
#include "config/yaml_util.h"
#include "sched/registry.h"
#include "util/error.h"
#include "util/suggest.h"

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
      for (const auto& kv : n) out[kv.first.Scalar()] = without_marks(kv.second);
      return out;
    }
    default:
      return YAML::Node(YAML::NodeType::Null);
  }
}
}  // namespace

void apply_override(YAML::Node& root, const std::string& assignment) {
  auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError("--set", 0, assignment, "expected key.path=value");
  std::string path = assignment.substr(0, eq);
  YAML::Node value;
  try {
    value = without_marks(YAML::Load(assignment.substr(eq + 1)));
  } catch (const YAML::Exception& e) {
    throw InputError("--set", 0, path, "value is not valid YAML: " + e.msg);
  }
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
    if (!child.IsMap()) throw InputError("--set", 0, path, "'" + keys[i] + "' is not a map");
    chain.push_back(child);
  }
  chain.back()[keys.back()] = value;
}

namespace {

template <class Part>
std::string part_name(const YAML::Node& n, const At& at, const sched::PartList<Part>& list) {
  std::string name = get_string(n, at);
  if (!list.contains(name)) fail(n, at, unknown_name_message(list.kind(), name, list.names()));
  return name;
}

template <class Part>
std::vector<std::string> part_names(const YAML::Node& n, const At& at, const sched::PartList<Part>& list) {
  std::vector<std::string> out;
  if (n.IsScalar()) return {part_name(n, at, list)};
  if (!n.IsSequence()) fail(n, at, "expected a name or a list of names");
  for (const auto& item : n) out.push_back(part_name(item, at, list));
  return out;
}

// Builds the named part once with its args, so that a bad arg (the part names it as
// scheduler.args.<part>.<arg>) is reported at that arg's line.
template <class Part>
void check_part_args(const sched::PartList<Part>& list, const std::string& name, const sched::SchedulerConfig& c,
                     const YAML::Node& args, const At& at) {
  auto it = c.args.find(name);
  if (it == c.args.end()) return;
  try {
    list.make(name, it->second);
  } catch (const InputError& e) {
    const std::string arg = e.field().substr(e.field().rfind('.') + 1);
    const YAML::Node node = args[name][arg] ? args[name][arg] : args[name];
    std::string what = e.what();
    if (what.rfind(e.field() + ": ", 0) == 0) what.erase(0, e.field().size() + 2);
    fail(node, At{at.file, e.field()}, what);
  }
}

sched::SchedulerConfig read_scheduler(const YAML::Node& n, const At& at) {
  sched::SchedulerConfig c;
  if (!n) return c;
  check_keys(n, {"queue", "admission", "filters", "placement", "preemption", "backfill", "args"}, at);
  const auto& r = sched::builtin_parts();
  if (n["queue"]) c.queue = part_name(n["queue"], at / "queue", r.queues);
  if (n["admission"]) c.admission = part_names(n["admission"], at / "admission", r.admissions);
  if (n["filters"]) c.filters = part_names(n["filters"], at / "filters", r.filters);
  if (n["placement"]) c.placement = part_name(n["placement"], at / "placement", r.placements);
  if (n["preemption"]) c.preemption = part_name(n["preemption"], at / "preemption", r.preemptions);
  if (n["backfill"]) c.backfill = part_name(n["backfill"], at / "backfill", r.backfills);
  if (n["args"]) {
    require_map(n["args"], at / "args");
    for (const auto& kv : n["args"]) {
      std::string part = kv.first.as<std::string>();
      At pat = at / "args" / part;
      require_map(kv.second, pat);
      for (const auto& arg : kv.second) {
        const std::string name = arg.first.as<std::string>();
        // A list (LAS thresholds) travels as its flow text "[a, b]"; the part parses it.
        c.args[part][name] = arg.second.IsSequence() ? "[" + join(get_string_list(arg.second, pat / name), ", ") + "]"
                                                     : get_string(arg.second, pat / name);
      }
    }
    check_part_args(r.queues, c.queue, c, n["args"], at);
  }
  return c;
}

workload::GeneratorConfig read_generator(const YAML::Node& n, const At& at) {
  workload::GeneratorConfig g;
  check_keys(n, {"jobs", "arrival_rate_per_hour", "duration_median_s", "duration_sigma", "duration_min_s",
                 "duration_max_s", "gpu_sizes", "gpu_size_weights", "gpus_per_host", "models", "model_weights", "users"},
             at);
  if (n["jobs"]) g.jobs = static_cast<std::uint64_t>(get_int(n["jobs"], at / "jobs", 1));
  if (n["arrival_rate_per_hour"]) g.arrival_rate_per_hour = get_positive(n["arrival_rate_per_hour"], at / "arrival_rate_per_hour");
  if (n["duration_median_s"]) g.duration_median_s = get_positive(n["duration_median_s"], at / "duration_median_s");
  if (n["duration_sigma"]) g.duration_sigma = get_double(n["duration_sigma"], at / "duration_sigma");
  if (n["duration_min_s"]) g.duration_min_s = get_positive(n["duration_min_s"], at / "duration_min_s");
  if (n["duration_max_s"]) g.duration_max_s = get_positive(n["duration_max_s"], at / "duration_max_s");
  if (n["gpu_sizes"]) {
    g.gpu_sizes.clear();
    for (double d : get_double_list(n["gpu_sizes"], at / "gpu_sizes")) {
      if (d < 1 || d != std::floor(d)) fail(n["gpu_sizes"], at / "gpu_sizes", "sizes must be whole numbers >= 1");
      g.gpu_sizes.push_back(static_cast<std::uint32_t>(d));
    }
  }
  if (n["gpu_size_weights"]) g.gpu_size_weights = get_double_list(n["gpu_size_weights"], at / "gpu_size_weights");
  if (n["gpus_per_host"]) g.gpus_per_host = static_cast<std::uint32_t>(get_int(n["gpus_per_host"], at / "gpus_per_host", 1));
  if (n["models"]) g.models = get_string_list(n["models"], at / "models");
  if (n["model_weights"]) g.model_weights = get_double_list(n["model_weights"], at / "model_weights");
  if (n["users"]) g.users = static_cast<std::uint32_t>(get_int(n["users"], at / "users", 1));
  try {
    workload::validate(g);
  } catch (const InputError& e) {
    fail(n, at, e.what());
  }
  return g;
}

}  // namespace

Scenario load_scenario(const std::string& path, const std::vector<std::string>& sets, std::optional<std::uint64_t> seed) {
  YAML::Node root = load_yaml_file(path);
  At at{path, ""};
  require_map(root, at);
  for (const auto& s : sets) apply_override(root, s);
  if (seed) root["seed"] = *seed;
  check_keys(root, {"name", "description", "seed", "cluster", "workload", "scheduler", "perf", "metrics", "variants"}, at);

  Scenario sc;
  sc.file = path;
  sc.resolved = root;
  sc.name = root["name"] ? get_string(root["name"], at / "name") : std::filesystem::path(path).stem().string();
  if (root["seed"]) sc.seed = static_cast<std::uint64_t>(get_int(root["seed"], at / "seed", 0));

  if (!root["cluster"]) fail(root, at / "cluster", "required key is missing (a file in configs/clusters/)");
  sc.cluster_file = resolve_path(path, get_string(root["cluster"], at / "cluster"));
  if (!std::filesystem::exists(sc.cluster_file))
    fail(root["cluster"], at / "cluster", "no such file '" + sc.cluster_file + "'");
  sc.catalog_file = catalog_path_of(sc.cluster_file);
  sc.catalog = load_catalog(sc.catalog_file);
  sc.cluster = load_cluster(sc.cluster_file, sc.catalog).spec;

  const auto& w = root["workload"];
  At wat = at / "workload";
  if (!w) fail(root, wat, "required key is missing (trace: FILE or generate: {...})");
  check_keys(w, {"trace", "format", "skip_bad_rows", "args", "generate", "max_jobs"}, wat);
  if (w["trace"] && w["generate"]) fail(w, wat, "give either trace or generate, not both");
  if (!w["trace"] && !w["generate"]) fail(w, wat, "needs trace: FILE or generate: {...}");
  if (w["trace"]) {
    sc.workload.trace = resolve_path(path, get_string(w["trace"], wat / "trace"));
    if (!std::filesystem::exists(sc.workload.trace))
      fail(w["trace"], wat / "trace", "no such file '" + sc.workload.trace + "'");
  }
  if (w["format"]) {
    std::vector<std::string> names{"auto"};
    for (const auto& f : workload::trace_formats()) names.push_back(f.name);
    sc.workload.options.format = get_choice(w["format"], wat / "format", names);
  }
  if (w["skip_bad_rows"]) sc.workload.options.skip_bad_rows = get_bool(w["skip_bad_rows"], wat / "skip_bad_rows");
  if (w["args"]) {
    require_map(w["args"], wat / "args");
    for (const auto& kv : w["args"])
      sc.workload.options.args[kv.first.as<std::string>()] = get_string(kv.second, wat / "args" / kv.first.as<std::string>());
  }
  if (w["generate"]) sc.workload.generate = read_generator(w["generate"], wat / "generate");
  if (w["max_jobs"]) sc.workload.max_jobs = static_cast<std::uint64_t>(get_int(w["max_jobs"], wat / "max_jobs", 1));

  sc.scheduler = read_scheduler(root["scheduler"], at / "scheduler");

  if (const auto& p = root["perf"]) {
    At pat = at / "perf";
    require_map(p, pat);
    for (const auto& kv : p) {
      std::string key = kv.first.as<std::string>();
      sc.perf.lines[key] = line_of(kv.first);
      if (key == "model")
        sc.perf.model = get_string(kv.second, pat / "model");
      else
        sc.perf.args[key] = kv.second.IsScalar() ? kv.second.Scalar() : YAML::Dump(kv.second);
    }
  }
  if (const auto& m = root["metrics"]) {
    At mat = at / "metrics";
    check_keys(m, {"timeline_interval_s"}, mat);
    if (m["timeline_interval_s"])
      sc.timeline_interval = engine::from_seconds(get_positive(m["timeline_interval_s"], mat / "timeline_interval_s"));
  }
  if (const auto& vs = root["variants"]) {
    At vat = at / "variants";
    if (!vs.IsSequence()) fail(vs, vat, "expected a list of {name, set}");
    for (std::size_t i = 0; i < vs.size(); ++i) {
      At iat = vat / std::to_string(i);
      check_keys(vs[i], {"name", "set"}, iat);
      Variant v;
      if (!vs[i]["name"]) fail(vs[i], iat / "name", "required key is missing");
      v.name = get_string(vs[i]["name"], iat / "name");
      if (const auto& s = vs[i]["set"]) {
        require_map(s, iat / "set");
        for (const auto& kv : s)
          v.sets.push_back(kv.first.as<std::string>() + "=" + (kv.second.IsScalar() ? kv.second.Scalar() : YAML::Dump(kv.second)));
      }
      sc.variants.push_back(std::move(v));
    }
  }
  return sc;
}

}  // namespace schedlab::config
