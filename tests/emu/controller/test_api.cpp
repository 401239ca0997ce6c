// The controller's API parsers (emu/controller/api.h): what a body or a query may say, the
// defaults of what it leaves out, and the message that names the field it got wrong. The
// routes over loopback HTTP: test_api_routes.cpp; against a live run: the emulate e2e (curl).
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "emu/controller/api.h"
#include "support/sim_harness.h"

using namespace schedlab;
using namespace schedlab::emu;

TEST_CASE("Emu.Api.submit_a_jobs_fields_their_defaults_and_the_models_of_the_cluster") {
  const cluster::GpuCatalog catalog = testing::small_catalog();
  auto p = parse_submit_body(R"({"version":1,"duration_s":60})", catalog);
  REQUIRE(p.ok());
  CHECK(p.value().spec.tasks == 1);
  CHECK(p.value().spec.gpus_per_task == 1);
  CHECK(p.value().spec.duration == engine::from_seconds(60));
  CHECK(p.value().model.empty());

  p = parse_submit_body(
      R"({"version":1,"tasks":4,"gpus_per_task":8,"duration_s":1.5,"priority":-3,"name":"bert","user":"ana","model":"A100|H100"})",
      catalog);
  REQUIRE(p.ok());
  CHECK(p.value().spec.tasks == 4);
  CHECK(p.value().spec.gpus_per_task == 8);
  CHECK(p.value().spec.duration == engine::from_seconds(1.5));
  CHECK(p.value().spec.priority == -3);
  CHECK(p.value().name == "bert");
  CHECK(p.value().user == "ana");
  CHECK(p.value().model == "A100|H100");
}

TEST_CASE("Emu.Api.submit_refused_a_bad_body_is_a_400_426_for_another_version_naming_the_field") {
  const cluster::GpuCatalog catalog = testing::small_catalog();
  const std::string long_name(257, 'n');
  const struct {
    std::string body;
    int status;
    std::string message;
  } cases[] = {
      {R"({"version":1})", 400, "duration_s: missing"},
      {R"({"version":2,"duration_s":60})", 426, "version: 2 is not supported"},
      {R"({"duration_s":60})", 400, "version: missing"},
      {R"({"version":1,"duration_s":0})", 400, "duration_s: 0 is out of range"},
      {R"({"version":1,"duration_s":"60"})", 400, "duration_s: expected a number, got \"60\""},
      {R"({"version":1,"duration_s":60,"tasks":0})", 400, "tasks: must be at least 1"},
      {R"({"version":1,"duration_s":60,"gpus_per_task":0})", 400, "gpus_per_task: must be at least 1"},
      {R"({"version":1,"duration_s":60,"tasks":65537})", 400, "tasks: 65537 is out of range [0, 65536]"},
      {R"({"version":1,"duration_s":60,"tasks":-1})", 400, "tasks: expected an unsigned integer, got -1"},
      {R"({"version":1,"duration_s":60,"priority":2000000000})", 400, "priority: 2000000000 is out of range"},
      {R"({"version":1,"duration_s":60,"model":"A100|K80"})", 400, "model: 'K80' is not a GPU model of the cluster"},
      {R"({"version":1,"duration_s":60,"model":""})", 400, "model: '' is not a GPU model of the cluster"},
      {R"({"version":1,"duration_s":60,"name":")" + long_name + R"("})", 400, "name: longer than 256 characters"},
      {R"({"version":1,"duration_s":60,"user":")" + long_name + R"("})", 400, "user: longer than 256 characters"},
      {R"([1])", 400, "body: expected a JSON object"},
      {R"({"version":1,)", 400, "malformed JSON"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.body);
    const auto p = parse_submit_body(c.body, catalog);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().http_status == c.status);
    CHECK(p.error().message.rfind(c.message, 0) == 0);
  }
}

TEST_CASE("Emu.Api.scale_the_number_of_instances_bounded") {
  const auto ok = parse_scale_body(R"({"version":1,"instances":3})");
  REQUIRE(ok.ok());
  CHECK(ok.value() == 3u);
  CHECK(parse_scale_body(R"({"version":1,"instances":0})").value() == 0u);
  const auto missing = parse_scale_body(R"({"version":1})");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == "instances: missing");
  const auto huge = parse_scale_body(R"({"version":1,"instances":99999999999})");
  REQUIRE_FALSE(huge.ok());
  CHECK(huge.error().message.rfind("instances: 99999999999 is out of range [0, ", 0) == 0);
}

TEST_CASE("Emu.Api.limit_from_1_to_100000_1000_when_absent") {
  using Query = std::map<std::string, std::string>;
  CHECK(parse_limit(Query{}).value() == 1000u);
  CHECK(parse_limit(Query{{"limit", "1"}}).value() == 1u);
  CHECK(parse_limit(Query{{"limit", "100000"}}).value() == 100000u);
  for (const char* bad : {"0", "100001", "-1", "5x", "", " 5", "1e3"}) {
    CAPTURE(bad);
    const auto p = parse_limit(Query{{"limit", bad}});
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().http_status == 400);
    CHECK(p.error().message == std::string("limit: expected an integer from 1 to 100000, got '") + bad + "'");
  }
}
