// The `placement` perf model: settings, the static speed, and link sharing between runs.
#include "perf/placement_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <limits>
#include <unordered_map>

#include "perf/gang_shape.h"
#include "perf/goodput.h"
#include "perf/max_min_share.h"
#include "util/checked.h"
#include "util/error.h"
#include "util/named_args.h"
#include "util/notice.h"
#include "util/parse.h"
#include "util/suggest.h"
#include "util/yaml_util.h"

namespace schedlab::perf {

namespace {

// A setting's number within [lo, hi]; `fallback` when absent. The wording perf's settings have
// always had ("must be in [0, 1], got 1.5").
double number(const util::ArgReader& a, const std::string& key, double fallback, double lo, double hi) {
  if (!a.find(key)) return fallback;
  const std::string v = a.text(key, "");
  double x = 0;
  if (!util::try_parse_double(v, x)) a.fail(key, "must be a number, got '" + v + "'");
  if (!(x >= lo && x <= hi)) a.fail(key, fmt::format("must be in [{}, {}], got {}", lo, hi, v));
  return x;
}

const std::vector<std::string>& valid_keys() {
  static const std::vector<std::string> keys = {"models",     "profile",    "algorithm", "overlap",   "fusion_mb",
                                                "ps_servers", "ps_sync_ms", "contention", "model_mix", "reference", "reference_gpu"};
  return keys;
}

}  // namespace

cluster::ModelId most_numerous_model(const cluster::Topology& topo) {
  cluster::ModelId best = 0;
  std::uint64_t most = 0;
  for (cluster::ModelId m = 0; m < topo.catalog().size(); ++m)
    if (topo.gpus_of_model(m) > most) {
      most = topo.gpus_of_model(m);
      best = m;
    }
  return best;
}

PlacementModelSettings parse_placement_settings(const util::NamedArgs& args, const std::string& file,
                                                const cluster::Topology& topo, std::uint64_t seed) {
  const util::ArgReader a(args, util::ArgsOwner{"perf", "setting of perf model 'placement'", "", ""}, valid_keys());
  PlacementModelSettings s;
  s.seed = seed;
  // Default: models.yaml beside the cluster's GPU catalog (configs/), wherever the scenario is.
  std::string models_path = a.find("models") ? util::resolve_path(file, a.text("models", ""))
                            : topo.catalog().source_file().empty()
                                ? util::resolve_path(file, "../configs/models.yaml")
                                : util::resolve_path(topo.catalog().source_file(), "models.yaml");
  s.models = load_model_catalog(models_path);
  if (a.find("profile")) {
    s.profile_file = util::resolve_path(file, a.text("profile", ""));
    s.profile = overlay_profile(datasheet_profile(), load_profile(s.profile_file));
    s.datasheet = false;
  } else {
    s.profile = datasheet_profile();
  }
  if (a.find("algorithm")) {
    const std::string v = a.text("algorithm", "");
    auto algorithm = algorithm_from_name(v);
    if (!algorithm) a.fail("algorithm", util::unknown_name_message("algorithm", v, algorithm_names()));
    s.comm.algorithm = *algorithm;
  }
  s.comm.overlap = number(a, "overlap", s.comm.overlap, 0, 1);
  if (a.find("fusion_mb")) s.comm.fusion_bytes = number(a, "fusion_mb", 0, 0, 1e6) * 1024 * 1024;
  if (a.find("ps_servers")) {
    // Written as a number ("2" or "2.0"), used as a count.
    const double n = number(a, "ps_servers", 0, 0, 1'000'000);
    if (n != std::trunc(n)) a.fail("ps_servers", fmt::format("{} is not a whole number", n));
    s.comm.ps_servers = static_cast<int>(n);
  }
  if (a.find("ps_sync_ms")) s.comm.ps_sync_us = number(a, "ps_sync_ms", 0, 0, 1e6) * 1e3;
  if (a.find("contention")) {
    const std::string v = a.text("contention", "");
    if (v != "true" && v != "false") a.fail("contention", "must be true or false, got '" + v + "'");
    s.contention = v == "true";
  }
  if (const util::ArgValue* mix = a.find("model_mix"))
    s.mix = ModelMix::parse(*mix, s.models, file);
  else
    s.mix = ModelMix::uniform(s.models);
  const std::string reference = a.choice("reference", "traced", {"traced", "tightest", "one-gpu"});
  s.reference = reference == "tightest" ? ReferenceShape::tightest
                : reference == "one-gpu" ? ReferenceShape::one_gpu
                                         : ReferenceShape::traced;
  if (a.find("reference_gpu")) {
    const std::string v = a.text("reference_gpu", "");
    auto id = topo.catalog().find(v);
    if (!id) a.fail("reference_gpu", util::unknown_name_message("GPU model", v, topo.catalog().names()));
    s.reference_gpu = *id;
  }
  return s;
}

std::vector<ShapeHost> reference_hosts(const workload::JobSpec& job, ReferenceShape reference, cluster::ModelId gpu,
                                       const cluster::Topology& topo) {
  // The reference host's NIC: the first host of that model, else the largest NIC in the cluster.
  double nic = 0;
  for (const auto& h : topo.hosts())
    if (h.model == gpu) {
      nic = h.nic_gbps;
      break;
    }
  if (nic == 0)
    for (const auto& h : topo.hosts()) nic = std::max(nic, h.nic_gbps);
  std::vector<ShapeHost> hosts;
  if (job.fractional() || reference == ReferenceShape::one_gpu) {
    hosts.push_back({gpu, 1, nic, 0});
    return hosts;
  }
  if (reference == ReferenceShape::traced) {
    // Only started jobs are asked about, and a started task fits in one host (at most 1024 GPUs);
    // the clamp keeps the narrowing exact whatever a caller passes.
    const int per_task = static_cast<int>(std::min<std::uint32_t>(job.gpus_per_task, 1u << 16));
    for (std::uint32_t t = 0; t < job.tasks; ++t) hosts.push_back({gpu, per_task, nic, 0});
    return hosts;
  }
  std::uint64_t per_host = topo.max_host_gpus(gpu) ? topo.max_host_gpus(gpu) : topo.max_host_gpus();
  per_host = std::max<std::uint64_t>(per_host, 1);
  std::uint64_t left = std::max<std::uint64_t>(job.total_gpus(), 1);
  while (left > 0) {
    std::uint64_t g = std::min(left, per_host);
    hosts.push_back({gpu, static_cast<int>(g), nic, 0});
    left -= g;
  }
  return hosts;
}

namespace {

class PlacementModel final : public PerfModel {
 public:
  PlacementModel(PlacementModelSettings s, const cluster::Topology& topo, util::Notices* notices)
      : s_(std::move(s)), ref_gpu_(s_.reference_gpu ? *s_.reference_gpu : most_numerous_model(topo)) {
    if (s_.datasheet && notices)
      notices->say("perf model 'placement' uses datasheet link and compute defaults (no perf.profile given; see "
             "docs/perf-model.md)");
  }

