// Iteration time = compute (slowest GPU) + exposed communication (see iteration_model.h).
#include "perf/iteration_model.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <utility>

#include "perf/collective_cost.h"

namespace schedlab::perf {

std::string_view algorithm_name(Algorithm a) {
  switch (a) {
    case Algorithm::ring: return "ring";
    case Algorithm::hierarchical: return "hierarchical";
    case Algorithm::tree: return "tree";
    case Algorithm::parameter_server: return "ps";
  }
  return "?";
}

std::optional<Algorithm> algorithm_from_name(std::string_view name) {
  for (Algorithm a : {Algorithm::ring, Algorithm::hierarchical, Algorithm::tree, Algorithm::parameter_server})
    if (algorithm_name(a) == name) return a;
  return std::nullopt;
}

std::vector<std::string> algorithm_names() { return {"ring", "hierarchical", "tree", "ps"}; }

namespace {

// Splits S into fused calls and prices them with `one_call(bytes_per_call)`.
template <class F>
CommPhase fused(std::string name, LinkTier tier, int ranks, double total_bytes, double fusion_bytes, F one_call) {
  CommPhase p;
  p.name = std::move(name);
  p.tier = tier;
  p.ranks = ranks;
  p.calls = fusion_bytes > 0 ? std::max(1, static_cast<int>(std::ceil(total_bytes / fusion_bytes))) : 1;
  p.bytes = total_bytes / p.calls;
  p.us = p.calls * one_call(p.bytes);
  return p;
}

}  // namespace

IterationBreakdown iteration_time(const TrainingModel& model, const GangShape& shape, const CommSettings& settings,
                                  const cluster::GpuCatalog& catalog, const CalibrationProfile& profile) {
  IterationBreakdown b;
  iteration_time(model, shape, settings, catalog, profile, b);
  return b;
}

void iteration_time(const TrainingModel& model, const GangShape& shape, const CommSettings& settings,
                    const cluster::GpuCatalog& catalog, const CalibrationProfile& profile, IterationBreakdown& b) {
  assert(!shape.gpu_models.empty());
  {  // A fresh breakdown, keeping only the storage of its phases and name.
    auto phases = std::move(b.phases);
    auto gpu = std::move(b.gpu);
    phases.clear();
    b = IterationBreakdown{};
    b.phases = std::move(phases);
    b.gpu = std::move(gpu);
  }
  // Synchronous data parallelism: every step waits for the slowest GPU.
  b.per_gpu_samples_per_s = -1;
  for (cluster::ModelId id : shape.gpu_models) {
    double t = gpu_throughput(model, catalog.model(id), catalog, profile);
    if (b.per_gpu_samples_per_s < 0 || t < b.per_gpu_samples_per_s) {
      b.per_gpu_samples_per_s = t;
      const std::string& name = catalog.model(id).name;
      if (b.gpu != name) b.gpu = name;  // a reused breakdown mostly has it already
    }
  }
  // GPUs of one host share its CPUs, PCIe root and memory: the most crowded host sets the pace.
  if (model.host_gpu_slowdown > 0 && shape.max_host_gpus > 1)
    b.per_gpu_samples_per_s /= 1 + model.host_gpu_slowdown * (shape.max_host_gpus - 1);
  b.compute_us = model.batch / b.per_gpu_samples_per_s * 1e6;

  const double S = model.gradient_bytes();
  const double fuse = settings.fusion_bytes;
  const int n = shape.gpus;
  const int h = shape.hosts;
  if (n >= 2) {
    switch (settings.algorithm) {
      case Algorithm::ring:
        if (h == 1)
          b.phases.push_back(fused("ring allreduce", shape.intra_tier, n, S, fuse,
                                   [&](double s) { return ring_allreduce_us(n, s, shape.intra); }));
        else
          b.phases.push_back(fused("ring allreduce", shape.inter_tier, n, S, fuse,
                                   [&](double s) { return ring_allreduce_us(n, s, shape.inter); }));
        break;
      case Algorithm::tree: {
        const TierParams& link = h == 1 ? shape.intra : shape.inter;
        b.phases.push_back(fused("tree allreduce", h == 1 ? shape.intra_tier : shape.inter_tier, n, S, fuse,
                                 [&](double s) { return tree_allreduce_us(n, s, link); }));
        break;
      }
      case Algorithm::hierarchical: {
        int g = shape.min_host_gpus;
        if (h == 1) {
          b.phases.push_back(fused("ring allreduce", shape.intra_tier, n, S, fuse,
                                   [&](double s) { return ring_allreduce_us(n, s, shape.intra); }));
          break;
        }
        int gmax = shape.max_host_gpus;
        if (gmax > 1)
          b.phases.push_back(fused("intra-host reduce-scatter", shape.intra_tier, gmax, S, fuse,
                                   [&](double s) { return ring_reduce_scatter_us(gmax, s, shape.intra); }));
        // g rings (one per local rank) share the host's line: each gets line/g.
        TierParams inter = shape.inter;
        inter.beta_gbps = std::min(shape.inter.beta_gbps, shape.host_line_gbps / g);
        b.phases.push_back(fused("inter-host allreduce", shape.inter_tier, h, S / g, fuse / g,
                                 [&](double s) { return ring_allreduce_us(h, s, inter); }));
        if (gmax > 1)
          b.phases.push_back(fused("intra-host all-gather", shape.intra_tier, gmax, S, fuse,
                                   [&](double s) { return ring_reduce_scatter_us(gmax, s, shape.intra); }));
        break;
      }
      case Algorithm::parameter_server: {
        int k = settings.ps_servers > 0 ? settings.ps_servers : h;
        double line = h == 1 ? shape.intra.beta_gbps : shape.host_line_gbps;
        int per_host = h == 1 ? 1 : shape.max_host_gpus;
        double alpha = h == 1 ? shape.intra.alpha_us : shape.inter.alpha_us;
        CommPhase p = fused("push + pull", h == 1 ? shape.intra_tier : shape.inter_tier, n, S, fuse, [&](double s) {
          return parameter_server_us(n, per_host, k, s, alpha, line, line);
        });
        b.phases.push_back(p);
        if (settings.ps_sync_us > 0 && n > 1) {
          CommPhase sync;
          sync.name = "ps synchronisation";
          sync.tier = p.tier;
          sync.ranks = n;
          sync.calls = 1;
          sync.us = settings.ps_sync_us;
          b.phases.push_back(sync);
        }
        break;
      }
    }
  }
  double worst = -1;
  for (const auto& p : b.phases) {
    b.comm_us += p.us;
    if (p.us > worst) {
      worst = p.us;
      b.bottleneck = p.tier;
    }
  }
  b.hidden_us = std::min(b.comm_us, std::clamp(settings.overlap, 0.0, 1.0) * b.compute_us);
  b.iteration_us = b.compute_us + b.comm_us - b.hidden_us;
  b.samples_per_s = n * model.batch / (b.iteration_us * 1e-6);
}

}  // namespace schedlab::perf
