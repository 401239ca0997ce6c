// Reading YAML with errors that point at the file and line: typed getters, and a check
// that every key of a map is known (a typo is an error naming the closest valid key).
#pragma once

#include <yaml-cpp/yaml.h>

#include <concepts>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "util/checked.h"

namespace schedlab::util {

// A configuration file larger than this is refused before it is read: every file we know
// (clusters, catalogs, models, profiles, scenarios) is a few KiB, and yaml-cpp holds a whole
// document in memory several times over.
inline constexpr std::uintmax_t kMaxConfigFileBytes = 64u << 20;

// What is wrong with `path` as a file to read, or "" when nothing is: "no such file", "is a
// folder, expected a file", "is not a regular file" (unless `any_kind`: a pipe or a device is
// then fine), "cannot open file: ...". For callers that name the option the file came from.
std::string file_problem(const std::string& path, bool any_kind = false);
// The text of a configuration file. A missing, unreadable or oversized file, a folder, a
// device or a name the system refuses (too long) is an InputError naming the file; no
// filesystem or stream exception escapes.
std::string read_config_file(const std::string& path);

// YAML aliases (`*name`) share the anchored node, so a kilobyte of aliases nested a few levels
// can stand for billions of nodes, and whatever later walks the tree (run.yaml, an external
// policy's options as JSON) never ends. parse_yaml therefore counts, once, the nodes that
// aliases stand for: more than this many in one document is an error. Real files use aliases
// for a few shared settings (hundreds of nodes); a file without aliases is not limited by it.
inline constexpr std::uint64_t kMaxYamlAliasNodes = 1'000'000;
// Lists and maps nested within each other, counted with aliases expanded: the same bound that
// yaml-cpp 0.7 puts on a document as written (it refuses 500), so that no later recursive
// walk of the tree goes deeper than a walk of a file without aliases.
inline constexpr int kMaxYamlNesting = 499;

// Parses YAML text: the one YAML load every file and --set value goes through. A syntax error
// (nesting too deep included) becomes InputError(name, line, "", ...); so do a key given twice
// in one map (at the second one's line, naming the first one's), a second document, an alias
// of a node that contains it, and aliases beyond kMaxYamlAliasNodes or kMaxYamlNesting.
YAML::Node parse_yaml(const std::string& text, const std::string& name);
// Both of the above.
YAML::Node load_yaml_file(const std::string& path);
long line_of(const YAML::Node& node);  // 1-based; 0 when unknown

// Runs `read` over a document of `file`; a yaml-cpp exception we did not foresee (a conversion,
// a missing node) still becomes a located InputError instead of an "internal error".
template <class F>
auto with_yaml_errors(const std::string& file, F&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const YAML::Exception& e) {
    throw InputError(file, e.mark.line >= 0 ? e.mark.line + 1 : 0, "", "unexpected YAML structure: " + e.msg);
  }
}

// Where a node is, for messages: the file and the dotted path of keys leading to it.
struct At {
  const std::string& file;
  std::string path;
  At operator/(const std::string& key) const { return At{file, path.empty() ? key : path + "." + key}; }
};

// Checks that `path`, named by `node`, is a file that can be read: a missing file, a folder or a
// name the system refuses is reported at the node. `any_kind` admits pipes and devices (traces
// may be streamed); configuration files must be regular files.
void require_file(const std::string& path, const YAML::Node& node, const At& at, bool any_kind = false);

void require_map(const YAML::Node& node, const At& at);
// A map key as text; a list or map used as a key is an error at its line.
std::string key_of(const YAML::Node& key, const At& at);
void check_keys(const YAML::Node& map, const std::vector<std::string>& allowed, const At& at);
[[noreturn]] void fail(const YAML::Node& node, const At& at, const std::string& what);

std::string get_string(const YAML::Node& node, const At& at);
double get_double(const YAML::Node& node, const At& at);
double get_positive(const YAML::Node& node, const At& at);
std::int64_t get_int(const YAML::Node& node, const At& at, std::int64_t min);
// An integer into T within [lo, hi], through checked_int: out of range is an error naming the range.
template <std::integral T>
T get_int_in(const YAML::Node& node, const At& at, T lo, T hi = std::numeric_limits<T>::max());
// A count: 1 to hi, within 32 bits.
std::uint32_t get_count(const YAML::Node& node, const At& at,
                        std::uint32_t hi = std::numeric_limits<std::uint32_t>::max());
// A finite number within [lo, hi] (lo excluded when lo_open), through checked_real.
double get_real_in(const YAML::Node& node, const At& at, double lo, double hi, bool lo_open = false);
bool get_bool(const YAML::Node& node, const At& at);
// A scalar or a list of scalars.
std::vector<std::string> get_string_list(const YAML::Node& node, const At& at);
std::vector<double> get_double_list(const YAML::Node& node, const At& at);

// A name from a fixed set; unknown names list the valid ones.
std::string get_choice(const YAML::Node& node, const At& at, const std::vector<std::string>& valid);

template <std::integral T>
T get_int_in(const YAML::Node& node, const At& at, T lo, T hi) {
  const std::int64_t v = get_int(node, at, std::numeric_limits<std::int64_t>::min());
  const std::string field = at.path;
  return checked_int<T>(v, FieldContext{at.file, line_of(node), field}, lo, hi);
}

// Joins `relative` to the folder of `file` unless it is absolute.
std::string resolve_path(const std::string& file, const std::string& relative);

}  // namespace schedlab::util
