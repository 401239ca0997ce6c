// Tests of the helpers shared by the public-format trace readers.
#include <doctest/doctest.h>

#include "util/error.h"
#include "workload/trace_reader_util.h"

using namespace schedlab;
using namespace schedlab::workload;

TEST_CASE("Workload.TraceReaderUtil.shape_keeps_gpu_count_exact") {
  struct Case {
    std::vector<std::uint64_t> hosts;
    std::uint64_t limit;
    std::uint32_t tasks, per_task;
    bool reshaped;
  };
  const Case cases[] = {
      {{1}, 8, 1, 1, false},         {{8, 8}, 8, 2, 8, false},   {{8, 4}, 8, 3, 4, true},
      {{48}, 8, 6, 8, true},         {{48}, 0, 1, 48, false},    {{6}, 8, 1, 6, false},
      {{12}, 8, 3, 4, true},         {{5, 3}, 8, 8, 1, true},    {{744}, 8, 93, 8, true},
      {{2, 2, 2, 2}, 8, 4, 2, false}, {{0, 4}, 8, 1, 4, false},  {{}, 8, 0, 0, false},
  };
  const std::string file = "t.csv";
  for (const auto& c : cases) {
    Shape s = shape_from_hosts(c.hosts, c.limit, util::FieldContext{file, 2, "shape"});
    CHECK(s.tasks == c.tasks);
    CHECK(s.gpus_per_task == c.per_task);
    CHECK(s.reshaped == c.reshaped);
  }
}

TEST_CASE("Workload.TraceReaderUtil.date_times") {
  double s = 0;
  REQUIRE(parse_datetime("1970-01-01 00:00:00", s));
  CHECK(s == 0);
  REQUIRE(parse_datetime("2017-10-07 01:11:39", s));
  CHECK(s == 1507338699);
  REQUIRE(parse_datetime("2020-02-29T12:00:00.5", s));
  CHECK(s == 1582977600.5);
  CHECK_FALSE(parse_datetime("2017-10-07", s));
  CHECK_FALSE(parse_datetime("2017-13-07 01:11:39", s));
  CHECK_FALSE(parse_datetime("2017-10-07 01:11:39 PDT", s));
  // A zone makes it UTC (Acme writes +08:00).
  REQUIRE(parse_datetime("2023-03-01 08:00:00+08:00", s));
  CHECK(s == 1677628800);
  REQUIRE(parse_datetime("2023-03-01T00:00:00Z", s));
  CHECK(s == 1677628800);
  REQUIRE(parse_datetime("2023-02-28 19:30:00.5-0430", s));
  CHECK(s == 1677628800.5);
  CHECK_FALSE(parse_datetime("2023-03-01 08:00:00+8", s));
  std::string file = "f.csv";
  CHECK(parse_time("12.5", util::FieldContext{file, 3, "t"}) == 12.5);
  CHECK_THROWS_WITH_AS(parse_time("soon", util::FieldContext{file, 3, "t"}),
                       "f.csv:3: t: 'soon' is neither a date-time (YYYY-MM-DD HH:MM:SS) nor seconds", util::InputError);
}

TEST_CASE("Workload.TraceReaderUtil.args") {
  TraceOptions o;
  o.args = {{"gpus_per_host", "4"}, {"rebase", "false"}};
  CHECK_NOTHROW(trace_args(o, "swf", {"gpus_per_host"}));
  CHECK(trace_args(o, "swf", {"gpus_per_host"}).integer("gpus_per_host", 8, 0, 64) == 4);
  CHECK(trace_args(o, "swf", {"gpus_per_host"}).integer("missing", 8, 0, 64) == 8);
  CHECK_FALSE(trace_args(o, "swf", {"gpus_per_host"}).flag("rebase", true));
  o.args.values["colour"] = util::ArgValue("red");
  CHECK_THROWS_WITH_AS(trace_args(o, "swf", {"gpus_per_host"}),
                       "workload.args.colour (swf): unknown swf trace argument 'colour' valid: gpus_per_host, rebase, "
                       "sort",
                       util::InputError);
  o.args = {{"rebase", "maybe"}};
  CHECK_THROWS_WITH_AS(trace_args(o, "swf", {}).flag("rebase", true),
                       "workload.args.rebase (swf): 'maybe' is not true/false", util::InputError);
}

TEST_CASE("Workload.TraceReaderUtil.drop_counts") {
  DropCounts d;
  CHECK(d.summary().empty());
  d.add("CPU-only pods");
  d.add("never started", 2);
  d.add("CPU-only pods");
  CHECK(d.total() == 4);
  CHECK(d.count("CPU-only pods") == 2);
  CHECK(d.summary() == "2 CPU-only pods; 2 never started");
}
