// Located YAML reading.
#include "config/yaml_util.h"

#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "util/error.h"
#include "util/input_files.h"
#include "util/parse.h"
#include "util/suggest.h"

namespace schedlab::config {

namespace fs = std::filesystem;

// Uses the error_code forms throughout: a name too long or a loop of links must not throw.
std::string file_problem(const std::string& path, bool any_kind) {
  if (path.empty()) return "no file name given";
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec) {
    if (ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory) return "no such file";
    return "cannot open file: " + ec.message();
  }
  if (fs::is_directory(st)) return "is a folder, expected a file";
  if (!any_kind && !fs::is_regular_file(st)) return "is not a regular file";
  return "";
}

std::string read_config_file(const std::string& path) {
  if (std::string problem = file_problem(path, false); !problem.empty()) {
    throw InputError(path, 0, "", problem == "no such file" ? "cannot open file (no such file)" : problem);
  }
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > kMaxConfigFileBytes)
    throw InputError(path, 0, "",
                     fmt::format("file is {} bytes, more than the {} MiB a configuration file may have", size,
                                 kMaxConfigFileBytes >> 20));
  note_input_file(path);
  try {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, 0, "", "cannot open file");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw InputError(path, 0, "", "cannot read file");
    return std::move(text).str();
  } catch (const std::ios_base::failure& e) {  // libstdc++ throws from underflow on read errors
    throw InputError(path, 0, "", std::string("cannot read file: ") + e.what());
  }
}

YAML::Node parse_yaml(const std::string& text, const std::string& name) {
  try {
    return YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {
    throw InputError(name, e.mark.line + 1, "",
                     fmt::format("YAML nested too deeply (more than {} levels of lists and maps)", e.depth() - 1));
  } catch (const YAML::ParserException& e) {
    throw InputError(name, e.mark.line + 1, "", "malformed YAML: " + e.msg);
  } catch (const YAML::Exception& e) {
    throw InputError(name, e.mark.line >= 0 ? e.mark.line + 1 : 0, "", "malformed YAML: " + e.msg);
  }
}

namespace {
bool keeping_parsed = false;
// By path, one parsed copy per load made while keeping: a scenario reads some files more than
// once (the cluster file for its catalog's path, then for its hosts), and a fork does the same.
std::unordered_map<std::string, std::vector<YAML::Node>>& kept_parsed() {
  static std::unordered_map<std::string, std::vector<YAML::Node>> kept;
  return kept;
}
}  // namespace

void keep_parsed_yaml_files(bool on) { keeping_parsed = on; }

YAML::Node load_yaml_file(const std::string& path) {
  auto& kept = kept_parsed();
  if (!keeping_parsed) {
    if (auto it = kept.find(path); it != kept.end() && !it->second.empty()) {
      YAML::Node node = it->second.back();
      it->second.pop_back();
      return node;
    }
  }
  const std::string text = read_config_file(path);
  if (keeping_parsed) kept[path].push_back(parse_yaml(text, path));
  return parse_yaml(text, path);
}

void require_file(const std::string& path, const YAML::Node& node, const At& at, bool any_kind) {
  std::string problem = file_problem(path, any_kind);
  if (problem.empty()) return;
  if (problem == "no such file") fail(node, at, "no such file '" + path + "'");
  fail(node, at, "'" + path + "': " + problem);
}

std::string key_of(const YAML::Node& key, const At& at) {
  if (!key.IsScalar()) fail(key, at, "a key must be a plain name, not a list or a map");
  return key.Scalar();
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
    std::string key = key_of(kv.first, at);
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

std::uint32_t get_count(const YAML::Node& node, const At& at, std::uint32_t hi) {
  return get_int_in<std::uint32_t>(node, at, 1, hi);
}

double get_real_in(const YAML::Node& node, const At& at, double lo, double hi, bool lo_open) {
  const double v = get_double(node, at);
  const std::string field = at.path;
  return checked_real(v, FieldContext{at.file, line_of(node), field}, lo, hi, lo_open);
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
