#include "config/scheduler_section.h"

#include "config/external_scheduler_config.h"
#include "sched/registry.h"
#include "util/named_args_yaml.h"
#include "util/suggest.h"

namespace schedlab::config {

namespace {

template <class Part>
std::string part_name(const YAML::Node& n, const util::At& at, const sched::PartList<Part>& list) {
  std::string name = util::get_string(n, at);
  if (!list.contains(name)) util::fail(n, at, util::unknown_name_message(list.kind(), name, list.names()));
  return name;
}

template <class Part>
std::vector<std::string> part_names(const YAML::Node& n, const util::At& at, const sched::PartList<Part>& list) {
  std::vector<std::string> out;
  if (n.IsScalar()) return {part_name(n, at, list)};
  if (!n.IsSequence()) util::fail(n, at, "expected a name or a list of names");
  for (const auto& item : n) out.push_back(part_name(item, at, list));
  return out;
}

// Builds every part once with its args, as `run` will, so that a bad setting (a number out of
// range, an unknown key) is reported by `validate` too; each part reports it at its line.
void check_part_args(const sched::SchedulerConfig& c) {
  const auto& r = sched::builtin_parts();
  auto build = [&](const std::string& part, auto& list) {
    auto it = c.args.find(part);
    list.make(part, it == c.args.end() ? sched::PartArgs{} : it->second);
  };
  build(c.queue, r.queues);
  for (const auto& a : c.admission) build(a, r.admissions);
  for (const auto& f : c.filters) build(f, r.filters);
  build(c.placement, r.placements);
  build(c.preemption, r.preemptions);
  build(c.backfill, r.backfills);
}

}  // namespace

sched::SchedulerConfig read_scheduler(const YAML::Node& n, const util::At& at) {
  sched::SchedulerConfig c;
  if (!n) return c;
  util::check_keys(n,
                   {"queue", "admission", "filters", "placement", "preemption", "backfill", "args", "external", "policy"},
                   at);
  if (n["external"]) c.external = read_external_scheduler(n["external"], at / "external");
  // `none` (the passes over the parts) lets a sweep's grid or a variant switch a policy off;
  // any other name is checked with the perf model, by the scenario reader.
  if (n["policy"]) c.policy = util::get_string(n["policy"], at / "policy");
  if (c.policy == "none") c.policy.clear();
  const auto& r = sched::builtin_parts();
  if (n["queue"]) c.queue = part_name(n["queue"], at / "queue", r.queues);
  if (n["admission"]) c.admission = part_names(n["admission"], at / "admission", r.admissions);
  if (n["filters"]) c.filters = part_names(n["filters"], at / "filters", r.filters);
  if (n["placement"]) c.placement = part_name(n["placement"], at / "placement", r.placements);
  if (n["preemption"]) c.preemption = part_name(n["preemption"], at / "preemption", r.preemptions);
  if (n["backfill"]) c.backfill = part_name(n["backfill"], at / "backfill", r.backfills);
  if (n["args"]) {
    util::require_map(n["args"], at / "args");
    for (const auto& kv : n["args"]) {
      std::string part = util::key_of(kv.first, at / "args");
      c.args[part] = util::read_named_args(kv.second, at / "args" / part);
    }
  }
  check_part_args(c);
  return c;
}
}  // namespace schedlab::config
