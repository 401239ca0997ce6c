// Reading services and cron entries: shapes, times, schedules, parents.
#include "config/long_running_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "cluster/resources.h"
#include "util/checked.h"
#include "util/error.h"
#include "util/suggest.h"
#include "workload/job_limit.h"

namespace schedlab::config {

namespace {

util::FieldContext entry_where(const YAML::Node& n, const util::At& at) {
  return util::FieldContext{at.file, util::line_of(n), at.path};
}

engine::Time entry_seconds(const YAML::Node& n, const util::At& at) {
  return util::checked_duration_seconds(util::get_double(n, at), entry_where(n, at));
}

// Each instance is a job of the run: within the one bound on a run's jobs.
std::uint32_t read_instances(const YAML::Node& n, const util::At& at) {
  const auto v = util::get_int_in<std::uint32_t>(n, at, 0);
  if (v > workload::kMaxJobsPerRun) fail(n, at, workload::too_many_jobs_message(v, "instances"));
  return v;
}

class EntryReader {
 public:
  EntryReader(const cluster::GpuCatalog& catalog, const pools::PoolsConfig& pools) : catalog_(catalog), pools_(pools) {}

  // The keys every entry may have beside its own, and their reading.
  static constexpr const char* kShapeKeys[] = {"cpus", "mem_gb", "gpu_model", "user", "pool", "priority"};

  void shape(const YAML::Node& n, const util::At& at, workload::EntryShape& s, const char* gpus_key) {
    if (n["cpus"]) {
      s.cpu_milli = cluster::checked_cpu_milli(util::get_double(n["cpus"], at / "cpus"),
                                               entry_where(n["cpus"], at / "cpus"), true);
      s.cpu_given = true;
    } else if (s.gpus_per_task == 0) {
      fail(n, at, fmt::format("needs cpus: when {} is 0 (a job without GPUs asks for CPUs)", gpus_key));
    }
    if (n["mem_gb"]) {
      s.mem_mib = cluster::checked_mem_mib(util::get_double(n["mem_gb"], at / "mem_gb"),
                                           entry_where(n["mem_gb"], at / "mem_gb"));
      s.mem_given = true;
    }
    if (n["gpu_model"]) {
      s.gpu_model = util::get_string(n["gpu_model"], at / "gpu_model");
      std::size_t from = 0;
      for (;;) {
        const auto bar = s.gpu_model.find('|', from);
        const auto name = s.gpu_model.substr(from, bar == std::string::npos ? std::string::npos : bar - from);
        if (!catalog_.find(name))
          fail(n["gpu_model"], at / "gpu_model", util::unknown_name_message("GPU model", name, catalog_.names()));
        if (bar == std::string::npos) break;
        from = bar + 1;
      }
    }
    if (n["user"]) s.user = util::get_string(n["user"], at / "user");
    if (n["pool"]) {
      s.pool = util::get_string(n["pool"], at / "pool");
      if (pools_.enabled) {
        const auto i = pools_.find(s.pool);
        if (i < 0) {
          std::vector<std::string> names;
          for (const auto& p : pools_.pools) names.push_back(p.name);
          const auto near = util::closest_match(s.pool, names);
          fail(n["pool"], at / "pool",
               fmt::format("'{}' is not a pool{}", s.pool, near.empty() ? "" : fmt::format(" (closest: '{}')", near)));
        }
        if (!pools_.pools[static_cast<std::size_t>(i)].leaf)
          fail(n["pool"], at / "pool", fmt::format("'{}' has pools under it: jobs go to pools without children", s.pool));
      }
    }
    if (n["priority"])
      s.priority = util::get_int_in<std::int32_t>(n["priority"], at / "priority", -1'000'000, 1'000'000);
  }

  void name(const YAML::Node& n, const util::At& at, std::string& out) {
    if (!n["name"]) fail(n, at, "name: is missing");
    out = util::get_string(n["name"], at / "name");
    if (out.empty()) fail(n["name"], at / "name", "is empty");
    if (!names_.insert(out).second)
      fail(n["name"], at / "name", fmt::format("'{}' names another service or cron entry already", out));
  }

