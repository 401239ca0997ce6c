// The strict field reading of JSON from outside, shared by the protocol, the API and the journal.
#include "emu/json_fields.h"

#include <fmt/format.h>

#include <cmath>

namespace schedlab::emu {

using nlohmann::json;

namespace {

const char* json_type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array";
    case json::value_t::string:
      return "a string";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "an integer";
    case json::value_t::number_float:
      return "a number";
    case json::value_t::binary:
      return "binary";
    case json::value_t::discarded:
      break;
  }
  return "nothing";
}

}  // namespace

// What a value is, for "expected X, got Y": short values are quoted, others named by type.
std::string describe_value(const json& v) {
  if (v.is_number() || v.is_boolean() || v.is_null()) return dump_json(v);
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (s.size() <= 32) return dump_json(v);
  }
  return json_type_name(v);
}

std::string dump_json(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// --- FieldReader ----------------------------------------------------------------------------

FieldReader::FieldReader(const json& object, std::string path) : obj_(object), path_(std::move(path)) {
  if (!obj_.is_object())
    fail(path_.empty() ? std::string("body") : path_, fmt::format("expected an object, got {}", describe_value(obj_)));
}

std::string FieldReader::field_path(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

std::string FieldReader::element_path(const std::string& array_path, std::size_t index) {
  return fmt::format("{}[{}]", array_path, index);
}

void FieldReader::fail(const std::string& field, const std::string& what, int status) {
  throw ProtocolException(ProtocolError{status, field.empty() ? what : field + ": " + what});
}

bool FieldReader::has(std::string_view key) const {
  auto it = obj_.find(key);
  return it != obj_.end() && !it->is_null();
}

const json& FieldReader::at(std::string_view key) const {
  auto it = obj_.find(key);
  if (it == obj_.end() || it->is_null()) fail(field_path(key), "missing");
  return *it;
}

std::string FieldReader::string(std::string_view key) const {
  const json& v = at(key);
  if (!v.is_string()) fail(field_path(key), fmt::format("expected a string, got {}", describe_value(v)));
  return v.get<std::string>();
}

std::string FieldReader::name(std::string_view key) const {
  std::string s = string(key);
  if (s.empty()) fail(field_path(key), "expected a non-empty string");
  return s;
}

bool FieldReader::boolean(std::string_view key) const {
  const json& v = at(key);
  if (!v.is_boolean()) fail(field_path(key), fmt::format("expected true or false, got {}", describe_value(v)));
  return v.get<bool>();
}

std::uint64_t FieldReader::uint(std::string_view key, std::uint64_t max) const {
  const json& v = at(key);
  // Only integer tokens: 2.0 and 1e3 are numbers of another kind, and a value beyond 64 bits
  // arrives here as a floating-point number, so it is refused rather than rounded.
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > max) fail(field_path(key), fmt::format("{} is out of range [0, {}]", u, max));
    return u;
  }
  if (v.is_number_integer()) fail(field_path(key), fmt::format("expected an unsigned integer, got {}", describe_value(v)));
  fail(field_path(key), fmt::format("expected an unsigned integer, got {}", describe_value(v)));
}

std::uint32_t FieldReader::uint32(std::string_view key) const {
  return static_cast<std::uint32_t>(uint(key, std::numeric_limits<std::uint32_t>::max()));
}

std::int64_t FieldReader::integer(std::string_view key, std::int64_t min, std::int64_t max) const {
  const json& v = at(key);
  std::int64_t i = 0;
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      fail(field_path(key), fmt::format("{} is out of range [{}, {}]", u, min, max));
    i = static_cast<std::int64_t>(u);
  } else if (v.is_number_integer()) {
    i = v.get<std::int64_t>();
  } else {
    fail(field_path(key), fmt::format("expected an integer, got {}", describe_value(v)));
  }
  if (i < min || i > max) fail(field_path(key), fmt::format("{} is out of range [{}, {}]", i, min, max));
  return i;
}

double FieldReader::number(std::string_view key, double min, double max) const {
  const json& v = at(key);
  if (!v.is_number()) fail(field_path(key), fmt::format("expected a number, got {}", describe_value(v)));
  const double d = v.get<double>();
  if (!std::isfinite(d) || d < min || d > max)
    fail(field_path(key), fmt::format("{} is out of range [{}, {}]", dump_json(v), min, max));
  return d;
}

const json& FieldReader::array(std::string_view key) const {
  const json& v = at(key);
  if (!v.is_array()) fail(field_path(key), fmt::format("expected an array, got {}", describe_value(v)));
  return v;
}

FieldReader FieldReader::object(std::string_view key) const { return FieldReader(at(key), field_path(key)); }

std::vector<std::string> FieldReader::strings(std::string_view key) const {
  const json& a = array(key);
  std::vector<std::string> out;
  out.reserve(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_string())
      fail(element_path(field_path(key), i), fmt::format("expected a string, got {}", describe_value(a[i])));
    out.push_back(a[i].get<std::string>());
  }
  return out;
}

std::map<std::string, std::string> FieldReader::string_map(std::string_view key) const {
  const json& o = at(key);
  if (!o.is_object()) fail(field_path(key), fmt::format("expected an object, got {}", describe_value(o)));
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : o.items()) {
    if (!v.is_string()) fail(field_path(key) + "." + k, fmt::format("expected a string, got {}", describe_value(v)));
    out.emplace(k, v.get<std::string>());
  }
  return out;
}

FieldReader element_reader(const json& array, std::size_t index, const std::string& array_path) {
  return FieldReader(array.at(index), FieldReader::element_path(array_path, index));
}

}  // namespace schedlab::emu
