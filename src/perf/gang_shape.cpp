// Placement -> GangShape (see gang_shape.h for the capping rules).
#include "perf/gang_shape.h"

#include <algorithm>
#include <iterator>
#include <limits>

namespace schedlab::perf {

namespace {
bool is_nvlink(const cluster::GpuModel& m) { return m.intra_link.rfind("nvlink", 0) == 0; }
}  // namespace

GangShape make_gang_shape(const std::vector<ShapeHost>& hosts, const cluster::GpuCatalog& catalog,
                          const CalibrationProfile& profile, const CrossRackRate& cross_rack) {
  GangShape s;
  gang_shape_at(gang_hosts(hosts, catalog), profile, cross_rack, std::numeric_limits<double>::infinity(), s);
  return s;
}

GangHosts gang_hosts(const std::vector<ShapeHost>& hosts, const cluster::GpuCatalog& catalog) {
  GangHosts g;
  g.hosts = static_cast<int>(hosts.size());
  // The racks met so far: a gang spans few, so the usual case takes no allocation.
  cluster::RackId few_racks[16];
  std::size_t rack_count = 0;
  std::vector<cluster::RackId> more_racks;
  auto meet_rack = [&](cluster::RackId r) {
    if (std::find(few_racks, few_racks + std::min(rack_count, std::size(few_racks)), r) !=
            few_racks + std::min(rack_count, std::size(few_racks)) ||
        std::find(more_racks.begin(), more_racks.end(), r) != more_racks.end())
      return;
    if (rack_count < std::size(few_racks))
      few_racks[rack_count] = r;
    else
      more_racks.push_back(r);
    ++rack_count;
  };
  for (const auto& h : hosts) {
    g.gpus += h.gpus;
    g.min_host_gpus = std::min(g.min_host_gpus, h.gpus);
    g.max_host_gpus = std::max(g.max_host_gpus, h.gpus);
    if (std::find(g.gpu_models.begin(), g.gpu_models.end(), h.model) == g.gpu_models.end())
      g.gpu_models.push_back(h.model);
    meet_rack(h.rack);
    g.line = std::min(g.line, h.nic_gbps);
    const auto& m = catalog.model(h.model);
    g.all_nvlink = g.all_nvlink && is_nvlink(m);
    g.intra_cap = std::min(g.intra_cap, is_nvlink(m) ? m.intra_gbps : m.intra_gbps / 2);
    g.all_intra_busbw = g.all_intra_busbw && m.intra_busbw_gbps > 0;
    g.all_nic_busbw = g.all_nic_busbw && m.nic_busbw_gbps > 0;
    g.intra_busbw = std::min(g.intra_busbw, m.intra_busbw_gbps);
    g.nic_busbw = std::min(g.nic_busbw, m.nic_busbw_gbps);
  }
  g.racks = static_cast<int>(rack_count);
  std::sort(g.gpu_models.begin(), g.gpu_models.end());
  return g;
}

void gang_shape_at(const GangHosts& g, const CalibrationProfile& profile, const CrossRackRate& cross_rack,
                   double nic_cap, GangShape& s) {
  s.hosts = g.hosts;
  s.gpus = g.gpus;
  s.min_host_gpus = g.min_host_gpus;
  s.max_host_gpus = g.max_host_gpus;
  s.gpu_models.assign(g.gpu_models.begin(), g.gpu_models.end());
  s.racks = g.racks;
  // With no host there is no NIC to cap.
  double line = g.hosts > 0 ? std::min(g.line, nic_cap) : g.line;
  const bool any_host = g.hosts > 0;

  s.intra_tier = g.all_nvlink ? LinkTier::nvlink : LinkTier::pcie;
  s.intra = profile.tier(s.intra_tier);
  s.intra_beta_from = BetaSource::profile;
  if (s.intra.datasheet && g.all_intra_busbw && any_host) {
    s.intra.beta_gbps = g.intra_busbw;
    s.intra_beta_from = BetaSource::catalog;
  }
  if (g.intra_cap > 0 && g.intra_cap < s.intra.beta_gbps) {
    s.intra.beta_gbps = g.intra_cap;
    s.intra_beta_from = BetaSource::link_cap;
  }

  s.inter_tier = LinkTier::nic;
  if (s.racks > 1 && cross_rack.gbps < line) {
    line = cross_rack.gbps;
    s.inter_tier = cross_rack.tier;
  } else if (s.racks > 1) {
    // The NIC is still the narrowest, but the gang pays the rack tier's latency.
    s.inter_tier = LinkTier::rack;
  }
  s.inter = profile.tier(s.inter_tier);
  s.inter_beta_from = BetaSource::profile;
  if (s.inter.datasheet && g.all_nic_busbw && any_host) {
    s.inter.beta_gbps = g.nic_busbw;
    s.inter_beta_from = BetaSource::catalog;
  }
  if (s.hosts > 1) {
    double h = s.hosts, n = s.gpus;
    double bound = line * h * (n - 1) / ((h - 1) * n);
    if (bound < s.inter.beta_gbps && bound <= s.intra.beta_gbps) {
      s.inter.beta_gbps = bound;
      s.inter_beta_from = BetaSource::host_line;
    } else if (s.intra.beta_gbps < s.inter.beta_gbps) {
      s.inter.beta_gbps = s.intra.beta_gbps;
      s.inter_beta_from = BetaSource::intra;
    }
  }
  s.host_line_gbps = line;
}

std::vector<ShapeHost> shape_hosts(const cluster::Placement& placement, const cluster::Topology& topo) {
  std::vector<ShapeHost> out;
  std::vector<cluster::HostId> ids;
  for (const auto& t : placement.tasks) {
    int g = t.gpus > 0 ? t.gpus : 1;
    auto it = std::find(ids.begin(), ids.end(), t.host);
    if (it != ids.end()) {
      out[static_cast<std::size_t>(it - ids.begin())].gpus += g;
      continue;
    }
    const auto& info = topo.host(t.host);
    ids.push_back(t.host);
    out.push_back({info.model, g, info.nic_gbps, info.rack});
  }
  return out;
}

std::vector<cluster::RackId> placement_racks(const cluster::Placement& placement, const cluster::Topology& topo) {
  std::vector<cluster::RackId> racks;
  for (const auto& t : placement.tasks) racks.push_back(topo.host(t.host).rack);
  std::sort(racks.begin(), racks.end());
  racks.erase(std::unique(racks.begin(), racks.end()), racks.end());
  return racks;
}

CrossRackRate static_cross_rack_rate(const std::vector<cluster::RackId>& racks, const cluster::Topology& topo) {
  CrossRackRate r;
  r.gbps = std::numeric_limits<double>::infinity();
  r.tier = LinkTier::rack;
  std::size_t all_hosts = topo.hosts().size();
  for (cluster::RackId id : racks) {
    const auto& rack = topo.rack(id);
    if (rack.uplink_gbps > 0 && rack.hosts > 0) r.gbps = std::min(r.gbps, rack.uplink_gbps / rack.hosts);
  }
  if (topo.spine_gbps() > 0 && all_hosts > 0) {
    double spine = topo.spine_gbps() / static_cast<double>(all_hosts);
    if (spine < r.gbps) {
      r.gbps = spine;
      r.tier = LinkTier::spine;
    }
  }
  return r;
}

}  // namespace schedlab::perf
