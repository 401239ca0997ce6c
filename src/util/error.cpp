// Formatting of located input errors.
#include "util/error.h"

#include <fmt/format.h>

#include <cstdio>

#include "util/text.h"

namespace schedlab::util {
namespace {
std::string format_location(const std::string& file, long line, const std::string& field,
                            const std::string& what) {
  std::string out;
  if (!file.empty()) out += line > 0 ? fmt::format("{}:{}: ", file, line) : fmt::format("{}: ", file);
  if (!field.empty()) out += fmt::format("{}: ", field);
  out += what;
  return out;
}
}  // namespace

InputError::InputError(std::string file, long line, std::string field, const std::string& what)
    : std::runtime_error(format_location(file, line, field, what)),
      file_(std::move(file)),
      line_(line),
      field_(std::move(field)),
      what_here_(what) {}

InputError::InputError(const std::string& what) : std::runtime_error(what), what_here_(what) {}

int report_error(const std::exception& e) {
  // Messages quote input (names, values, lines of a file): made printable here, once for
  // every message, so that an ESC or a newline in the input can neither drive the terminal
  // nor forge a line.
  const std::string what = printable(e.what());
  if (dynamic_cast<const InputError*>(&e)) {
    fmt::print(stderr, "schedlab: error: {}\n", what);
    return 2;
  }
  if (dynamic_cast<const EnvironmentError*>(&e)) {
    fmt::print(stderr, "schedlab: {}\n", what);
    return 3;
  }
  fmt::print(stderr, "schedlab: internal error: {}\n", what);
  return 1;
}

}  // namespace schedlab::util
