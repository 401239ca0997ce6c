// API routes: JSON views of the run, job submission and stop, answered in the loop's thread.
#include "emu/controller/api.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "emu/json_fields.h"
#include "metrics/summary.h"
#include "sched/job_life.h"
#include "workload/job_limit.h"
#include "workload/long_running.h"

namespace schedlab::emu {

namespace {
constexpr std::size_t kDefaultLimit = 1000;
constexpr std::size_t kMaxLimit = 100000;

nlohmann::json job_json(const sim::RunView::Job& j) {
  nlohmann::json o = {{"id", j.id},
                      {"name", j.name},
                      {"user", j.user},
                      {"state", sched::state_name(j.state)},
                      {"submit_s", engine::to_seconds(j.submit)},
                      {"tasks", j.tasks},
                      {"gpus_per_task", j.gpus_per_task},
                      {"placement", j.placement},
                      {"work_done_s", j.work_done_s},
                      {"work_total_s", j.work_total_s},
                      {"preemptions", j.preemptions},
                      {"failures", j.failures},
                      {"restarts", j.restarts}};
  if (j.queue_position) {
    o["queue_position"] = j.queue_position;
    o["waiting"] = j.waiting;
  }
  return o;
}

nlohmann::json jobs_by_state_json(const sim::RunView& v) {
  nlohmann::json o = nlohmann::json::object();
  for (std::size_t s = 0; s < v.jobs_by_state.size(); ++s)
    o[sched::state_name(static_cast<sched::JobState>(s))] = v.jobs_by_state[s];
  return o;
}

// The clock's lag at the last instant and its p99 over the last kRecentInstants (a page's
// glance; the whole run's histogram is GET /metrics'), in wall milliseconds.
constexpr std::size_t kRecentInstants = 1000;
nlohmann::json recent_lag_json(const std::vector<double>& lag_us) {
  if (lag_us.empty()) return {{"last", 0}, {"p99_recent", 0}, {"instants", 0}};
  const auto n = std::min(lag_us.size(), kRecentInstants);
  std::vector<double> recent(lag_us.end() - static_cast<std::ptrdiff_t>(n), lag_us.end());
  std::sort(recent.begin(), recent.end());
  return {{"last", std::max(0.0, lag_us.back()) / 1000.0},
          {"p99_recent", std::max(0.0, metrics::percentile(recent, 99)) / 1000.0},
          {"instants", n}};
}

// ?limit=N; false (answered 400) when malformed.
bool read_limit(const HttpRequest& req, const Responder& respond, std::size_t& limit) {
  const auto parsed = parse_limit(req.query);
  if (!parse_or_refuse(parsed, respond)) return false;
  limit = parsed.value();
  return true;
}
}  // namespace

Parsed<std::size_t> parse_limit(const std::map<std::string, std::string>& query) {
  auto it = query.find("limit");
  if (it == query.end()) return kDefaultLimit;
  const auto& s = it->second;
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || p != s.data() + s.size() || v == 0 || v > kMaxLimit)
    return ProtocolError{400, fmt::format("limit: expected an integer from 1 to {}, got '{}'", kMaxLimit, s)};
  return static_cast<std::size_t>(v);
}

Parsed<sim::SubmittedJob> parse_submit_body(std::string_view body, const cluster::GpuCatalog& catalog) {
  return parse_message<sim::SubmittedJob>(body, [&](const FieldReader& r) {
    sim::SubmittedJob j;
    j.spec.tasks = r.has("tasks") ? static_cast<std::uint32_t>(r.uint("tasks", 1u << 16)) : 1;
    j.spec.gpus_per_task = r.has("gpus_per_task") ? static_cast<std::uint32_t>(r.uint("gpus_per_task", 1024)) : 1;
    if (j.spec.tasks == 0) FieldReader::fail(r.field_path("tasks"), "must be at least 1");
    if (j.spec.gpus_per_task == 0) FieldReader::fail(r.field_path("gpus_per_task"), "must be at least 1");
    j.spec.duration = engine::from_seconds(r.number("duration_s", 1e-6, 100.0 * 365 * 86400));
    if (r.has("priority"))
      j.spec.priority = static_cast<std::int32_t>(r.integer("priority", -1000000000, 1000000000));
    if (r.has("name")) j.name = r.string("name");
    if (r.has("user")) j.user = r.string("user");
    if (r.has("model")) {
      j.model = r.string("model");
      std::size_t start = 0;
      while (start <= j.model.size()) {
        const auto bar = j.model.find('|', start);
        const std::string m = j.model.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
        if (!catalog.find(m))
          FieldReader::fail(r.field_path("model"), fmt::format("'{}' is not a GPU model of the cluster", m));
        if (bar == std::string::npos) break;
        start = bar + 1;
      }
    }
    if (j.name.size() > 256 || j.user.size() > 256)
      FieldReader::fail(r.field_path(j.name.size() > 256 ? "name" : "user"), "longer than 256 characters");
    return j;
  });
}

Parsed<std::uint32_t> parse_scale_body(std::string_view body) {
  return parse_message<std::uint32_t>(body, [](const FieldReader& r) {
    return static_cast<std::uint32_t>(r.uint("instances", workload::kMaxJobsPerRun));
  });
}

