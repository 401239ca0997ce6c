// Checked reading of queue-order args (see queue_args.h).
#include "sched/queue_args.h"

#include <fmt/format.h>

#include <algorithm>

#include "util/checked.h"
#include "util/error.h"
#include "util/parse.h"
#include "util/suggest.h"

namespace schedlab::sched {

QueueArgs::QueueArgs(std::string part, const PartArgs& args, std::vector<std::string> known)
    : part_(std::move(part)), args_(&args) {
  for (const auto& [name, value] : args) {
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    if (known.empty()) fail(name, fmt::format("unknown {} arg '{}'; {} takes no args", part_, name, part_));
    fail(name, unknown_name_message(part_ + " arg", name, known));
  }
}

std::string QueueArgs::field(const std::string& name) const { return "scheduler.args." + part_ + "." + name; }

void QueueArgs::fail(const std::string& name, const std::string& what) const {
  throw InputError("", 0, field(name), what);
}

const std::string* QueueArgs::find(const std::string& name) const {
  auto it = args_->find(name);
  return it == args_->end() ? nullptr : &it->second;
}

namespace {
// A number as written; a located error when it is not one.
double number(const QueueArgs& a, const std::string& name, std::string_view text) {
  double v;
  if (!try_parse_double(trim(text), v)) a.fail(name, fmt::format("'{}' is not a number", trim(text)));
  return v;
}
}  // namespace

engine::Time QueueArgs::seconds(const std::string& name, double fallback_s, bool positive) const {
  const std::string* text = find(name);
  if (!text) return engine::from_seconds(fallback_s);
  const std::string f = field(name);
  const FieldContext where{"", 0, f};
  double s = number(*this, name, *text);
  if (positive && !(s > 0)) fail(name, fmt::format("'{}' must be a positive number of seconds", trim(*text)));
  return checked_duration_seconds(s, where);
}

std::int64_t QueueArgs::integer(const std::string& name, std::int64_t fallback, std::int64_t lo,
                                std::int64_t hi) const {
  const std::string* text = find(name);
  if (!text) return fallback;
  std::int64_t v;
  if (!try_parse_int(trim(*text), v)) fail(name, fmt::format("'{}' is not a whole number", *text));
  const std::string f = field(name);
  return checked_int<std::int64_t>(v, FieldContext{"", 0, f}, lo, hi);
}

double QueueArgs::real(const std::string& name, double fallback, double lo, double hi, bool lo_open) const {
  const std::string* text = find(name);
  if (!text) return fallback;
  const std::string f = field(name);
  return checked_real(number(*this, name, *text), FieldContext{"", 0, f}, lo, hi, lo_open);
}

std::string QueueArgs::choice(const std::string& name, const std::string& fallback,
                              const std::vector<std::string>& valid) const {
  const std::string* text = find(name);
  if (!text) return fallback;
  if (std::find(valid.begin(), valid.end(), *text) == valid.end()) fail(name, unknown_name_message(name, *text, valid));
  return *text;
}

std::vector<engine::Time> QueueArgs::seconds_list(const std::string& name,
                                                  const std::vector<double>& fallback_s) const {
  std::vector<engine::Time> out;
  const std::string* text = find(name);
  if (!text) {
    for (double s : fallback_s) out.push_back(engine::from_seconds(s));
    return out;
  }
  std::string_view body = trim(*text);
  if (body.size() >= 2 && body.front() == '[' && body.back() == ']') body = body.substr(1, body.size() - 2);
  if (trim(body).empty()) fail(name, fmt::format("'{}' is an empty list", *text));
  std::vector<std::string_view> items;
  split_fields(body, ',', items);
  const std::string f = field(name);
  for (auto item : items) out.push_back(checked_duration_seconds(number(*this, name, item), FieldContext{"", 0, f}));
  return out;
}

}  // namespace schedlab::sched
