// One way to parse JSON text from outside (an external policy's replies, API bodies, journal
// records, sweep manifests and cell summaries): nlohmann-json with the nesting depth bounded
// by kMaxJsonDepth (util/input_limits.h) while it parses, and its exceptions turned into one
// message without nlohmann's tag. The Philly reader has its own tokenizer and the same bound.
#pragma once

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <string_view>

#include "util/input_limits.h"

namespace schedlab::util {

// Text that is not JSON, or nests deeper than kMaxJsonDepth. what(): "parse error at line 1,
// column 3: ..." or "nested deeper than 64 levels"; callers add where the text came from.
class JsonReadError : public std::runtime_error {
 public:
  JsonReadError(const std::string& what, bool too_deep) : std::runtime_error(what), too_deep_(too_deep) {}
  // Valid JSON as far as it went, but nested past the bound: never text cut short.
  bool too_deep() const { return too_deep_; }

 private:
  bool too_deep_;
};

// Parses one JSON value (whitespace around it allowed, nothing else). Throws JsonReadError.
nlohmann::json parse_json(std::string_view text);
nlohmann::ordered_json parse_ordered_json(std::string_view text);

}  // namespace schedlab::util
