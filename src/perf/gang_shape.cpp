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
  s.hosts = static_cast<int>(hosts.size());
  s.gpus = 0;
  s.min_host_gpus = std::numeric_limits<int>::max();
  s.max_host_gpus = 0;
  // The racks met so far: a gang spans few, and this runs at every change of a shared link's
  // rate, so the usual case takes no allocation.
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
  double line = std::numeric_limits<double>::infinity();
  bool all_nvlink = true;
  double intra_cap = std::numeric_limits<double>::infinity();
  // The catalog's achieved figures, when every model of the gang has one (the slowest counts).
  double intra_busbw = std::numeric_limits<double>::infinity(), nic_busbw = intra_busbw;
  bool all_intra_busbw = true, all_nic_busbw = true;
  for (const auto& h : hosts) {
    s.gpus += h.gpus;
    s.min_host_gpus = std::min(s.min_host_gpus, h.gpus);
    s.max_host_gpus = std::max(s.max_host_gpus, h.gpus);
    if (std::find(s.gpu_models.begin(), s.gpu_models.end(), h.model) == s.gpu_models.end())
      s.gpu_models.push_back(h.model);
    meet_rack(h.rack);
    line = std::min(line, h.nic_gbps);
    const auto& m = catalog.model(h.model);
    all_nvlink = all_nvlink && is_nvlink(m);
    intra_cap = std::min(intra_cap, is_nvlink(m) ? m.intra_gbps : m.intra_gbps / 2);
    all_intra_busbw = all_intra_busbw && m.intra_busbw_gbps > 0;
    all_nic_busbw = all_nic_busbw && m.nic_busbw_gbps > 0;
    intra_busbw = std::min(intra_busbw, m.intra_busbw_gbps);
    nic_busbw = std::min(nic_busbw, m.nic_busbw_gbps);
  }
  s.racks = static_cast<int>(rack_count);
  std::sort(s.gpu_models.begin(), s.gpu_models.end());

  s.intra_tier = all_nvlink ? LinkTier::nvlink : LinkTier::pcie;
  s.intra = profile.tier(s.intra_tier);
  if (s.intra.datasheet && all_intra_busbw && !hosts.empty()) {
    s.intra.beta_gbps = intra_busbw;
    s.intra_beta_from = BetaSource::catalog;
  }
  if (intra_cap > 0 && intra_cap < s.intra.beta_gbps) {
    s.intra.beta_gbps = intra_cap;
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
  if (s.inter.datasheet && all_nic_busbw && !hosts.empty()) {
    s.inter.beta_gbps = nic_busbw;
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
    s.host_line_gbps = line;
  } else {
    s.host_line_gbps = line;
  }
  return s;
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
