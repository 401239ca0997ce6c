// Helpers for tests of bad input: the InputError a call throws, what its message says, and
// where the project's fixture files are.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "util/error.h"

namespace schedlab::testing {

// A file under tests/fixtures/.
inline std::string fixture(const std::string& rel) {
  return std::string(SCHEDLAB_SOURCE_DIR) + "/tests/fixtures/" + rel;
}

// The InputError a call throws (fails the test when it throws nothing).
template <class F>
util::InputError input_error_of(F&& f) {
  try {
    f();
  } catch (const util::InputError& e) {
    return e;
  }
  FAIL("expected an InputError");
  return util::InputError("unreachable");
}

inline bool says(const util::InputError& e, const std::string& text) {
  return std::string(e.what()).find(text) != std::string::npos;
}

// A bad fixture and where its error must point.
struct Located {
  const char* file;  // under tests/fixtures/
  long line;
  const char* field;
  const char* says;  // words of the message
};

// Checks an InputError against `want`: file, line, field, message, and the
// `file:line: field: what` form the CLI prints.
inline void check_located(const util::InputError& e, const Located& want) {
  CHECK(e.file() == fixture(want.file));
  CHECK(e.line() == want.line);
  CHECK(e.field() == want.field);
  CHECK(says(e, want.says));
  CHECK(std::string(e.what()).starts_with(fixture(want.file) + ":" + std::to_string(want.line) + ": " + want.field +
                                          ": "));
}

}  // namespace schedlab::testing
