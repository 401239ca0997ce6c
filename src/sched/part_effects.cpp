// Parts without effect in their combination (part_effects.h), as a table of rules.
#include "sched/part_effects.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "util/parse.h"

namespace schedlab::sched {

namespace {
// Queue orders keyed by the service a job has attained or still needs: for a job that never
// ran, the key is the same function of its spec as that of the order named here.
struct RunTimeKeyed {
  const char* queue;
  const char* like;  // the submit-time order it then behaves as
};
constexpr RunTimeKeyed kRunTimeKeyed[] = {
    {"las", "fifo (every waiting job has attained nothing: all sit in the top queue, in submit order)"},
    {"gittins", "fifo (every waiting job has attained nothing: all have the same index, then submit order)"},
    {"srtf", "sjf by the traced duration (a job that never ran has all its work left)"},
};

// Preemption parts that stop running jobs for a waiting one by comparing queue keys.
bool compares_keys(const std::string& preemption) { return preemption == "reorder" || preemption == "priority"; }

std::int64_t int_arg(const SchedulerConfig& c, const std::string& part, const std::string& name) {
  auto it = c.args.find(part);
  if (it == c.args.end()) return 0;
  const util::ArgValue* v = it->second.find(name);
  std::int64_t out = 0;
  return v && v->shape == util::ArgValue::Shape::scalar && util::try_parse_int(v->text, out) ? out : 0;
}
std::string text_arg(const SchedulerConfig& c, const std::string& part, const std::string& name) {
  auto it = c.args.find(part);
  if (it == c.args.end()) return "";
  const util::ArgValue* v = it->second.find(name);
  return v && v->shape == util::ArgValue::Shape::scalar ? v->text : "";
}
}  // namespace

std::vector<std::string> parts_without_effect(const SchedulerConfig& c, const cluster::Topology& topo,
                                              OtherStops stops) {
  std::vector<std::string> out;
  if (!c.external.command.empty()) return out;  // the policy process orders the queue itself
  if (!c.policy.empty()) {
    // A decision policy replaces the passes: it starts, stops and sizes every job itself, and
    // takes the jobs in submit order (its queue is fifo whatever scheduler.queue says).
    std::vector<std::string> unused;
    if (c.queue != "fifo") unused.push_back("scheduler.queue: " + c.queue);
    if (c.backfill != "none") unused.push_back("scheduler.backfill: " + c.backfill);
    if (c.preemption != "none") unused.push_back("scheduler.preemption: " + c.preemption);
    if (!unused.empty())
      out.push_back(fmt::format("{} {} no effect under scheduler.policy: {}, which starts, stops and sizes every "
                                "job itself, taking them in submit order",
                                fmt::join(unused, ", "), unused.size() == 1 ? "has" : "have", c.policy));
    return out;
  }
  const bool reclaim = c.preemption == "pool-reclaim";
  // Jobs that run, stop and wait again with service attained, other than by key comparison.
  std::string others;
  if (stops.failures) others = "failures";
  if (reclaim) others += std::string(others.empty() ? "" : " and ") + "pool reclaims";
  const std::string except =
      others.empty() ? "" : fmt::format(" (only jobs stopped by {} and waiting again differ)", others);
  const char* fix = "add `scheduler.preemption: reorder` (Tiresias) to let its keys reorder running jobs";

  for (const auto& r : kRunTimeKeyed) {
    if (c.queue != r.queue || compares_keys(c.preemption)) continue;
    out.push_back(fmt::format("scheduler.queue: {} with preemption: {} orders waiting jobs as {}{}; its keys "
                              "change only while jobs run, and no running job is ever stopped for a better key: "
                              "{}",
                              c.queue, c.preemption, r.like, except, fix));
  }
  if (c.queue == "las" && int_arg(c, "las", "promote_after") > 0 && !compares_keys(c.preemption))
    out.push_back(fmt::format("scheduler.args.las.promote_after lifts waiting jobs that have run before; with "
                              "preemption: {} {}: {}",
                              c.preemption,
                              others.empty() ? "no job waits again after running, so it has no effect"
                                             : "only jobs stopped by " + others + " are lifted",
                              fix));
  // fifo keys are submit times: a waiting job outranks only a running job submitted after it,
  // and only a backfill starts a later job while an earlier one waits.
  // A pools admission lets a later job pass one held at its pool's share, so it is left out.
  const auto admits = [&](const char* a) { return std::find(c.admission.begin(), c.admission.end(), a) != c.admission.end(); };
  if (c.queue == "fifo" && compares_keys(c.preemption) && c.backfill == "none" && !stops.failures &&
      !admits("incremental") && !admits("pools"))
    out.push_back(fmt::format("scheduler.preemption: {} under queue fifo and backfill none never stops a job: "
                              "fifo's keys are submit times, and no job starts ahead of an earlier one that "
                              "waits, so no waiting job outranks a running one",
                              c.preemption));
  // reorder's redecide walk decides the running set itself, skipping every job that does not fit:
  // no job blocks the ones behind it, so there is nothing left for a backfill part to pass.
  if (c.preemption == "reorder" && text_arg(c, "reorder", "pass") == "redecide" && c.backfill != "none")
    out.push_back(fmt::format("scheduler.backfill: {} has no effect under scheduler.args.reorder.pass: redecide: "
                              "that walk starts every job that fits, in queue order, and is never blocked, so no "
                              "backfill pass runs",
                              c.backfill));
  if (std::find(c.filters.begin(), c.filters.end(), "same-generation") != c.filters.end()) {
    std::set<int> gens;
    const auto& catalog = topo.catalog();
    for (cluster::ModelId m = 0; m < catalog.size(); ++m)
      if (topo.gpus_of_model(m) > 0) gens.insert(catalog.model(m).generation);
    if (gens.size() <= 1)
      out.push_back(fmt::format("scheduler.filters: same-generation has no effect: every GPU of cluster '{}' is of "
                                "{}",
                                topo.name(), gens.empty() ? "no generation (it has no GPUs)"
                                                          : fmt::format("generation {}", *gens.begin())));
  }
  return out;
}

}  // namespace schedlab::sched
