// Queue-order args in a scenario: a YAML list reaches the part as its flow text, and a bad
// arg is reported at its own line with the part's message.
#include <doctest/doctest.h>

#include "../support/input_errors.h"
#include "config/scenario.h"
#include "util/error.h"

using namespace schedlab;
using namespace schedlab::testing;
using namespace schedlab::config;

TEST_CASE("Config.QueueArgs.a_list_arg_travels_as_flow_text") {
  Scenario sc = load_scenario(fixture("scenarios/las_args.yaml"));
  CHECK(sc.scheduler.queue == "las");
  CHECK(sc.scheduler.args.at("las").at("thresholds") == "[600, 3600]");
  CHECK(sc.scheduler.args.at("las").at("promote_after") == "4");
  // From --set, in flow style, as a user types it.
  Scenario set = load_scenario(fixture("scenarios/las_args.yaml"), {"scheduler.args.las.thresholds=[60, 120, 240]"});
  CHECK(set.scheduler.args.at("las").at("thresholds") == "[60, 120, 240]");
}

TEST_CASE("Config.QueueArgs.bad_args_are_reported_at_their_line") {
  try {
    load_scenario(fixture("scenarios/bad_las_args.yaml"));
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == fixture("scenarios/bad_las_args.yaml") +
                                       ":10: scheduler.args.las.thresholds: [7200, 3600] must be positive and "
                                       "strictly increasing (item 2 is 3600)");
  }
  try {
    load_scenario(fixture("scenarios/las_args.yaml"), {"scheduler.args.las.sevice=time"});
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(e.field() == "scheduler.args.las.sevice");
    CHECK(std::string(e.what()).find("unknown las arg 'sevice'; did you mean 'service'?") != std::string::npos);
  }
  // A list of lists is not an arg.
  try {
    load_scenario(fixture("scenarios/las_args.yaml"), {"scheduler.args.las.thresholds=[[1], 2]"});
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(e.field() == "scheduler.args.las.thresholds");
  }
}
