// GPU catalog and cluster file readers.
#include "config/cluster_config.h"

#include <fmt/format.h>

#include "cluster/resources.h"
#include "util/parsed_yaml_files.h"
#include "util/yaml_util.h"
#include "util/suggest.h"

namespace schedlab::config {

namespace {
double get_gbps(const YAML::Node& node, const util::At& at) {
  return util::get_real_in(node, at, kMinLinkGbps, kMaxLinkGbps);
}
}  // namespace

cluster::GpuCatalog load_catalog(const std::string& path, util::ParsedYamlFiles* files) {
  YAML::Node root = util::load_yaml_file(path, files);
  return util::with_yaml_errors(path, [&] {
    util::At at{path, ""};
    util::check_keys(root, {"models"}, at);
    const auto& models = root["models"];
    if (!models.IsSequence() || models.size() == 0)
      util::fail(models, at / "models", "expected a non-empty list of GPU models");
    std::vector<cluster::GpuModel> out;
    for (std::size_t i = 0; i < models.size(); ++i) {
      const auto& m = models[i];
      util::At mat = at / ("models[" + std::to_string(i) + "]");
      util::check_keys(m,
                       {"name", "generation", "memory_gb", "speed", "intra_link", "intra_gbps", "pcie_gbps",
                        "intra_busbw_gbps", "intra_source", "nic_gbps", "nic_busbw_gbps", "nic_source"},
                       mat);
      for (const char* req : {"name", "generation", "speed", "intra_gbps"})
        if (!m[req]) util::fail(m, mat / req, "required key is missing");
      cluster::GpuModel g;
      g.name = util::get_string(m["name"], mat / "name");
      for (const auto& prev : out)
        if (prev.name == g.name) util::fail(m["name"], mat / "name", "GPU model '" + g.name + "' is listed twice");
      g.generation = util::get_int_in<int>(m["generation"], mat / "generation", 1, 10000);  // compute capability x10
      if (m["memory_gb"]) g.memory_gb = util::get_real_in(m["memory_gb"], mat / "memory_gb", 0, kMaxMemoryGb, true);
      g.speed = util::get_real_in(m["speed"], mat / "speed", kMinRelativeSpeed, kMaxRelativeSpeed);
      if (m["intra_link"]) g.intra_link = util::get_string(m["intra_link"], mat / "intra_link");
      g.intra_gbps = get_gbps(m["intra_gbps"], mat / "intra_gbps");
      g.pcie_gbps = m["pcie_gbps"] ? get_gbps(m["pcie_gbps"], mat / "pcie_gbps") : g.intra_gbps;
      // A figure is only as good as its source: each achieved figure comes with one.
      if (m["intra_busbw_gbps"]) {
        if (!m["intra_source"])
          util::fail(m, mat / "intra_source", "required with intra_busbw_gbps: where the figure comes from");
        g.intra_busbw_gbps = get_gbps(m["intra_busbw_gbps"], mat / "intra_busbw_gbps");
      }
      if (m["intra_source"]) g.intra_source = util::get_string(m["intra_source"], mat / "intra_source");
      if (m["nic_gbps"]) g.nic_gbps = get_gbps(m["nic_gbps"], mat / "nic_gbps");
      if (m["nic_busbw_gbps"]) g.nic_busbw_gbps = get_gbps(m["nic_busbw_gbps"], mat / "nic_busbw_gbps");
      if ((m["nic_gbps"] || m["nic_busbw_gbps"]) && !m["nic_source"])
        util::fail(m, mat / "nic_source", "required with nic_gbps and nic_busbw_gbps: where the figures come from");
      if (m["nic_source"]) g.nic_source = util::get_string(m["nic_source"], mat / "nic_source");
      out.push_back(std::move(g));
      // Checked as the list grows: the catalog itself refuses more, and says so less helpfully.
      if (out.size() > cluster::kMaxModels) util::fail(m, mat, "a GPU catalog holds at most 63 models");
    }
    cluster::GpuCatalog catalog(std::move(out));
    catalog.set_source_file(path);
    return catalog;
  });
}

std::string catalog_path_of(const std::string& cluster_path, util::ParsedYamlFiles* files) {
  YAML::Node root = util::load_yaml_file(cluster_path, files);
  return util::with_yaml_errors(cluster_path, [&] {
    util::At at{cluster_path, ""};
    util::require_map(root, at);
    if (!root["catalog"]) return util::resolve_path(cluster_path, "../gpus.yaml");
    std::string path = util::resolve_path(cluster_path, util::get_string(root["catalog"], at / "catalog"));
    // Checked here, where the file is named: an empty name resolves to the cluster's own folder.
    util::require_file(path, root["catalog"], at / "catalog");
    return path;
  });
}

ClusterFile load_cluster(const std::string& path, const cluster::GpuCatalog& catalog, util::ParsedYamlFiles* files) {
  YAML::Node root = util::load_yaml_file(path, files);
  return util::with_yaml_errors(path, [&] {
    util::At at{path, ""};
    util::check_keys(root, {"name", "catalog", "spine_gbps", "racks", "description"}, at);
    ClusterFile f;
    f.path = path;
    f.catalog_path = catalog_path_of(path, files);
    f.spec.name = root["name"] ? util::get_string(root["name"], at / "name") : std::string("cluster");
    if (root["spine_gbps"]) f.spec.spine_gbps = get_gbps(root["spine_gbps"], at / "spine_gbps");
    const auto& racks = root["racks"];
    if (!racks.IsSequence() || racks.size() == 0) util::fail(racks, at / "racks", "expected a non-empty list of racks");
    // Counted as the file is read, so that the message points at the count that crossed the limit.
    // Each factor is at most 2^32 and each partial sum at most the limit: no product overflows.
    std::uint64_t gpus = 0, hosts_total = 0;
    auto too_big = [&](const YAML::Node& n, const util::At& where, std::uint64_t at_least) {
      util::fail(n, where,
                 fmt::format("the cluster would have at least {} GPUs, more than the limit of {} (see README.md, "
                             "\"Cluster files\")",
                             at_least, kMaxClusterGpus));
    };
    auto too_many_hosts = [&](const YAML::Node& n, const util::At& where, std::uint64_t at_least) {
      util::fail(n, where,
                 fmt::format("the cluster would have at least {} hosts, more than the limit of {} (see README.md, "
                             "\"Cluster files\")",
                             at_least, kMaxClusterHosts));
    };
    for (std::size_t i = 0; i < racks.size(); ++i) {
      const auto& r = racks[i];
      util::At rat = at / ("racks[" + std::to_string(i) + "]");
      util::check_keys(r, {"name", "count", "uplink_gbps", "oversubscription", "hosts"}, rat);
      cluster::RackSpec rs;
      rs.name = r["name"] ? util::get_string(r["name"], rat / "name") : "rack" + std::to_string(i);
      if (r["count"]) rs.count = util::get_count(r["count"], rat / "count");
      if (r["uplink_gbps"] && r["oversubscription"])
        util::fail(r, rat, "give either uplink_gbps or oversubscription, not both");
      if (r["uplink_gbps"]) rs.uplink_gbps = get_gbps(r["uplink_gbps"], rat / "uplink_gbps");
      if (r["oversubscription"])
        rs.oversubscription =
            util::get_real_in(r["oversubscription"], rat / "oversubscription", 0, kMaxOversubscription, true);
      if (!r["hosts"]) util::fail(r, rat / "hosts", "required key is missing (a list of host groups)");
      const auto& hosts = r["hosts"];
      if (!hosts.IsSequence() || hosts.size() == 0)
        util::fail(hosts, rat / "hosts", "expected a non-empty list of host groups");
      std::uint64_t rack_gpus = 0, rack_hosts = 0;
      for (std::size_t j = 0; j < hosts.size(); ++j) {
        const auto& h = hosts[j];
        util::At hat = rat / ("hosts[" + std::to_string(j) + "]");
        util::check_keys(h, {"count", "gpus", "model", "nic_gbps", "cpus", "mem_gb"}, hat);
        for (const char* req : {"count", "gpus", "nic_gbps"})
          if (!h[req]) util::fail(h, hat / req, "required key is missing");
        cluster::HostGroupSpec g;
        g.count = util::get_count(h["count"], hat / "count");
        g.gpus = util::get_int_in<std::uint16_t>(h["gpus"], hat / "gpus", 0, kMaxGpusPerHost);
        if (g.gpus > 0) {
          if (!h["model"]) util::fail(h, hat / "model", "required key is missing (the hosts' GPU model)");
          std::string model = util::get_string(h["model"], hat / "model");
          auto id = catalog.find(model);
          if (!id)
            util::fail(h["model"], hat / "model", util::unknown_name_message("GPU model", model, catalog.names()));
          g.model = *id;
        } else {
          if (h["model"]) util::fail(h["model"], hat / "model", "hosts without GPUs (gpus: 0) have no GPU model");
          for (const char* req : {"cpus", "mem_gb"})
            if (!h[req]) util::fail(h, hat / req, "required key is missing (hosts without GPUs have no default)");
        }
        g.nic_gbps = get_gbps(h["nic_gbps"], hat / "nic_gbps");
        // CPUs and memory per host: given, else the per-GPU defaults (kDefaultHostCpusPerGpu).
        const std::string cpus_field = (hat / "cpus").path, mem_field = (hat / "mem_gb").path;
        g.cpu_milli =
            h["cpus"] ? cluster::checked_cpu_milli(util::get_double(h["cpus"], hat / "cpus"),
                                                   util::FieldContext{path, util::line_of(h["cpus"]), cpus_field}, true)
                      : static_cast<std::uint32_t>(g.gpus * kDefaultHostCpusPerGpu * cluster::kMilliPerCpu);
        g.mem_mib = h["mem_gb"] ? cluster::checked_mem_mib(
                                      util::get_double(h["mem_gb"], hat / "mem_gb"),
                                      util::FieldContext{path, util::line_of(h["mem_gb"]), mem_field}, true)
                                : static_cast<std::uint32_t>(g.gpus * kDefaultHostMemGbPerGpu * cluster::kMibPerGb);
        rack_gpus += std::uint64_t{g.count} * g.gpus;
        if (rack_gpus > kMaxClusterGpus) too_big(h["count"], hat / "count", rack_gpus);
        rack_hosts += g.count;
        if (rack_hosts > kMaxClusterHosts) too_many_hosts(h["count"], hat / "count", rack_hosts);
        rs.hosts.push_back(g);
      }
      gpus += rack_gpus * rs.count;
      if (gpus > kMaxClusterGpus) too_big(r["count"] ? r["count"] : r, r["count"] ? rat / "count" : rat, gpus);
      hosts_total += rack_hosts * rs.count;
      if (hosts_total > kMaxClusterHosts)
        too_many_hosts(r["count"] ? r["count"] : r, r["count"] ? rat / "count" : rat, hosts_total);
      f.spec.racks.push_back(std::move(rs));
    }
    return f;
  });
}

}  // namespace schedlab::config