  workload::ServiceSpec service(const YAML::Node& n, const util::At& at) {
    util::require_map(n, at);
    std::vector<std::string> keys{"name",   "instances", "gpus",  "start_s",        "stop_s",
                                  "scale",  "backoff_s", "backoff_factor", "max_backoff_s"};
    keys.insert(keys.end(), std::begin(kShapeKeys), std::end(kShapeKeys));
    util::check_keys(n, keys, at);
    workload::ServiceSpec s;
    s.line = util::line_of(n);
    name(n, at, s.name);
    if (n["instances"]) s.instances = read_instances(n["instances"], at / "instances");
    if (n["gpus"]) s.shape.gpus_per_task = util::get_int_in<std::uint32_t>(n["gpus"], at / "gpus", 0, 1024);
    shape(n, at, s.shape, "gpus");
    if (n["start_s"]) s.start = entry_seconds(n["start_s"], at / "start_s");
    if (n["stop_s"]) {
      s.stop = entry_seconds(n["stop_s"], at / "stop_s");
      if (s.stop <= s.start) fail(n["stop_s"], at / "stop_s", "must be after start_s");
    }
    if (const auto& sc = n["scale"]) {
      const util::At sat = at / "scale";
      if (!sc.IsSequence()) fail(sc, sat, "expected a list of {at_s: SECONDS, instances: N}");
      for (std::size_t i = 0; i < sc.size(); ++i) {
        const auto& step = sc[i];
        const util::At iat = sat / std::to_string(i);
        util::require_map(step, iat);
        util::check_keys(step, {"at_s", "instances"}, iat);
        if (!step["at_s"] || !step["instances"]) fail(step, iat, "needs at_s: and instances:");
        workload::ServiceScale st;
        st.at = entry_seconds(step["at_s"], iat / "at_s");
        st.instances = read_instances(step["instances"], iat / "instances");
        const engine::Time after = s.scale.empty() ? s.start : s.scale.back().at;
        if (st.at <= after)
          fail(step["at_s"], iat / "at_s",
               s.scale.empty() ? "must be after start_s" : "must be after the previous step's at_s");
        if (st.at >= s.stop) fail(step["at_s"], iat / "at_s", "must be before stop_s");
        s.scale.push_back(st);
        if (const auto jobs = workload::service_job_count(s); jobs > workload::kMaxJobsPerRun)
          fail(step["instances"], iat / "instances",
               workload::too_many_jobs_message(jobs, "instances with the scale steps up to here"));
      }
    }
    if (n["backoff_s"]) {
      s.backoff = entry_seconds(n["backoff_s"], at / "backoff_s");
      if (s.backoff <= 0) fail(n["backoff_s"], at / "backoff_s", "must be above 0");
    }
    if (n["backoff_factor"]) s.backoff_factor = util::get_real_in(n["backoff_factor"], at / "backoff_factor", 1, 100);
    if (n["max_backoff_s"]) s.max_backoff = entry_seconds(n["max_backoff_s"], at / "max_backoff_s");
    if (s.max_backoff < s.backoff)
      fail(n["max_backoff_s"] ? n["max_backoff_s"] : n, at / "max_backoff_s", "must not be below backoff_s");
    return s;
  }

  workload::CronSpec cron(const YAML::Node& n, const util::At& at, const std::vector<workload::CronSpec>& earlier) {
    util::require_map(n, at);
    std::vector<std::string> keys{"name", "schedule", "tasks", "gpus_per_task", "duration_s", "parents", "overlap"};
    keys.insert(keys.end(), std::begin(kShapeKeys), std::end(kShapeKeys));
    util::check_keys(n, keys, at);
    workload::CronSpec c;
    c.line = util::line_of(n);
    name(n, at, c.name);
    if (!n["schedule"]) fail(n, at, "schedule: is missing (R[n]/<ISO 8601 start>/<ISO 8601 period>)");
    c.schedule_text = util::get_string(n["schedule"], at / "schedule");
    try {
      c.schedule = workload::parse_chronos_schedule(c.schedule_text);
    } catch (const std::invalid_argument& e) {
      fail(n["schedule"], at / "schedule", e.what());
    }
    if (n["tasks"]) {
      c.shape.tasks = util::get_count(n["tasks"], at / "tasks", 1'000'000);
      if (c.shape.tasks == 0) fail(n["tasks"], at / "tasks", "must be at least 1");
    }
    c.shape.gpus_per_task =
        n["gpus_per_task"] ? util::get_int_in<std::uint32_t>(n["gpus_per_task"], at / "gpus_per_task", 0, 1024) : 1;
    shape(n, at, c.shape, "gpus_per_task");
    if (!n["duration_s"]) fail(n, at, "duration_s: is missing");
    c.duration = entry_seconds(n["duration_s"], at / "duration_s");
    if (c.duration <= 0) fail(n["duration_s"], at / "duration_s", "must be above 0");
    if (n["parents"]) {
      c.parents = util::get_string_list(n["parents"], at / "parents");
      for (const auto& p : c.parents) {
        const bool found = std::any_of(earlier.begin(), earlier.end(), [&](const auto& e) { return e.name == p; });
        if (found) continue;
        std::vector<std::string> names;
        for (const auto& e : earlier) names.push_back(e.name);
        const auto near = util::closest_match(p, names);
        fail(n["parents"], at / "parents",
             fmt::format("'{}' is not a cron entry listed before '{}'{}", p, c.name,
                         near.empty() ? "" : fmt::format(" (closest: '{}')", near)));
      }
    }
    if (n["overlap"]) c.skip_overlap = util::get_choice(n["overlap"], at / "overlap", {"allow", "skip"}) == "skip";
    return c;
  }

