// Queue-order args in a scenario: a YAML list reaches the part as a list, each value with its
// line, and a bad arg is reported by the part at its own line.
#include <doctest/doctest.h>

#include "../support/input_errors.h"
#include "config/scenario.h"
#include "util/error.h"

using namespace schedlab;
using namespace schedlab::testing;
using namespace schedlab::config;

namespace {
std::vector<std::string> items(const util::ArgValue& v) {
  std::vector<std::string> out;
  for (const auto& i : v.items) out.push_back(i.text);
  return out;
}
}  // namespace

TEST_CASE("Config.QueueArgs.a_list_arg_travels_as_a_list_with_its_line") {
  Scenario sc = load_scenario(fixture("scenarios/las_args.yaml"));
  CHECK(sc.scheduler.queue == "las");
  const util::NamedArgs& las = sc.scheduler.args.at("las");
  CHECK(items(*las.find("thresholds")) == std::vector<std::string>{"600", "3600"});
  CHECK(las.find("thresholds")->line > 0);
  CHECK(las.find("promote_after")->text == "4");
  CHECK(las.file == fixture("scenarios/las_args.yaml"));
  // From --set, in flow style, as a user types it.
  Scenario set = load_scenario(fixture("scenarios/las_args.yaml"), {"scheduler.args.las.thresholds=[60, 120, 240]"});
  CHECK(items(*set.scheduler.args.at("las").find("thresholds")) == std::vector<std::string>{"60", "120", "240"});
}

TEST_CASE("Config.QueueArgs.bad_args_are_reported_at_their_line") {
  try {
    load_scenario(fixture("scenarios/bad_las_args.yaml"));
    FAIL("expected an InputError");
  } catch (const util::InputError& e) {
    CHECK(std::string(e.what()) == fixture("scenarios/bad_las_args.yaml") +
                                       ":10: scheduler.args.las.thresholds: [7200, 3600] must be positive and "
                                       "strictly increasing (item 2 is 3600)");
  }
  try {
    load_scenario(fixture("scenarios/las_args.yaml"), {"scheduler.args.las.sevice=time"});
    FAIL("expected an InputError");
  } catch (const util::InputError& e) {
    CHECK(e.field() == "scheduler.args.las.sevice");
    CHECK(std::string(e.what()).find("unknown las arg 'sevice'; did you mean 'service'?") != std::string::npos);
  }
  // A list of lists is not an arg.
  try {
    load_scenario(fixture("scenarios/las_args.yaml"), {"scheduler.args.las.thresholds=[[1], 2]"});
    FAIL("expected an InputError");
  } catch (const util::InputError& e) {
    CHECK(e.field() == "scheduler.args.las.thresholds");
  }
}
