// Numbers on the command line. Every numeric option is declared through add_number_option,
// which takes the value as text and converts it with checked_number (util/checked.h), the
// conversion YAML numbers go through: `--seed -1` is refused as `seed: -1` is, a 23-digit
// seed is out of range instead of saturating, and the message is the project's own
// (`schedlab: error: --seed: ...`, exit 2) rather than CLI11's. A unit test walks the whole
// command tree and fails on a numeric option declared any other way.
#pragma once

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "util/checked.h"

namespace schedlab::cli {

// The name of the (no-op) validator that marks an option as declared here.
inline constexpr const char* kCheckedNumberMark = "checked-number";

template <class T>
struct NumberRange {
  T lo = std::numeric_limits<T>::lowest();
  T hi = std::numeric_limits<T>::max();
};

namespace detail {
template <class T>
const char* number_type_name() {
  if constexpr (std::is_floating_point_v<T>) return "FLOAT";
  else if constexpr (std::is_unsigned_v<T>) return "UINT";
  else return "INT";
}

// The option's first long name, for messages ("--seed").
inline std::string option_label(const std::string& names) {
  std::string label;
  std::size_t start = 0;
  while (start <= names.size()) {
    std::size_t comma = names.find(',', start);
    std::string one = names.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (label.empty() || (one.rfind("--", 0) == 0 && label.rfind("--", 0) != 0)) label = one;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return label;
}

inline CLI::Option* mark(CLI::Option* opt, const char* type_name) {
  opt->type_name(type_name);
  opt->check(CLI::Validator([](std::string&) { return std::string(); }, "", kCheckedNumberMark));
  return opt;
}

template <class T>
T convert(const std::string& text, const std::string& label, const NumberRange<T>& range) {
  return util::checked_number<T>(text, util::FieldContext{"", 0, label}, range.lo, range.hi);
}
}  // namespace detail

// A numeric option into `var`; `var` keeps its value (shown as the default) when the option
// is absent.
template <class T>
  requires std::is_arithmetic_v<T>
CLI::Option* add_number_option(CLI::App* cmd, const std::string& names, T& var, const std::string& help,
                               NumberRange<T> range = {}) {
  const std::string label = detail::option_label(names);
  auto* opt = cmd->add_option_function<std::string>(
      names, [&var, label, range](const std::string& text) { var = detail::convert<T>(text, label, range); }, help);
  opt->default_str(fmt::format("{}", var));
  return detail::mark(opt, detail::number_type_name<T>());
}

// Set only when given.
template <class T>
  requires std::is_arithmetic_v<T>
CLI::Option* add_number_option(CLI::App* cmd, const std::string& names, std::optional<T>& var, const std::string& help,
                               NumberRange<T> range = {}) {
  const std::string label = detail::option_label(names);
  auto* opt = cmd->add_option_function<std::string>(
      names, [&var, label, range](const std::string& text) { var = detail::convert<T>(text, label, range); }, help);
  return detail::mark(opt, detail::number_type_name<T>());
}

// One or more numbers (the option repeated, or several values after it); replaces `var`.
template <class T>
  requires std::is_arithmetic_v<T>
CLI::Option* add_number_option(CLI::App* cmd, const std::string& names, std::vector<T>& var, const std::string& help,
                               NumberRange<T> range = {}) {
  const std::string label = detail::option_label(names);
  auto* opt = cmd->add_option_function<std::vector<std::string>>(
      names,
      [&var, label, range](const std::vector<std::string>& texts) {
        std::vector<T> values;
        for (const auto& text : texts) values.push_back(detail::convert<T>(text, label, range));
        var = std::move(values);
      },
      help);
  opt->default_str(var.empty() ? std::string() : fmt::format("[{}]", fmt::join(var, ",")));
  return detail::mark(opt, detail::number_type_name<T>());
}

// The names of the numeric options of `app` and its subcommands that were not declared through
// add_number_option (CLI11's own conversion would wrap, saturate or word its errors its own
// way). main() refuses to start when there is one, so that no test of any command passes
// with such an option in the tree.
std::vector<std::string> unchecked_number_options(CLI::App& app);

}  // namespace schedlab::cli