  std::string name() const override { return "placement"; }

  double speed(const workload::JobSpec& job, const cluster::Placement& placement,
               const cluster::Topology& topo) const override {
    if (!job.needs_gpu()) return 1.0;  // no GPU, no allreduce: a CPU job runs as traced
    const TrainingModel& model = model_of(job);
    auto hosts = actual_hosts(job, placement, topo);
    auto racks = placement_racks(placement, topo);
    return checked_speed(
        reference_us(job, model, topo, placement) /
            iteration_us(model, hosts, racks.size() > 1 ? static_cross_rack_rate(racks, topo) : CrossRackRate{}, topo),
        model, job);
  }

  void bind_workload(const workload::StringPool& strings, const std::string& trace_name) override {
    strings_ = &strings;
    trace_name_ = trace_name;
    named_.clear();  // labels are the pool's own
  }
  std::optional<std::string> training_model_error(std::string_view name) const override {
    if (s_.models.find(std::string(name))) return std::nullopt;
    return util::unknown_name_message("training model", name, s_.models.names()) + " (the models of " + s_.models.file +
           ")";
  }

  bool shares_links() const override { return s_.contention; }
  bool sizes_elastic_jobs() const override { return s_.reference == ReferenceShape::one_gpu; }

  double goodput_ratio(const workload::JobSpec& job, const cluster::Placement& placement, const cluster::Topology& topo,
                       double progress) const override {
    const auto r = ratio_basis(job, placement, topo);
    return r.model ? ratio_at(r, progress) : 1.0;
  }
  void goodput_ratios(const workload::JobSpec& job, const cluster::Placement& placement, const cluster::Topology& topo,
                      int first, int steps, std::vector<double>& out) const override {
    out.assign(static_cast<std::size_t>(steps), 1.0);
    const auto r = ratio_basis(job, placement, topo);
    if (!r.model) return;
    for (int k = first; k < steps; ++k) out[static_cast<std::size_t>(k)] = ratio_at(r, static_cast<double>(k) / steps);
  }

