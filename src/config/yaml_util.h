// Reading YAML with errors that point at the file and line: typed getters, and a check
// that every key of a map is known (a typo is an error naming the closest valid key).
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <vector>

namespace schedlab::config {

// Parses a file; a syntax error becomes InputError(file, line, "", ...).
YAML::Node load_yaml_file(const std::string& path);
long line_of(const YAML::Node& node);  // 1-based; 0 when unknown

// Where a node is, for messages: the file and the dotted path of keys leading to it.
struct At {
  const std::string& file;
  std::string path;
  At operator/(const std::string& key) const { return At{file, path.empty() ? key : path + "." + key}; }
};

void require_map(const YAML::Node& node, const At& at);
void check_keys(const YAML::Node& map, const std::vector<std::string>& allowed, const At& at);
[[noreturn]] void fail(const YAML::Node& node, const At& at, const std::string& what);

std::string get_string(const YAML::Node& node, const At& at);
double get_double(const YAML::Node& node, const At& at);
double get_positive(const YAML::Node& node, const At& at);
std::int64_t get_int(const YAML::Node& node, const At& at, std::int64_t min);
bool get_bool(const YAML::Node& node, const At& at);
// A scalar or a list of scalars.
std::vector<std::string> get_string_list(const YAML::Node& node, const At& at);
std::vector<double> get_double_list(const YAML::Node& node, const At& at);

// A name from a fixed set; unknown names list the valid ones.
std::string get_choice(const YAML::Node& node, const At& at, const std::vector<std::string>& valid);

// Joins `relative` to the folder of `file` unless it is absolute.
std::string resolve_path(const std::string& file, const std::string& relative);

}  // namespace schedlab::config
