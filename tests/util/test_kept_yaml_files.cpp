// Parsed files kept for forks: each load gets a tree of its own, with its line numbers.
#include <doctest/doctest.h>

#include <fstream>

#include "../support/scratch_dir.h"
#include "util/yaml_util.h"

using namespace schedlab;
using schedlab::testing::ScratchDir;

TEST_CASE("Config.KeptYamlFiles.a_kept_parse_is_taken_once_per_load_kept_with_its_lines_and_never_shared") {
  ScratchDir dir("kept-yaml");
  const std::string path = (dir.path / "cluster.yaml").string();
  std::ofstream(path) << "name: a\nracks: 2\n";

  config::keep_parsed_yaml_files(true);
  YAML::Node parents = config::load_yaml_file(path);  // what the sweep itself reads: twice
  (void)config::load_yaml_file(path);
  config::keep_parsed_yaml_files(false);
  parents["racks"] = 99;  // the parent's tree is its own: the kept copy does not change

  std::ofstream(path) << "name: changed\n";  // the kept copy was parsed before this
  YAML::Node taken = config::load_yaml_file(path);
  CHECK(taken["racks"].as<int>() == 2);
  CHECK(config::line_of(taken["racks"]) == 2);
  taken["racks"] = 7;
  YAML::Node second = config::load_yaml_file(path);  // one kept copy per load
  CHECK(second["racks"].as<int>() == 2);

  // Taken once each: the next load reads the file as it is now.
  YAML::Node again = config::load_yaml_file(path);
  CHECK(again["name"].as<std::string>() == "changed");
  CHECK(!again["racks"]);
}
