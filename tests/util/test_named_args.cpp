// The named-arguments reader: values with their lines, wrong types, unknown and missing names.
#include <doctest/doctest.h>

#include <functional>

#include "util/error.h"
#include "util/named_args.h"
#include "util/named_args_yaml.h"

using namespace schedlab;

namespace {

// las-like args as a scenario gives them: a map written at line 8, each value on its line.
util::NamedArgs scenario_args(const std::string& yaml_text) {
  static const std::string file = "s.yaml";
  return util::read_named_args(util::parse_yaml(yaml_text, file), util::At{file, "scheduler.args.las"});
}

const util::ArgsOwner kLas{"scheduler.args.las", "las arg", "", "las takes no args"};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const util::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("Util.NamedArgs.values_keep_their_lines") {
  const util::NamedArgs args = scenario_args("thresholds: [600, 3600]\nservice: time\npromote_after: 4\n");
  REQUIRE(args.find("service"));
  CHECK(args.find("service")->line == 2);
  CHECK(args.find("thresholds")->items.at(1).line == 1);
  const util::ArgReader a(args, kLas, {"thresholds", "service", "promote_after"});
  CHECK(a.seconds_list("thresholds", {}) == std::vector<engine::Time>{engine::from_seconds(600), engine::from_seconds(3600)});
  CHECK(a.choice("service", "gpu-time", {"time", "gpu-time"}) == "time");
  CHECK(a.integer("promote_after", 0, 0, 10) == 4);
  CHECK(a.integer("absent", 7, 0, 10) == 7);
  CHECK(a.field("service") == "scheduler.args.las.service");
}

TEST_CASE("Util.NamedArgs.errors_table") {
  struct Case {
    const char* yaml;
    std::function<void(const util::ArgReader&)> read;
    const char* message;
  };
  const std::vector<Case> cases = {
      // a wrong type, at the value's own line
      {"service: time\npromote_after: many\n", [](const util::ArgReader& a) { a.integer("promote_after", 0, 0, 10); },
       "s.yaml:2: scheduler.args.las.promote_after: 'many' is not a whole number"},
      {"service: time\npromote_after: 11\n", [](const util::ArgReader& a) { a.integer("promote_after", 0, 0, 10); },
       "s.yaml:2: scheduler.args.las.promote_after: 11 is out of range [0, 10]"},
      {"service: [a, b]\n", [](const util::ArgReader& a) { a.text("service", ""); },
       "s.yaml:1: scheduler.args.las.service: expected a single value"},
      {"thresholds: [600, x]\n", [](const util::ArgReader& a) { a.seconds_list("thresholds", {}); },
       "s.yaml:1: scheduler.args.las.thresholds: 'x' is not a number"},
      {"thresholds: []\n", [](const util::ArgReader& a) { a.seconds_list("thresholds", {}); },
       "s.yaml:1: scheduler.args.las.thresholds: '[]' is an empty list"},
      {"\n\nservice: tim\n",
       [](const util::ArgReader& a) {
         a.choice("service", "gpu-time", {"time", "gpu-time"});
       },
       "s.yaml:3: scheduler.args.las.service: unknown service 'tim'; did you mean 'time'? valid: time, gpu-time"},
      {"service: maybe\n", [](const util::ArgReader& a) { a.flag("service", false); },
       "s.yaml:1: scheduler.args.las.service: 'maybe' is not true/false"},
      {"service: 0\n", [](const util::ArgReader& a) { a.count("service", 1, 10); },
       "s.yaml:1: scheduler.args.las.service: '0' is not a positive integer"},
      {"service: -1\n", [](const util::ArgReader& a) { a.seconds("service", 0); },
       "s.yaml:1: scheduler.args.las.service: -1 s is out of range [0, 3153600000] (100 years)"},
      // a missing required name, at the line of the map that lacks it
      {"\nservice: time\n", [](const util::ArgReader& a) { a.required("thresholds"); },
       "s.yaml:2: scheduler.args.las.thresholds: missing; it has no default"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.yaml);
    const util::NamedArgs args = scenario_args(c.yaml);
    const util::ArgReader a(args, kLas, {"thresholds", "service", "promote_after"});
    CHECK(error_of([&] { c.read(a); }) == c.message);
  }
}

TEST_CASE("Util.NamedArgs.unknown_names_get_a_suggestion") {
  const util::NamedArgs args = scenario_args("thresholds: [1]\nsevice: time\n");
  CHECK(error_of([&] {
          util::ArgReader(args, kLas, {"thresholds", "service"});
        }) ==
        "s.yaml:2: scheduler.args.las.sevice: unknown las arg 'sevice'; did you mean 'service'? valid: thresholds, "
        "service");
  CHECK(error_of([&] { util::ArgReader(args, kLas, {}); }) ==
        "s.yaml:2: scheduler.args.las.sevice: unknown las arg 'sevice'; las takes no args");
  // Without checking names (a reader of shared args), and on the command line.
  CHECK_NOTHROW(util::ArgReader(args, kLas));
  const util::NamedArgs cli{{"gpus_per_hots", "4"}};
  CHECK(error_of([&] {
          util::ArgReader(cli, util::ArgsOwner{"--arg", "swf trace argument", " (swf)", ""}, {"gpus_per_host"});
        }) ==
        "--arg gpus_per_hots (swf): unknown swf trace argument 'gpus_per_hots'; did you mean 'gpus_per_host'? valid: "
        "gpus_per_host");
}

TEST_CASE("Util.NamedArgs.a_list_written_as_text_reads_as_a_list") {
  const util::NamedArgs args{{"thresholds", "[3, 7.5]"}, {"one", "60"}};
  const util::ArgReader a(args, kLas);
  CHECK(a.seconds_list("thresholds", {}) == std::vector<engine::Time>{engine::from_seconds(3), engine::from_seconds(7.5)});
  CHECK(a.seconds_list("one", {}) == std::vector<engine::Time>{engine::from_seconds(60)});
  CHECK(a.seconds_list("absent", {1}) == std::vector<engine::Time>{engine::from_seconds(1)});
}