void add_api_routes(Router& router, WallClock& clock, Inbox& inbox, const cluster::Topology& topo,
                    std::function<std::string(cluster::HostId)> agent_state) {
  router.add("GET", "/v1/cluster", [&clock, &topo, agent_state](const HttpRequest&, const RouteParams&,
                                                                 Responder respond) {
    clock.post([&clock, &topo, respond, agent_state](engine::Time now, sim::OutsideEvents& outside) {
      sim::RunView v;
      v.now = now;
      outside.inspect(v, 0, false);
      nlohmann::json hosts = nlohmann::json::array();
      std::uint64_t gpus = 0, free = 0, down = 0;
      for (std::size_t h = 0; h < v.hosts.size(); ++h) {
        const auto& x = v.hosts[h];
        const auto& info = topo.host(static_cast<cluster::HostId>(h));
        hosts.push_back({{"host", fmt::format("h{}", h)},
                         {"model", info.gpus ? topo.catalog().model(info.model).name : ""},
                         {"gpus", x.gpus},
                         {"free", x.free},
                         {"down", x.down},
                         {"agent", agent_state(static_cast<cluster::HostId>(h))}});
        gpus += x.gpus, free += x.free, down += x.down;
      }
      respond(json_response(200, {{"now_s", engine::to_seconds(now)},
                                  {"gpus", gpus},
                                  {"free_gpus", free},
                                  {"down_gpus", down},
                                  {"active_jobs", v.active_jobs},
                                  {"running_jobs", v.running_jobs},
                                  {"pending_jobs", v.pending_jobs},
                                  {"jobs_by_state", jobs_by_state_json(v)},
                                  {"clock_lag_ms", recent_lag_json(clock.lag_us())},
                                  {"hosts", hosts}}));
    });
  });
  auto list = [&clock](bool queue_only) {
    return [&clock, queue_only](const HttpRequest& req, const RouteParams&, Responder respond) {
      std::size_t limit = 0;
      if (!read_limit(req, respond, limit)) return;
      clock.post([respond, limit, queue_only](engine::Time now, sim::OutsideEvents& outside) {
        sim::RunView v;
        v.now = now;
        outside.inspect(v, limit, queue_only);
        nlohmann::json jobs = nlohmann::json::array();
        for (const auto& j : v.jobs) jobs.push_back(job_json(j));
        respond(json_response(200, {{"now_s", engine::to_seconds(now)},
                                    {queue_only ? "pending_jobs" : "active_jobs",
                                     queue_only ? v.pending_jobs : v.active_jobs},
                                    {"jobs", jobs}}));
      });
    };
  };
  router.add("GET", "/v1/jobs", list(false));
  router.add("GET", "/v1/queue", list(true));
  router.add("POST", "/v1/jobs", [&inbox, &topo](const HttpRequest& req, const RouteParams&, Responder respond) {
    auto parsed = parse_submit_body(req.body, topo.catalog());
    if (!parse_or_refuse(parsed, respond)) return;
    inbox.post(SubmitInput{parsed.value()}, [respond](const InputOutcome& out, engine::Time now) {
      // A job that could never run is refused, not queued to be dropped on arrival.
      if (!out.refused.empty()) return respond(error_response(422, out.refused));
      respond(json_response(201, {{"job", out.job}, {"submit_s", engine::to_seconds(now)}}));
    });
  });
  router.add("POST", "/v1/jobs/{id}/stop", [&inbox](const HttpRequest&, const RouteParams& p, Responder respond) {
    const auto& s = p.at("id");
    std::uint32_t id = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), id);
    if (ec != std::errc{} || end != s.data() + s.size()) {
      respond(error_response(404, fmt::format("no job '{}': job ids are integers", s)));
      return;
    }
    inbox.post(KillInput{id}, [respond, id](const InputOutcome& out, engine::Time now) {
      if (out.found)
        respond(json_response(200, {{"job", id}, {"stopped_s", engine::to_seconds(now)}}));
      else
        respond(error_response(404, fmt::format("no active job {} (unknown, or ended already)", id)));
    });
  });
  router.add("GET", "/v1/services", [&clock](const HttpRequest&, const RouteParams&, Responder respond) {
    clock.post([respond](engine::Time now, sim::OutsideEvents& outside) {
      sim::RunView v;
      v.now = now;
      outside.inspect(v, 0, false);
      nlohmann::json services = nlohmann::json::array();
      for (const auto& s : v.services)
        services.push_back({{"name", s.name}, {"instances", s.instances}, {"running", s.running}});
      respond(json_response(200, {{"now_s", engine::to_seconds(now)}, {"services", services}}));
    });
  });
  // Marathon's scale; its stop is a scale to 0 and its start a scale up from 0.
  router.add("POST", "/v1/services/{name}/scale", [&inbox](const HttpRequest& req, const RouteParams& p,
                                                          Responder respond) {
    auto parsed = parse_scale_body(req.body);
    if (!parse_or_refuse(parsed, respond)) return;
    const std::string name = p.at("name");
    inbox.post(ScaleInput{name, parsed.value()}, [respond, name](const InputOutcome& out, engine::Time now) {
      if (!out.found)
        respond(error_response(404, fmt::format("no service '{}' in this run", name)));
      else if (out.scaled.not_started)
        respond(error_response(409, fmt::format("service '{}' has not started yet: no instance has arrived to copy; "
                                                "scale it once it has", name)));
      else
        respond(json_response(200, {{"service", name},
                                    {"instances_before", out.scaled.before},
                                    {"instances", out.scaled.after},
                                    {"scaled_s", engine::to_seconds(now)}}));
    });
  });
}

}  // namespace schedlab::emu