  // The checkpoint of the training model the job stands for (configs/models.yaml).
  bool checkpoint_cost(const workload::JobSpec& job, workload::CheckpointCost& out) const override {
    return s_.models.checkpoint_cost(model_of(job), out);
  }

  void run_started(std::uint64_t run, const workload::JobSpec& job, const cluster::Placement& placement,
                   const cluster::Topology& topo) override {
    topo_ = &topo;
    forget_flow(run);  // a run id started again replaces the run
    Run r;
    if (!job.needs_gpu()) {
      // A CPU job runs as traced and shares no link.
      r.cpu_only = true;
      runs_[run] = std::move(r);
      fresh_.push_back(run);
      return;
    }
    r.job_line = job.line;
    r.job_gpus = job.total_gpus();
    r.model = &model_of(job);
    r.reference_us = reference_us(job, *r.model, topo, placement);
    r.hosts = actual_hosts(job, placement, topo);
    for (const auto& t : placement.tasks)
      if (std::find(r.host_ids.begin(), r.host_ids.end(), t.host) == r.host_ids.end()) r.host_ids.push_back(t.host);
    r.racks = placement_racks(placement, topo);
    // A one-host run shares no link: its speed is fixed now, and nobody else's changes.
    if (r.host_ids.size() < 2) {
      fresh_.push_back(run);
      runs_[run] = std::move(r);
      return;
    }
    r.gang = gang_hosts(r.hosts, topo.catalog());  // priced again at each move of its fair share
    dirty_ = true;
    Run& kept = runs_[run] = std::move(r);
    // Its flow, in run-id order among the others: links racks' uplinks [0, R), the spine R,
    // host NICs R+1+h.
    const std::size_t R = topo.racks().size();
    FairFlow f;
    f.cap = std::numeric_limits<double>::infinity();
    for (const auto& h : kept.hosts) f.cap = std::min(f.cap, h.nic_gbps);
    for (cluster::HostId h : kept.host_ids) f.links.emplace_back(static_cast<std::uint32_t>(R + 1 + h), 1.0);
    if (kept.racks.size() > 1) {
      for (cluster::RackId k : kept.racks) f.links.emplace_back(k, 1.0);
      if (topo.spine_gbps() > 0) f.links.emplace_back(static_cast<std::uint32_t>(R), static_cast<double>(kept.racks.size()));
    }
    const auto at = flow_at(run);
    flows_.insert(flows_.begin() + (at - flow_runs_.begin()), std::move(f));
    flow_runs_.insert(at, {run, &kept});
  }

