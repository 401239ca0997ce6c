// Options travel to the policy as JSON: YAML scalars become numbers or booleans where they
// read as such (the policy sees `threshold: 3600` as 3600, not "3600"), strings otherwise.
#include "config/external_scheduler_config.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "util/parse.h"

namespace schedlab::config {

namespace {
nlohmann::json to_json(const YAML::Node& n, const util::At& at) {
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json o = nlohmann::json::object();
      for (const auto& kv : n) o[util::key_of(kv.first, at)] = to_json(kv.second, at / util::key_of(kv.first, at));
      return o;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json a = nlohmann::json::array();
      for (const auto& v : n) a.push_back(to_json(v, at));
      return a;
    }
    case YAML::NodeType::Scalar: {
      const std::string& s = n.Scalar();
      if (s == "true" || s == "false") return s == "true";
      std::int64_t i;
      if (util::try_parse_int(s, i)) return i;
      double d;
      if (util::try_parse_double(s, d) && std::isfinite(d)) return d;
      return s;
    }
    default: return nullptr;
  }
}
}  // namespace

sched::ExternalConfig read_external_scheduler(const YAML::Node& n, const util::At& at) {
  sched::ExternalConfig c;
  util::require_map(n, at);
  util::check_keys(n, {"command", "timeout_s", "on_invalid", "options"}, at);
  c.file = at.file;
  c.line = util::line_of(n);
  c.field = at.path;
  if (!n["command"]) fail(n, at, "needs command: the policy's command line, e.g. \"python3 my_policy.py\"");
  c.command = util::get_string(n["command"], at / "command");
  if (c.command.find_first_not_of(" \t") == std::string::npos) fail(n["command"], at / "command", "is empty");
  if (n["timeout_s"]) {
    c.timeout_s = util::get_double(n["timeout_s"], at / "timeout_s");
    if (!(c.timeout_s > 0 && c.timeout_s <= 86400))
      fail(n["timeout_s"], at / "timeout_s", fmt::format("{} is out of range (0, 86400] seconds", c.timeout_s));
  }
  if (n["on_invalid"]) {
    const auto v = util::get_string(n["on_invalid"], at / "on_invalid");
    if (v != "stop" && v != "skip") fail(n["on_invalid"], at / "on_invalid", "'" + v + "': expected stop or skip");
    c.skip_invalid = v == "skip";
  }
  if (const auto& o = n["options"]) {
    util::require_map(o, at / "options");
    c.options_json = to_json(o, at / "options").dump();
  }
  return c;
}

}  // namespace schedlab::config
