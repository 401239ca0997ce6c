// Located YAML reading.
#include "config/yaml_util.h"

#include <filesystem>
#include <fstream>

#include "util/error.h"
#include "util/parse.h"
#include "util/suggest.h"

namespace schedlab::config {

YAML::Node load_yaml_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "", "cannot open file");
  try {
    return YAML::Load(in);
  } catch (const YAML::ParserException& e) {
    throw InputError(path, e.mark.line + 1, "", "malformed YAML: " + e.msg);
  }
}

long line_of(const YAML::Node& node) {
  if (!node.IsDefined()) return 0;
  auto m = node.Mark();
  return m.line < 0 ? 0 : m.line + 1;
}

void fail(const YAML::Node& node, const At& at, const std::string& what) {
  throw InputError(at.file, line_of(node), at.path, what);
}

void require_map(const YAML::Node& node, const At& at) {
  if (!node.IsMap()) fail(node, at, "expected a map of keys");
}

void check_keys(const YAML::Node& map, const std::vector<std::string>& allowed, const At& at) {
  require_map(map, at);
  for (const auto& kv : map) {
    std::string key = kv.first.as<std::string>();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string msg = "unknown key '" + key + "'";
    std::string near = closest_match(key, allowed);
    if (!near.empty()) msg += "; did you mean '" + near + "'?";
    msg += " valid: " + join(allowed, ", ");
    throw InputError(at.file, line_of(kv.first), (at / key).path, msg);
  }
}

std::string get_string(const YAML::Node& node, const At& at) {
  if (!node.IsScalar()) fail(node, at, "expected a single value");
  return node.Scalar();
}

double get_double(const YAML::Node& node, const At& at) {
  double v;
  if (!node.IsScalar() || !try_parse_double(node.Scalar(), v))
    fail(node, at, "expected a number, got '" + (node.IsScalar() ? node.Scalar() : std::string("a non-scalar")) + "'");
  return v;
}

double get_positive(const YAML::Node& node, const At& at) {
  double v = get_double(node, at);
  if (!(v > 0)) fail(node, at, "must be greater than 0, got " + node.Scalar());
  return v;
}

std::int64_t get_int(const YAML::Node& node, const At& at, std::int64_t min) {
  std::int64_t v;
  if (!node.IsScalar() || !try_parse_int(node.Scalar(), v))
    fail(node, at, "expected an integer, got '" + (node.IsScalar() ? node.Scalar() : std::string("a non-scalar")) + "'");
  if (v < min) fail(node, at, "must be at least " + std::to_string(min) + ", got " + node.Scalar());
  return v;
}

bool get_bool(const YAML::Node& node, const At& at) {
  std::string s = get_string(node, at);
  if (s == "true" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "no" || s == "off") return false;
  fail(node, at, "expected true or false, got '" + s + "'");
}

std::vector<std::string> get_string_list(const YAML::Node& node, const At& at) {
  std::vector<std::string> out;
  if (node.IsNull()) return out;
  if (node.IsScalar()) return {node.Scalar()};
  if (!node.IsSequence()) fail(node, at, "expected a value or a list of values");
  for (const auto& item : node) out.push_back(get_string(item, at));
  return out;
}

std::vector<double> get_double_list(const YAML::Node& node, const At& at) {
  std::vector<double> out;
  if (node.IsScalar()) return {get_double(node, at)};
  if (!node.IsSequence()) fail(node, at, "expected a list of numbers");
  for (const auto& item : node) out.push_back(get_double(item, at));
  return out;
}

std::string get_choice(const YAML::Node& node, const At& at, const std::vector<std::string>& valid) {
  std::string s = get_string(node, at);
  if (std::find(valid.begin(), valid.end(), s) == valid.end()) fail(node, at, unknown_name_message("value", s, valid));
  return s;
}

std::string resolve_path(const std::string& file, const std::string& relative) {
  std::filesystem::path p(relative);
  if (p.is_absolute()) return relative;
  return (std::filesystem::path(file).parent_path() / p).lexically_normal().string();
}

}  // namespace schedlab::config