 private:
  const cluster::GpuCatalog& catalog_;
  const pools::PoolsConfig& pools_;
  std::set<std::string> names_;
};

}  // namespace

workload::LongRunningWork read_long_running(const YAML::Node& w, const util::At& at, const cluster::GpuCatalog& catalog,
                                            const pools::PoolsConfig& pools, bool has_trace) {
  workload::LongRunningWork work;
  EntryReader reader(catalog, pools);
  if (const auto& list = w["services"]) {
    const util::At lat = at / "services";
    if (!list.IsSequence()) fail(list, lat, "expected a list of services");
    for (std::size_t i = 0; i < list.size(); ++i) work.services.push_back(reader.service(list[i], lat / std::to_string(i)));
  }
  if (const auto& list = w["cron"]) {
    const util::At lat = at / "cron";
    if (!list.IsSequence()) fail(list, lat, "expected a list of cron entries");
    for (std::size_t i = 0; i < list.size(); ++i) work.cron.push_back(reader.cron(list[i], lat / std::to_string(i), work.cron));
  }
  if (w["until_s"]) {
    work.until = entry_seconds(w["until_s"], at / "until_s");
    // The run's end for services without a stop of their own, too.
    for (std::size_t i = 0; i < work.services.size(); ++i) {
      auto& s = work.services[i];
      if (s.stop != engine::kTimeMax) continue;
      if (s.start >= work.until)
        fail(w["until_s"], at / "until_s", fmt::format("must be after services[{}].start_s", i));
      s.stop = work.until;
      std::erase_if(s.scale, [&](const workload::ServiceScale& st) { return st.at >= work.until; });
    }
  }
  if (w["epoch"]) {
    try {
      work.epoch_us = workload::parse_iso_datetime_us(util::get_string(w["epoch"], at / "epoch"));
    } catch (const std::invalid_argument& e) {
      fail(w["epoch"], at / "epoch", e.what());
    }
  } else if (!work.cron.empty()) {
    work.epoch_us = work.cron.front().schedule.start_us;
    for (const auto& c : work.cron) work.epoch_us = std::min(work.epoch_us, c.schedule.start_us);
  }
  if (!has_trace && !w["until_s"] && work.cron.empty())
    for (std::size_t i = 0; i < work.services.size(); ++i)
      if (work.services[i].stop == engine::kTimeMax)
        fail(w["services"][i], at / "services" / std::to_string(i),
             "runs until the run's other work ends, and there is none: give stop_s, workload.until_s, a trace or cron entries");
  // Occurrences that can be counted now (a count Rn, or an end of the run given): the rest are
  // counted as the run hands them out (workload/job_limit.h).
  for (std::size_t i = 0; i < work.cron.size(); ++i)
    if (const auto n = workload::cron_occurrence_bound(work.cron[i], work.epoch_us, work.until);
        n && *n > workload::kMaxJobsPerRun)
      fail(w["cron"][i]["schedule"], at / "cron" / std::to_string(i) / "schedule",
           workload::too_many_jobs_message(*n, work.cron[i].schedule.count() && *work.cron[i].schedule.count() == *n
                                                   ? "occurrences"
                                                   : "occurrences before workload.until_s"));
  if (!has_trace && !w["until_s"])
    for (std::size_t i = 0; i < work.cron.size(); ++i)
      if (!work.cron[i].schedule.count())
        fail(w["cron"][i]["schedule"], at / "cron" / std::to_string(i) / "schedule",
             "repeats without end (R/...) and nothing else bounds the run: give workload.until_s or a count (R5/...)");
  return work;
}

}  // namespace schedlab::config