  void run_ended(std::uint64_t run) override {
    auto it = runs_.find(run);
    if (it == runs_.end()) return;
    if (it->second.host_ids.size() > 1) dirty_ = true;
    forget_flow(run);
    runs_.erase(it);
  }

  void take_speed_changes(std::vector<std::pair<std::uint64_t, double>>& out) override {
    if (!topo_) return;
    // Changes are reported in run-id order (a deterministic order for the executor): the fresh
    // runs' sorted, the shared ones' come in run-id order, and a run is one or the other, so a
    // merge gives what sorting them all would.
    const auto first = static_cast<std::ptrdiff_t>(out.size());
    report_fresh(out);
    const auto mid = static_cast<std::ptrdiff_t>(out.size());
    std::sort(out.begin() + first, out.begin() + mid);
    if (dirty_) report_shared(out);
    dirty_ = false;
    std::inplace_merge(out.begin() + first, out.begin() + mid, out.end());
  }

 private:
  // One-host runs started since the last report: their speed is fixed for their lifetime.
  void report_fresh(std::vector<std::pair<std::uint64_t, double>>& out) {
    for (std::uint64_t id : fresh_) {
      auto it = runs_.find(id);
      if (it == runs_.end()) continue;
      auto& r = it->second;
      if (r.cpu_only) {
        r.speed = 1.0;
        out.emplace_back(id, r.speed);
        continue;
      }
      r.speed = checked_speed(r.reference_us / iteration_us(*r.model, r.hosts, CrossRackRate{}, *topo_), *r.model,
                              r.job_line, r.job_gpus);
      out.emplace_back(id, r.speed);
    }
    fresh_.clear();
  }

  // Multi-host runs share NICs, rack uplinks and the spine max-min fairly.
  void report_shared(std::vector<std::pair<std::uint64_t, double>>& out) {
    const auto& topo = *topo_;
    // Links: racks' uplinks [0, R), the spine R, host NICs R+1+h. Only multi-host runs share;
    // their flows are kept from their starts, in run-id order.
    const std::size_t R = topo.racks().size();
    auto& capacity = capacity_;
    capacity.assign(R + 1 + topo.hosts().size(), 0.0);
    for (std::size_t r = 0; r < R; ++r) capacity[r] = topo.rack(static_cast<cluster::RackId>(r)).uplink_gbps;
    capacity[R] = topo.spine_gbps();
    for (std::size_t h = 0; h < topo.hosts().size(); ++h) capacity[R + 1 + h] = topo.hosts()[h].nic_gbps;
    const auto& flows = flows_;
    const auto& flow_run = flow_runs_;
    auto rates = max_min_rates(capacity, flows);
    for (std::size_t i = 0; i < flow_run.size(); ++i) {
      Run& r = *flow_run[i].second;
      const double x = rates[i];
      // The same fair rate gives the same speed: skip the iteration-time model.
      if (r.speed > 0 && std::abs(x - r.rate) <= 1e-12 * std::max(1.0, std::abs(r.rate))) continue;
      r.rate = x;
      // Its hosts' NICs capped at x, and x across racks, as iteration_us would price them; the
      // shape and breakdown reuse their storage.
      const double cross = x > 0 ? x : std::numeric_limits<double>::infinity();
      gang_shape_at(r.gang, s_.profile, CrossRackRate{cross, LinkTier::rack}, x, shape_);
      iteration_time(*r.model, shape_, s_.comm, topo.catalog(), s_.profile, breakdown_);
      double speed = checked_speed(r.reference_us / breakdown_.iteration_us, *r.model, r.job_line, r.job_gpus);
      if (r.speed > 0 && std::abs(speed - r.speed) <= 1e-12 * r.speed) continue;
      r.speed = speed;
      out.emplace_back(flow_run[i].first, speed);
    }
  }

