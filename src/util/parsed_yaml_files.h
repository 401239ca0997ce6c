// Parsed configuration files set aside for forks. A sweep's cells are forks of the sweep: the
// sweep runner owns one of these, has the first cell's scenario loaded through it while it sets
// aside (each file read is then parsed a second time and that copy kept by path), and each
// cell, a fork with its own copy of this object, loads its scenario through it and takes those
// copies instead of parsing again. Parsing the scenario, cluster and GPU files was a third of
// a short sweep cell's work. Nothing else shares it: a load without one parses its file.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <unordered_map>
#include <vector>

namespace schedlab::util {

class ParsedYamlFiles {
 public:
  // While on, each file that load() reads is parsed a second time and that copy is kept.
  void set_aside(bool on) { setting_aside_ = on; }
  // The tree of `path`: a copy kept for it while one is left and not setting aside (its own
  // tree, line numbers and all, never shared with another load), else load_yaml_file(path).
  YAML::Node load(const std::string& path);

 private:
  bool setting_aside_ = false;
  // By path, one parsed copy per load made while setting aside: a scenario reads some files
  // more than once (the cluster file for its catalog's path, then for its hosts).
  std::unordered_map<std::string, std::vector<YAML::Node>> kept_;
};

// `files`' load of `path` when given, else load_yaml_file(path).
YAML::Node load_yaml_file(const std::string& path, ParsedYamlFiles* files);

}  // namespace schedlab::util
