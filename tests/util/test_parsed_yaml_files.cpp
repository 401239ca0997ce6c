// Parsed files set aside for forks: each load gets a tree of its own, with its line numbers,
// and only loads through the object that set them aside take them.
#include <doctest/doctest.h>

#include <fstream>

#include "../support/scratch_dir.h"
#include "util/parsed_yaml_files.h"
#include "util/yaml_util.h"

using namespace schedlab;
using schedlab::testing::ScratchDir;

TEST_CASE("Config.ParsedYamlFiles.a_set_aside_parse_is_taken_once_per_load_with_its_lines_never_shared") {
  ScratchDir dir("parsed-yaml");
  const std::string path = (dir.path / "cluster.yaml").string();
  std::ofstream(path) << "name: a\nracks: 2\n";

  util::ParsedYamlFiles files;
  files.set_aside(true);
  YAML::Node parents = files.load(path);  // what the sweep itself reads: twice
  (void)files.load(path);
  files.set_aside(false);
  parents["racks"] = 99;  // the parent's tree is its own: the kept copy does not change

  std::ofstream(path) << "name: changed\n";  // the kept copy was parsed before this
  YAML::Node taken = util::load_yaml_file(path, &files);
  CHECK(taken["racks"].as<int>() == 2);
  CHECK(util::line_of(taken["racks"]) == 2);
  taken["racks"] = 7;
  YAML::Node second = files.load(path);  // one kept copy per load
  CHECK(second["racks"].as<int>() == 2);

  // Taken once each: the next load reads the file as it is now.
  YAML::Node again = files.load(path);
  CHECK(again["name"].as<std::string>() == "changed");
  CHECK(!again["racks"]);
}

TEST_CASE("Config.ParsedYamlFiles.a_load_without_them_parses_the_file_as_it_is") {
  ScratchDir dir("parsed-yaml-none");
  const std::string path = (dir.path / "cluster.yaml").string();
  std::ofstream(path) << "name: a\n";
  util::ParsedYamlFiles files;
  files.set_aside(true);
  (void)files.load(path);
  files.set_aside(false);
  std::ofstream(path) << "name: b\n";
  // No process-wide cache: a plain load, or one given no files, never sees the copy set aside.
  CHECK(util::load_yaml_file(path)["name"].as<std::string>() == "b");
  CHECK(util::load_yaml_file(path, nullptr)["name"].as<std::string>() == "b");
  CHECK(files.load(path)["name"].as<std::string>() == "a");
}