  // What the goodput ratio needs of a placement, whatever the progress: the step's cost and the
  // reference run's batch. No model: the ratio is 1 (no statistical efficiency, or not a GPU job).
  struct RatioBasis {
    const TrainingModel* model = nullptr;
    StepCost step;
    double samples_per_s = 0;  // throughput at the model's batch per GPU
    double ref_batch = 0;
  };
  RatioBasis ratio_basis(const workload::JobSpec& job, const cluster::Placement& placement,
                         const cluster::Topology& topo) const {
    RatioBasis r;
    if (!job.needs_gpu() || job.fractional()) return r;
    const TrainingModel& model = model_of(job);
    if (!model.stat_eff.given()) return r;
    auto racks = placement_racks(placement, topo);
    CrossRackRate c = racks.size() > 1 ? static_cross_rack_rate(racks, topo) : CrossRackRate{};
    if (c.gbps <= 0) c.gbps = std::numeric_limits<double>::infinity();
    auto shape = make_gang_shape(actual_hosts(job, placement, topo), topo.catalog(), s_.profile, c);
    const auto it = iteration_time(model, shape, s_.comm, topo.catalog(), s_.profile);
    r.model = &model;
    r.step = StepCost{static_cast<int>(placement.gpus()), it.per_gpu_samples_per_s, it.comm_us, s_.comm.overlap};
    r.samples_per_s = it.samples_per_s;
    // The work counts samples of the reference run (model.batch per GPU on the reference
    // GPUs), each worth that batch's efficiency in initial-batch samples.
    r.ref_batch = model.batch * (s_.reference == ReferenceShape::one_gpu ? 1.0 : static_cast<double>(job.total_gpus()));
    return r;
  }
  static double ratio_at(const RatioBasis& r, double progress) {
    const auto best = best_goodput(r.step, r.model->stat_eff, progress, r.model->batch);
    const double per_work = r.samples_per_s * r.model->stat_eff.efficiency(progress, r.ref_batch);
    return per_work > 0 ? best.goodput / per_work : 1.0;
  }

  // report_shared's working storage, reused from call to call.
  std::vector<double> capacity_;
  std::vector<FairFlow> flows_;  // the multi-host runs', by run id
  GangShape shape_;
  IterationBreakdown breakdown_;

  struct Run {
    std::uint32_t job_line = 0;  // for messages
    std::uint64_t job_gpus = 0;
    const TrainingModel* model = nullptr;
    double reference_us = 0;
    std::vector<ShapeHost> hosts;
    std::vector<cluster::HostId> host_ids;
    std::vector<cluster::RackId> racks;
    GangHosts gang;    // what the shape reads of its hosts (multi-host runs)
    double speed = 0;  // last reported; 0 = never
    double rate = -1;  // fair share of its bottleneck at the last report (multi-host runs)
    bool cpu_only = false;  // a job without GPUs: speed 1
  };
  // The multi-host runs' flows and, at the same place, their run ids and runs, by run id.
  std::vector<std::pair<std::uint64_t, Run*>> flow_runs_;
  std::vector<std::pair<std::uint64_t, Run*>>::iterator flow_at(std::uint64_t run) {
    return std::lower_bound(flow_runs_.begin(), flow_runs_.end(), run,
                            [](const auto& e, std::uint64_t id) { return e.first < id; });
  }
  void forget_flow(std::uint64_t run) {
    const auto at = flow_at(run);
    if (at == flow_runs_.end() || at->first != run) return;
    flows_.erase(flows_.begin() + (at - flow_runs_.begin()));
    flow_runs_.erase(at);
  }

