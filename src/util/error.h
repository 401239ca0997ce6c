// Errors that carry where bad input was found (file, line, field) so the CLI can print
// `file:line: field: what is wrong` and exit 2, whichever part detected the problem.
#pragma once

#include <stdexcept>
#include <string>

namespace schedlab::util {

// Bad input from a file or the command line. Caught once, in cli/.
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, long line, std::string field, const std::string& what);
  // Without a location (command-line values, derived checks).
  explicit InputError(const std::string& what);

  const std::string& file() const { return file_; }
  long line() const { return line_; }
  const std::string& field() const { return field_; }
  // What is wrong, without the place (for an error re-reported at another place: a --set
  // value's syntax error belongs to the option, not to line 1 of the value).
  const std::string& what_here() const { return what_here_; }

 private:
  std::string file_;
  long line_ = 0;
  std::string field_;
  std::string what_here_;
};

// The outside world failed (no GPU, no driver, a library missing). Exit code 3.
class EnvironmentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Prints the error that ended a command on stderr, as the command line says it, and returns
// its exit code: 2 for bad input ("schedlab: error: file:line: ..."), 3 for the outside world,
// 1 for anything else (an internal error). One place for main() and for a sweep's cells,
// which are forks that never return to main().
int report_error(const std::exception& e);

}  // namespace schedlab::util
