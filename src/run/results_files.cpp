#include "run/results_files.h"

#include <fstream>

#include <yaml-cpp/yaml.h>

#include "util/error.h"

namespace schedlab::run {

void write_file(const std::string& path, const std::function<void(std::ostream&)>& body) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw util::InputError(path, 0, "", "cannot write");
  body(out);
  if (!out) throw util::InputError(path, 0, "", "write failed");
}

void write_run_yaml(std::ostream& out, const config::Scenario& sc) {
  YAML::Node run = YAML::Clone(sc.resolved);
  run["seed"] = sc.seed;
  YAML::Emitter e;
  e << YAML::BeginMap << YAML::Key << "schedlab_version" << YAML::Value << SCHEDLAB_VERSION << YAML::Key
    << "scenario_file" << YAML::Value << sc.file << YAML::Key << "cluster_file" << YAML::Value << sc.cluster_file
    << YAML::Key << "catalog_file" << YAML::Value << sc.catalog_file << YAML::Key << "resolved" << YAML::Value << run
    << YAML::EndMap;
  out << e.c_str() << "\n";
}

}  // namespace schedlab::run
