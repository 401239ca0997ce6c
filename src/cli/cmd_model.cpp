// `schedlab model explain`: one training iteration of a model on a placement, phase by phase.
#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "cli/number_option.h"
#include "config/cluster_config.h"
#include "perf/gang_shape.h"
#include "perf/iteration_model.h"
#include "perf/model_catalog.h"
#include "util/error.h"
#include "util/parse.h"
#include "util/suggest.h"

namespace schedlab::cli {

namespace {

struct ExplainOptions {
  std::string model;
  std::string gpus_text;  // N, or A..B for the scaling curve
  int gpus = 0;
  double progress = 0.5;
  int host_gpus = 8;
  std::string placement;  // HxG or RxHxG
  std::string gpu;
  std::string cluster;
  std::string catalog = "configs/gpus.yaml";
  std::string models = "configs/models.yaml";
  std::string profile;
  std::string algorithm = "ring";
  double overlap = 0;
  double fusion_mb = 64;
  int ps_servers = 0;
  double ps_sync_ms = 0;
  double nic_gbps = 50;
  bool nic_given = false;  // --nic-gbps on the command line (else the catalog's figure for the GPU)
  double oversubscription = 1;
};

struct Shape {
  int racks = 1, hosts = 1, gpus = 1;  // hosts per rack, GPUs per host
};

Shape parse_placement(const std::string& text, int gpus) {
  std::vector<int> parts;
  std::string_view s = text;
  while (true) {
    auto x = s.find('x');
    std::int64_t v = 0;
    if (!util::try_parse_int(s.substr(0, x), v) || v < 1)
      throw util::InputError("--placement: '" + text + "' must be HOSTSxGPUS (2x8) or RACKSxHOSTSxGPUS (4x1x4)");
    parts.push_back(static_cast<int>(v));
    if (x == std::string_view::npos) break;
    s = s.substr(x + 1);
  }
  Shape sh;
  if (parts.size() == 1) {
    sh.hosts = 1, sh.gpus = parts[0];
  } else if (parts.size() == 2) {
    sh.hosts = parts[0], sh.gpus = parts[1];
  } else if (parts.size() == 3) {
    sh.racks = parts[0], sh.hosts = parts[1], sh.gpus = parts[2];
  } else {
    throw util::InputError("--placement: '" + text + "' has too many parts; use HOSTSxGPUS or RACKSxHOSTSxGPUS");
  }
  if (gpus > 0 && sh.racks * sh.hosts * sh.gpus != gpus)
    throw util::InputError(
        fmt::format("--placement {} holds {} GPUs, but --gpus is {}", text, sh.racks * sh.hosts * sh.gpus, gpus));
  return sh;
}

// Where a tier's α (or β, when the profile set it) comes from.
std::string tier_source(perf::LinkTier tier, const perf::TierParams& t, const ExplainOptions& o,
                        const perf::CalibrationProfile& profile, bool alpha) {
  if (t.datasheet)
    return fmt::format("datasheet profile, {} tier: {}", perf::link_tier_name(tier),
                       alpha ? perf::datasheet_alpha_source(tier) : perf::datasheet_beta_source(tier));
  return fmt::format("profile {} ({}{}{}), {} tier", o.profile.empty() ? "built-in" : o.profile,
                     profile.provenance.source, profile.provenance.gpu.empty() ? "" : ", " + profile.provenance.gpu,
                     profile.provenance.date.empty() ? "" : ", " + profile.provenance.date, perf::link_tier_name(tier));
}

// One line per figure of the shape: the value, then where it comes from.
void print_sources(const perf::GangShape& shape, const cluster::GpuModel& gpu, const std::string& catalog_path,
                   const ExplainOptions& o, const perf::CalibrationProfile& profile, const std::string& nic_from) {
  auto beta_from = [&](perf::BetaSource from, perf::LinkTier tier, const perf::TierParams& t, bool intra) {
    switch (from) {
      case perf::BetaSource::catalog:
        return intra ? fmt::format("{} intra_busbw_gbps ({}): {}", gpu.name, catalog_path, gpu.intra_source)
                     : fmt::format("{} nic_busbw_gbps ({}): {}", gpu.name, catalog_path, gpu.nic_source);
      case perf::BetaSource::link_cap:
        return fmt::format("capped by {} intra_gbps {:g} GB/s ({}{})", gpu.name, gpu.intra_gbps, gpu.intra_link,
                           gpu.intra_link.rfind("nvlink", 0) == 0 ? ", both directions" : ", one direction = half");
      case perf::BetaSource::host_line:
        return fmt::format("bandwidth-optimal bound of the host line {:.4g} GB/s, L*h(n-1)/((h-1)n)",
                           shape.host_line_gbps);
      case perf::BetaSource::intra:
        return std::string("the intra-host beta (a flat ring across hosts is no faster than inside one)");
      case perf::BetaSource::profile:
        break;
    }
    return tier_source(tier, t, o, profile, false);
  };
  fmt::print("sources:\n");
  fmt::print("  intra-host beta {:.4g} GB/s: {}\n", shape.intra.beta_gbps,
             beta_from(shape.intra_beta_from, shape.intra_tier, shape.intra, true));
  fmt::print("  intra-host alpha {:.3g} us: {}\n", shape.intra.alpha_us,
             tier_source(shape.intra_tier, shape.intra, o, profile, true));
  if (shape.hosts > 1) {
    fmt::print("  across hosts beta {:.4g} GB/s: {}\n", shape.inter.beta_gbps,
               beta_from(shape.inter_beta_from, shape.inter_tier, shape.inter, false));
    fmt::print("  across hosts alpha {:.3g} us: {}\n", shape.inter.alpha_us,
               tier_source(shape.inter_tier, shape.inter, o, profile, true));
  }
  fmt::print("  host NIC {:.4g} GB/s: {}\n", shape.host_line_gbps, nic_from);
}

// --gpus N or A..B (each from 1 to 4096).
std::pair<int, int> parse_gpus(const std::string& text) {
  auto one = [&](std::string_view v) {
    std::int64_t n = 0;
    if (!util::try_parse_int(v, n) || n < 1 || n > 4096)
      throw util::InputError("--gpus: '" + text + "' must be a GPU count in [1, 4096] or a range A..B (1..64)");
    return static_cast<int>(n);
  };
  const auto dots = text.find("..");
  if (dots == std::string::npos) {
    const int n = one(text);
    return {n, n};
  }
  const int a = one(std::string_view(text).substr(0, dots)), b = one(std::string_view(text).substr(dots + 2));
  if (b < a) throw util::InputError(fmt::format("--gpus: {}..{} is upside down (write {}..{})", a, b, b, a));
  return {a, b};
}

// The scaling curve: every power of two in [a, b] and both ends, each packed into as few hosts
// of --host-gpus GPUs as it fits (one rack), at the catalog's batch per GPU (weak scaling) and,
// for a model with statistical efficiency, at the batch of highest goodput (perf/goodput.h).
void explain_curve(const ExplainOptions& o, const perf::TrainingModel& model, const perf::CommSettings& comm,
                   const perf::CalibrationProfile& profile, int a, int b) {
  if (!o.placement.empty() || !o.cluster.empty())
    throw util::InputError("--gpus " + o.gpus_text + ": a range packs hosts of --host-gpus GPUs itself; "
                           "leave out --placement and --cluster");
  if (o.host_gpus < 1 || o.host_gpus > 64) throw util::InputError("--host-gpus: must be in [1, 64]");
  if (!(o.progress >= 0 && o.progress <= 1)) throw util::InputError("--progress: must be in [0, 1]");
  auto catalog = config::load_catalog(o.catalog);
  const std::string gpu_name = o.gpu.empty() ? "H100" : o.gpu;
  const auto gpu_id = catalog.find(gpu_name);
  if (!gpu_id) throw util::InputError("--gpu: " + util::unknown_name_message("GPU model", gpu_name, catalog.names()));
  const auto& gpu = catalog.model(*gpu_id);
  const double nic = o.nic_given || gpu.nic_gbps <= 0 ? o.nic_gbps : gpu.nic_gbps;
  std::vector<int> counts;
  for (int n = a; n <= b; ++n)
    if (n == a || n == b || (n & (n - 1)) == 0) counts.push_back(n);
  const auto& eff = model.stat_eff;
  fmt::print("model {} on {} (hosts of {} GPUs, NIC {:g} GB/s, one rack); algorithm {}; overlap {:.2f}\n", model.name,
             gpu.name, o.host_gpus, nic, perf::algorithm_name(comm.algorithm), comm.overlap);
  if (eff.given())
    fmt::print("statistical efficiency at progress {:.2f}: noise scale {:.0f} samples, batch {:g}..{:g} ({})\n",
               o.progress, eff.noise_scale(o.progress), eff.init_batch, eff.max_batch, eff.source);
  else
    fmt::print("no statistical efficiency for {} in {}: throughput only, batch {} per GPU\n", model.name, o.models,
               model.batch);
  fmt::print("\n  {:>5} {:>5} {:>12} {:>12} {:>8}", "GPUs", "hosts", "iter ms", "samples/s", "scaling");
  if (eff.given()) fmt::print(" {:>8} {:>10} {:>9} {:>12}", "batch", "iter ms", "stat eff", "goodput");
  fmt::print("\n");
  double one_gpu = 0;
  for (int n : counts) {
    std::vector<perf::ShapeHost> hosts;
    for (int left = n; left > 0; left -= o.host_gpus)
      hosts.push_back({*gpu_id, std::min(left, o.host_gpus), nic, 0});
    const auto shape = perf::make_gang_shape(hosts, catalog, profile, {});
    const auto it = perf::iteration_time(model, shape, comm, catalog, profile);
    if (one_gpu == 0) {
      one_gpu = perf::iteration_time(model, perf::make_gang_shape({{*gpu_id, 1, nic, 0}}, catalog, profile, {}), comm,
                                     catalog, profile)
                    .samples_per_s;
    }
    fmt::print("  {:>5} {:>5} {:>12.3f} {:>12.1f} {:>7.1f}%", n, hosts.size(), it.iteration_us / 1e3, it.samples_per_s,
               100 * it.samples_per_s / (n * one_gpu));
    if (eff.given()) {
      const perf::StepCost step{n, it.per_gpu_samples_per_s, it.comm_us, comm.overlap};
      const auto best = perf::best_goodput(step, eff, o.progress, model.batch);
      fmt::print(" {:>8.0f} {:>10.3f} {:>9.3f} {:>12.1f}", best.batch, best.iteration_us / 1e3, best.efficiency,
                 best.goodput);
    }
    fmt::print("\n");
  }
  if (eff.given())
    fmt::print("\ngoodput: samples per second times statistical efficiency, i.e. progress in samples at batch "
               "{:g}\n",
               eff.init_batch);
}

void explain(const ExplainOptions& o) {
  auto models = perf::load_model_catalog(o.models);
  const auto& model = models.get(o.model);
  auto algorithm = perf::algorithm_from_name(o.algorithm);
  if (!algorithm)
    throw util::InputError("--algorithm: " +
                           util::unknown_name_message("algorithm", o.algorithm, perf::algorithm_names()));
  perf::CommSettings comm;
  comm.algorithm = *algorithm;
  comm.overlap = o.overlap;
  comm.fusion_bytes = o.fusion_mb * 1024 * 1024;
  comm.ps_servers = o.ps_servers;
  comm.ps_sync_us = o.ps_sync_ms * 1e3;

  perf::CalibrationProfile profile = perf::datasheet_profile();
  if (!o.profile.empty()) profile = perf::overlay_profile(profile, perf::load_profile(o.profile));
  if (!o.gpus_text.empty()) {
    const auto [a, b] = parse_gpus(o.gpus_text);
    if (a != b) return explain_curve(o, model, comm, profile, a, b);
  }

  Shape sh = o.placement.empty() ? Shape{1, 1, o.gpus > 0 ? o.gpus : 1} : parse_placement(o.placement, o.gpus);

  // The hosts of the gang: from the cluster file (first racks with enough hosts of the model),
  // or a made-up cluster of exactly that shape.
  std::string catalog_path = o.cluster.empty() ? o.catalog : config::catalog_path_of(o.cluster);
  auto catalog = std::make_unique<cluster::GpuCatalog>(config::load_catalog(catalog_path));
  cluster::ClusterSpec spec;
  std::string gpu_name = o.gpu.empty() ? "H100" : o.gpu;
  if (!o.cluster.empty()) {
    spec = config::load_cluster(o.cluster, *catalog).spec;
  }
  std::optional<cluster::ModelId> gpu_id;
  if (!o.cluster.empty() && o.gpu.empty()) {
    cluster::Topology t(spec, *catalog);
    std::uint64_t most = 0;
    for (cluster::ModelId m = 0; m < catalog->size(); ++m)
      if (t.gpus_of_model(m) > most) most = t.gpus_of_model(m), gpu_id = m;
  } else {
    gpu_id = catalog->find(gpu_name);
    if (!gpu_id)
      throw util::InputError("--gpu: " + util::unknown_name_message("GPU model", gpu_name, catalog->names()));
  }
  // The host NIC of a made-up cluster: --nic-gbps, else the catalog's figure for the model.
  double nic_gbps = o.nic_gbps;
  std::string nic_from = o.cluster.empty() ? "--nic-gbps" : "the cluster file " + o.cluster;
  if (o.cluster.empty() && !o.nic_given) {
    const auto& m = catalog->model(*gpu_id);
    if (m.nic_gbps > 0) {
      nic_gbps = m.nic_gbps;
      nic_from = fmt::format("{} nic_gbps ({}): {}", m.name, catalog_path, m.nic_source);
    } else {
      nic_from = fmt::format("--nic-gbps default (the catalog gives {} no nic_gbps)", m.name);
    }
  }
  if (o.cluster.empty()) {
    spec.name = "explain";
    cluster::RackSpec rack;
    rack.name = "r";
    rack.count = static_cast<std::uint32_t>(sh.racks);
    rack.oversubscription = o.oversubscription;
    rack.hosts.push_back({static_cast<std::uint32_t>(sh.hosts), static_cast<std::uint16_t>(sh.gpus), *gpu_id, nic_gbps});
    spec.racks.push_back(rack);
  }
  cluster::Topology topo(spec, *catalog);

  std::vector<perf::ShapeHost> hosts;
  std::vector<cluster::RackId> racks;
  for (cluster::RackId r = 0; r < topo.racks().size() && static_cast<int>(racks.size()) < sh.racks; ++r) {
    std::vector<perf::ShapeHost> in_rack;
    const auto& rk = topo.rack(r);
    for (cluster::HostId h = rk.first_host; h < rk.first_host + rk.hosts && static_cast<int>(in_rack.size()) < sh.hosts; ++h) {
      const auto& info = topo.host(h);
      if (info.model == *gpu_id && info.gpus >= sh.gpus) in_rack.push_back({info.model, sh.gpus, info.nic_gbps, r});
    }
    if (static_cast<int>(in_rack.size()) < sh.hosts) continue;
    hosts.insert(hosts.end(), in_rack.begin(), in_rack.end());
    racks.push_back(r);
  }
  if (static_cast<int>(racks.size()) < sh.racks)
    throw util::InputError(fmt::format("--cluster {}: no {} racks with {} hosts of {} x {} free GPUs each", o.cluster,
                                       sh.racks, sh.hosts, sh.gpus, catalog->model(*gpu_id).name));
  auto cross = perf::static_cross_rack_rate(racks, topo);
  auto shape = perf::make_gang_shape(hosts, *catalog, profile, cross);
  auto b = perf::iteration_time(model, shape, comm, *catalog, profile);
  auto one = perf::iteration_time(model, perf::make_gang_shape({{*gpu_id, 1, hosts[0].nic_gbps, 0}}, *catalog, profile, {}),
                                  comm, *catalog, profile);

  fmt::print("model {}: {:.4g} M params, gradients {:.1f} MB ({}), batch {} per GPU\n", model.name, model.params / 1e6,
             model.gradient_bytes() / 1e6, perf::dtype_name(model.grad_dtype), model.batch);
  fmt::print("placement {} racks x {} hosts x {} {} = {} GPUs; algorithm {}; overlap {:.2f}; fusion {:.0f} MiB\n",
             sh.racks, sh.hosts, sh.gpus, catalog->model(*gpu_id).name, shape.gpus, perf::algorithm_name(comm.algorithm),
             comm.overlap, o.fusion_mb);
  fmt::print("profile: {}\n", o.profile.empty() ? "datasheet defaults (no --profile)" : o.profile);
  fmt::print("links: intra-host {} alpha {:.3g} us beta {:.4g} GB/s", perf::link_tier_name(shape.intra_tier),
             shape.intra.alpha_us, shape.intra.beta_gbps);
  if (shape.hosts > 1)
    fmt::print("; across hosts {} alpha {:.3g} us beta {:.4g} GB/s (host line {:.4g} GB/s)", perf::link_tier_name(shape.inter_tier),
               shape.inter.alpha_us, shape.inter.beta_gbps, shape.host_line_gbps);
  fmt::print("\n");
  print_sources(shape, catalog->model(*gpu_id), catalog_path, o, profile, nic_from);
  fmt::print("\n");
  fmt::print("  {:<28} {:>8} {:>6} {:>12} {:>6} {:>12}\n", "phase", "tier", "ranks", "bytes/call", "calls", "time ms");
  fmt::print("  {:<28} {:>8} {:>6} {:>12} {:>6} {:>12.3f}\n", fmt::format("compute ({})", b.gpu), "-", "-", "-", "-",
             b.compute_us / 1e3);
  for (const auto& p : b.phases)
    fmt::print("  {:<28} {:>8} {:>6} {:>12.4g} {:>6} {:>12.3f}\n", p.name, perf::link_tier_name(p.tier), p.ranks, p.bytes,
               p.calls, p.us / 1e3);
  fmt::print("  {:<28} {:>48.3f}\n", "communication", b.comm_us / 1e3);
  fmt::print("  {:<28} {:>48.3f}\n", "hidden by overlap", -b.hidden_us / 1e3);
  fmt::print("  {:<28} {:>48.3f}\n", "iteration", b.iteration_us / 1e3);
  if (model.host_gpu_slowdown > 0 && shape.max_host_gpus > 1)
    fmt::print("compute x{:.3g} for sharing a host: host_gpu_slowdown {:.3g} x {} further GPUs on the busiest host\n",
               1 + model.host_gpu_slowdown * (shape.max_host_gpus - 1), model.host_gpu_slowdown,
               shape.max_host_gpus - 1);
  fmt::print("\nbottleneck: {}\n", b.bottleneck ? std::string(perf::link_tier_name(*b.bottleneck)) : "none (no communication)");
  fmt::print("throughput: {:.1f} samples/s ({:.1f} per GPU; one GPU alone: {:.1f})\n", b.samples_per_s,
             b.samples_per_s / shape.gpus, one.samples_per_s);
  fmt::print("scaling efficiency vs one GPU: {:.1f}%\n", 100 * b.samples_per_s / (shape.gpus * one.samples_per_s));
}

}  // namespace

void add_model_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("model", "Training models and their iteration time on a placement");
  cmd->require_subcommand(1);
  auto* ex = cmd->add_subcommand("explain", "Per-iteration breakdown of a model on a placement: compute, each "
                                            "communication phase, bottleneck link, samples/s, scaling efficiency");
  auto o = std::make_shared<ExplainOptions>();
  ex->add_option("--model", o->model, "Training model (configs/models.yaml)")->required();
  ex->add_option("--gpus", o->gpus_text, "GPUs in the gang (checked against --placement), or a range A..B: the scaling curve");
  ex->add_option("--placement", o->placement, "HOSTSxGPUS (2x8) or RACKSxHOSTSxGPUS (4x1x4)");
  ex->add_option("--gpu", o->gpu, "GPU model (default: H100, or the cluster's most numerous)");
  ex->add_option("--cluster", o->cluster, "Cluster file to take hosts, NICs and uplinks from");
  ex->add_option("--catalog", o->catalog, "GPU catalog without --cluster")->capture_default_str();
  ex->add_option("--models", o->models, "Training model catalog")->capture_default_str();
  ex->add_option("--profile", o->profile, "Calibration profile (default: datasheet defaults)");
  ex->add_option("--algorithm", o->algorithm, "ring | hierarchical | tree | ps")->capture_default_str();
  add_number_option(ex, "--overlap", o->overlap, "Fraction of compute that hides communication")->capture_default_str();
  add_number_option(ex, "--fusion-mb", o->fusion_mb, "Tensor fusion buffer, MiB")->capture_default_str();
  add_number_option(ex, "--ps-servers", o->ps_servers, "Parameter servers (0 = one per host)")->capture_default_str();
  add_number_option(ex, "--ps-sync-ms", o->ps_sync_ms, "Per-iteration synchronisation cost of parameter-server training, ms")
      ->capture_default_str();
  add_number_option(ex, "--nic-gbps", o->nic_gbps,
                    "Host NIC in GB/s without --cluster (default: the GPU's nic_gbps in the catalog, else 50)");
  add_number_option(ex, "--oversubscription", o->oversubscription, "Rack uplink oversubscription without --cluster")
      ->capture_default_str();
  add_number_option(ex, "--progress", o->progress,
                    "With a --gpus range: training progress (0..1) at which the noise scale is read")
      ->capture_default_str();
  add_number_option(ex, "--host-gpus", o->host_gpus, "With a --gpus range: GPUs per host of the made-up cluster")
      ->capture_default_str();
  ex->callback([ex, o, &exit_code] {
    o->nic_given = ex->count("--nic-gbps") > 0;
    if (!o->gpus_text.empty()) o->gpus = parse_gpus(o->gpus_text).first;
    explain(*o);
    exit_code = 0;
  });
}

}  // namespace schedlab::cli
