// Depth-bounded JSON parsing: nlohmann's parser callback sees each container's depth as it
// opens, and a throw from it stops the parse before anything deeper is built.
#include "util/json_read.h"

#include <fmt/format.h>

namespace schedlab::util {

namespace {

struct TooDeep {};

template <class Json>
Json parse_bounded(std::string_view text) {
  try {
    return Json::parse(text, [](int depth, typename Json::parse_event_t event, Json&) {
      // The depth of an opening bracket is that of the container it opens in.
      if ((event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start) &&
          depth >= kMaxJsonDepth)
        throw TooDeep{};
      return true;
    });
  } catch (const TooDeep&) {
    throw JsonReadError(fmt::format("nested deeper than {} levels (the most any JSON schedlab reads may nest)",
                                    kMaxJsonDepth),
                        true);
  } catch (const typename Json::exception& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 3: ..." without the tag.
    std::string what = e.what();
    if (auto p = what.find("] "); what.starts_with("[json.exception.") && p != std::string::npos) what.erase(0, p + 2);
    throw JsonReadError(what, false);
  }
}

}  // namespace

nlohmann::json parse_json(std::string_view text) { return parse_bounded<nlohmann::json>(text); }

nlohmann::ordered_json parse_ordered_json(std::string_view text) { return parse_bounded<nlohmann::ordered_json>(text); }

}  // namespace schedlab::util
