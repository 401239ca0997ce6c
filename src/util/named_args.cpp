// Reading named arguments with their places (see named_args.h).
#include "util/named_args.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "util/checked.h"
#include "util/error.h"
#include "util/parse.h"
#include "util/suggest.h"

namespace schedlab::util {

NamedArgs::NamedArgs(std::initializer_list<std::pair<const std::string, std::string>> scalars) {
  for (const auto& [name, text] : scalars) values.emplace(name, ArgValue(text));
}

const ArgValue* NamedArgs::find(const std::string& name) const {
  auto it = values.find(name);
  return it == values.end() ? nullptr : &it->second;
}

ArgReader::ArgReader(const NamedArgs& args, ArgsOwner owner, std::vector<std::string> known)
    : args_(&args), owner_(std::move(owner)) {
  for (const auto& [name, value] : args.values) {
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    if (known.empty() && !owner_.takes_none.empty())
      fail(name, value, fmt::format("unknown {} '{}'; {}", owner_.noun, name, owner_.takes_none));
    fail(name, value, unknown_name_message(owner_.noun, name, known));
  }
}

std::string ArgReader::field(const std::string& name) const {
  const std::string& b = owner_.base;
  std::string f = b.empty() ? name : b.rfind("--", 0) == 0 ? b + " " + name : b + "." + name;
  return f + owner_.suffix;
}

void ArgReader::fail(const std::string& name, const ArgValue& value, const std::string& what) const {
  throw InputError(args_->file, value.line, field(name), what);
}

void ArgReader::fail(const std::string& name, const std::string& what) const {
  const ArgValue* v = find(name);
  throw InputError(args_->file, v ? v->line : args_->line, field(name), what);
}

const std::string& ArgReader::scalar(const std::string& name, const ArgValue& v) const {
  if (v.shape != ArgValue::Shape::scalar) fail(name, v, "expected a single value");
  return v.text;
}

double ArgReader::number(const std::string& name, const ArgValue& v, const std::string& text) const {
  double x;
  if (!try_parse_double(trim(text), x)) fail(name, v, fmt::format("'{}' is not a number", trim(text)));
  return x;
}

std::string ArgReader::text(const std::string& name, const std::string& fallback) const {
  const ArgValue* v = find(name);
  return v ? scalar(name, *v) : fallback;
}

const ArgValue& ArgReader::required(const std::string& name) const {
  const ArgValue* v = find(name);
  if (!v) throw InputError(args_->file, args_->line, field(name), "missing; it has no default");
  return *v;
}

double ArgReader::real(const std::string& name, double fallback, double lo, double hi, bool lo_open) const {
  const ArgValue* v = find(name);
  if (!v) return fallback;
  const std::string f = field(name);
  return checked_real(number(name, *v, scalar(name, *v)), FieldContext{file(), v->line, f}, lo, hi, lo_open);
}

std::int64_t ArgReader::integer(const std::string& name, std::int64_t fallback, std::int64_t lo,
                                std::int64_t hi) const {
  const ArgValue* v = find(name);
  if (!v) return fallback;
  const std::string& t = scalar(name, *v);
  std::int64_t x;
  if (!try_parse_int(trim(t), x)) fail(name, *v, fmt::format("'{}' is not a whole number", trim(t)));
  const std::string f = field(name);
  return checked_int<std::int64_t>(x, FieldContext{file(), v->line, f}, lo, hi);
}

std::uint64_t ArgReader::count(const std::string& name, std::uint64_t fallback, std::uint64_t hi) const {
  const ArgValue* v = find(name);
  if (!v) return fallback;
  const std::string& t = scalar(name, *v);
  std::int64_t x;
  if (!try_parse_int(trim(t), x) || x < 1) fail(name, *v, fmt::format("'{}' is not a positive integer", trim(t)));
  const std::string f = field(name);
  return checked_int<std::uint64_t>(x, FieldContext{file(), v->line, f}, 1, hi);
}

engine::Time ArgReader::seconds(const std::string& name, engine::Time fallback, bool positive) const {
  const ArgValue* v = find(name);
  if (!v) return fallback;
  const std::string& t = scalar(name, *v);
  const double s = number(name, *v, t);
  if (positive && !(s > 0)) fail(name, *v, fmt::format("'{}' must be a positive number of seconds", trim(t)));
  const std::string f = field(name);
  return checked_duration_seconds(s, FieldContext{file(), v->line, f});
}

bool ArgReader::flag(const std::string& name, bool fallback) const {
  const ArgValue* v = find(name);
  if (!v) return fallback;
  const std::string_view t = trim(scalar(name, *v));
  if (t == "true" || t == "1") return true;
  if (t == "false" || t == "0") return false;
  fail(name, *v, fmt::format("'{}' is not true/false", t));
}

std::string ArgReader::choice(const std::string& name, const std::string& fallback,
                              const std::vector<std::string>& valid) const {
  const ArgValue* v = find(name);
  if (!v) return fallback;
  const std::string t(trim(scalar(name, *v)));
  if (std::find(valid.begin(), valid.end(), t) == valid.end()) fail(name, *v, unknown_name_message(name, t, valid));
  return t;
}

std::vector<engine::Time> ArgReader::seconds_list(const std::string& name, const std::vector<double>& fallback_s) const {
  std::vector<engine::Time> out;
  const ArgValue* v = find(name);
  if (!v) {
    for (double s : fallback_s) out.push_back(engine::from_seconds(s));
    return out;
  }
  const std::string f = field(name);
  auto add = [&](const ArgValue& at, std::string_view text) {
    out.push_back(checked_duration_seconds(number(name, at, std::string(text)), FieldContext{file(), at.line, f}));
  };
  if (v->shape == ArgValue::Shape::list) {
    if (v->items.empty()) fail(name, *v, "'[]' is an empty list");
    for (const auto& item : v->items) add(item, scalar(name, item));
    return out;
  }
  // One number, or a list the user wrote as text.
  const std::string& text = scalar(name, *v);
  std::string_view body = trim(text);
  if (body.size() >= 2 && body.front() == '[' && body.back() == ']') body = body.substr(1, body.size() - 2);
  if (trim(body).empty()) fail(name, *v, fmt::format("'{}' is an empty list", text));
  std::vector<std::string_view> parts;
  split_fields(body, ',', parts);
  for (auto p : parts) add(*v, p);
  return out;
}

}  // namespace schedlab::util