  // Each figure passed its own sense range, but together they may still give a speed of 0, inf or
  // NaN (a 1 MB/s link under a 10^15-parameter model): refuse it, naming the files, rather than
  // run a job for 0 s or forever.
  double checked_speed(double speed, const TrainingModel& model, std::uint32_t line, std::uint64_t gpus) const {
    if (std::isfinite(speed) && speed >= kMinSpeed && speed <= kMaxSpeed) return speed;
    const std::string& file = s_.profile_file.empty() ? s_.models.file : s_.profile_file;
    throw util::InputError(
        file, 0, "",
        fmt::format(
            "perf model 'placement' gives training model '{}'{} a speed of {} relative to its "
            "reference placement, outside [{}, {}]; check the link and compute figures of {} and "
            "{}",
            model.name,
            line ? fmt::format(" (job on trace line {}, {} GPUs)", line, gpus) : fmt::format(" ({} GPUs)", gpus), speed,
            kMinSpeed, kMaxSpeed, s_.profile_file.empty() ? std::string("the datasheet profile") : s_.profile_file,
            s_.models.file));
  }
  double checked_speed(double speed, const TrainingModel& model, const workload::JobSpec& job) const {
    return checked_speed(speed, model, job.line, job.total_gpus());
  }

  // The model the trace names for the job, else the mix's draw. Names are resolved once per label.
  const TrainingModel& model_of(const workload::JobSpec& job) const {
    if (job.model == workload::kNoLabel) return s_.models.models()[s_.mix.pick(s_.seed, job)];
    assert(strings_ && "bind_workload before asking about a job that names its model");
    auto it = named_.find(job.model);
    if (it == named_.end()) {
      const std::string name(strings_->str(job.model));
      const TrainingModel* m = s_.models.find(name);
      if (!m) throw util::InputError(trace_name_, job.line, "model", *training_model_error(name));
      it = named_.emplace(job.model, m).first;
    }
    return *it->second;
  }

  std::vector<ShapeHost> actual_hosts(const workload::JobSpec& job, const cluster::Placement& placement,
                                      const cluster::Topology& topo) const {
    auto hosts = shape_hosts(placement, topo);
    if (job.fractional()) hosts.resize(1), hosts[0].gpus = 1;  // a share: compute only
    return hosts;
  }

  double iteration_us(const TrainingModel& model, const std::vector<ShapeHost>& hosts, const CrossRackRate& cross,
                      const cluster::Topology& topo) const {
    CrossRackRate c = cross;
    if (c.gbps <= 0) c.gbps = std::numeric_limits<double>::infinity();
    auto shape = make_gang_shape(hosts, topo.catalog(), s_.profile, c);
    return iteration_time(model, shape, s_.comm, topo.catalog(), s_.profile).iteration_us;
  }

  double reference_us(const workload::JobSpec& job, const TrainingModel& model, const cluster::Topology& topo,
                      const cluster::Placement& placement) const {
    double one = iteration_us(model, reference_hosts(job, s_.reference, ref_gpu_, topo), CrossRackRate{}, topo);
    // One GPU's iteration time per batch; n GPUs do n batches per iteration. An elastic job's
    // n is the size it runs at now (a rigid job's runs hold its traced size, or part of it).
    const auto n = job.elastic() ? placement.gpus() : job.total_gpus();
    if (s_.reference == ReferenceShape::one_gpu && !job.fractional()) one *= static_cast<double>(n);
    return one;
  }

  PlacementModelSettings s_;
  cluster::ModelId ref_gpu_;
  const workload::StringPool* strings_ = nullptr;  // the run's workload strings (bind_workload)
  std::string trace_name_;
  mutable std::unordered_map<workload::Label, const TrainingModel*> named_;  // model_of's cache
  const cluster::Topology* topo_ = nullptr;
  std::map<std::uint64_t, Run> runs_;
  bool dirty_ = false;
  std::vector<std::uint64_t> fresh_;  // one-host runs started since the last report
};

}  // namespace

std::unique_ptr<PerfModel> make_placement_model(PlacementModelSettings settings, const cluster::Topology& topo,
                                                util::Notices* notices) {
  return std::make_unique<PlacementModel>(std::move(settings), topo, notices);
}

}  // namespace schedlab::perf
