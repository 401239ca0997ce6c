// GPU catalog and cluster file readers.
#include "config/cluster_config.h"

#include "config/yaml_util.h"
#include "util/suggest.h"

namespace schedlab::config {

cluster::GpuCatalog load_catalog(const std::string& path) {
  YAML::Node root = load_yaml_file(path);
  At at{path, ""};
  check_keys(root, {"models"}, at);
  const auto& models = root["models"];
  if (!models.IsSequence() || models.size() == 0) fail(models, at / "models", "expected a non-empty list of GPU models");
  std::vector<cluster::GpuModel> out;
  for (std::size_t i = 0; i < models.size(); ++i) {
    const auto& m = models[i];
    At mat = at / ("models[" + std::to_string(i) + "]");
    check_keys(m, {"name", "generation", "memory_gb", "speed", "intra_link", "intra_gbps", "pcie_gbps"}, mat);
    for (const char* req : {"name", "generation", "speed", "intra_gbps"})
      if (!m[req]) fail(m, mat / req, "required key is missing");
    cluster::GpuModel g;
    g.name = get_string(m["name"], mat / "name");
    for (const auto& prev : out)
      if (prev.name == g.name) fail(m["name"], mat / "name", "GPU model '" + g.name + "' is listed twice");
    g.generation = static_cast<int>(get_int(m["generation"], mat / "generation", 1));
    if (m["memory_gb"]) g.memory_gb = get_positive(m["memory_gb"], mat / "memory_gb");
    g.speed = get_positive(m["speed"], mat / "speed");
    if (m["intra_link"]) g.intra_link = get_string(m["intra_link"], mat / "intra_link");
    g.intra_gbps = get_positive(m["intra_gbps"], mat / "intra_gbps");
    g.pcie_gbps = m["pcie_gbps"] ? get_positive(m["pcie_gbps"], mat / "pcie_gbps") : g.intra_gbps;
    out.push_back(std::move(g));
  }
  if (out.size() > cluster::kMaxModels) fail(models, at / "models", "at most 64 GPU models");
  cluster::GpuCatalog catalog(std::move(out));
  catalog.set_source_file(path);
  return catalog;
}

std::string catalog_path_of(const std::string& cluster_path) {
  YAML::Node root = load_yaml_file(cluster_path);
  At at{cluster_path, ""};
  require_map(root, at);
  if (!root["catalog"]) return resolve_path(cluster_path, "../gpus.yaml");
  return resolve_path(cluster_path, get_string(root["catalog"], at / "catalog"));
}

ClusterFile load_cluster(const std::string& path, const cluster::GpuCatalog& catalog) {
  YAML::Node root = load_yaml_file(path);
  At at{path, ""};
  check_keys(root, {"name", "catalog", "spine_gbps", "racks", "description"}, at);
  ClusterFile f;
  f.path = path;
  f.catalog_path = catalog_path_of(path);
  f.spec.name = root["name"] ? get_string(root["name"], at / "name") : std::string("cluster");
  if (root["spine_gbps"]) f.spec.spine_gbps = get_positive(root["spine_gbps"], at / "spine_gbps");
  const auto& racks = root["racks"];
  if (!racks.IsSequence() || racks.size() == 0) fail(racks, at / "racks", "expected a non-empty list of racks");
  std::uint64_t gpus = 0;
  for (std::size_t i = 0; i < racks.size(); ++i) {
    const auto& r = racks[i];
    At rat = at / ("racks[" + std::to_string(i) + "]");
    check_keys(r, {"name", "count", "uplink_gbps", "oversubscription", "hosts"}, rat);
    cluster::RackSpec rs;
    rs.name = r["name"] ? get_string(r["name"], rat / "name") : "rack" + std::to_string(i);
    if (r["count"]) rs.count = static_cast<std::uint32_t>(get_int(r["count"], rat / "count", 1));
    if (r["uplink_gbps"] && r["oversubscription"])
      fail(r, rat, "give either uplink_gbps or oversubscription, not both");
    if (r["uplink_gbps"]) rs.uplink_gbps = get_positive(r["uplink_gbps"], rat / "uplink_gbps");
    if (r["oversubscription"]) rs.oversubscription = get_positive(r["oversubscription"], rat / "oversubscription");
    const auto& hosts = r["hosts"];
    if (!hosts.IsSequence() || hosts.size() == 0) fail(hosts, rat / "hosts", "expected a non-empty list of host groups");
    for (std::size_t j = 0; j < hosts.size(); ++j) {
      const auto& h = hosts[j];
      At hat = rat / ("hosts[" + std::to_string(j) + "]");
      check_keys(h, {"count", "gpus", "model", "nic_gbps"}, hat);
      for (const char* req : {"count", "gpus", "model", "nic_gbps"})
        if (!h[req]) fail(h, hat / req, "required key is missing");
      cluster::HostGroupSpec g;
      g.count = static_cast<std::uint32_t>(get_int(h["count"], hat / "count", 1));
      auto ngpus = get_int(h["gpus"], hat / "gpus", 1);
      if (ngpus > 1024) fail(h["gpus"], hat / "gpus", "at most 1024 GPUs per host");
      g.gpus = static_cast<std::uint16_t>(ngpus);
      std::string model = get_string(h["model"], hat / "model");
      auto id = catalog.find(model);
      if (!id) fail(h["model"], hat / "model", unknown_name_message("GPU model", model, catalog.names()));
      g.model = *id;
      g.nic_gbps = get_positive(h["nic_gbps"], hat / "nic_gbps");
      gpus += std::uint64_t{g.count} * g.gpus * rs.count;
      rs.hosts.push_back(g);
    }
    f.spec.racks.push_back(std::move(rs));
  }
  if (gpus == 0) fail(racks, at / "racks", "the cluster has no GPU");
  return f;
}

}  // namespace schedlab::config
