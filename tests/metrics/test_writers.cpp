// CSV output that parses: user text quoted per RFC 4180 in every CSV writer, and counts
// printed as integers at any size.
#include <doctest/doctest.h>

#include <sstream>

#include "../support/sim_harness.h"
#include "metrics/writers.h"
#include "util/csv.h"
#include "workload/native_csv.h"

using namespace schedlab;
using namespace schedlab::testing;

namespace {
// Gives every job of `rows` the trace id `label` (as a trace with text ids would).
class LabelledSource final : public workload::JobSource {
 public:
  LabelledSource(const std::vector<JobRow>& rows, std::string label) : inner_(rows), label_(std::move(label)) {}
  bool next(workload::JobSpec& out) override {
    if (!inner_.next(out)) return false;
    out.trace_id = inner_.strings().intern(label_);
    return true;
  }
  workload::StringPool& strings() override { return inner_.strings(); }

 private:
  VectorSource inner_;
  std::string label_;
};

// jobs.csv of `rows` on one host of 4 GPUs, every job carrying trace id `label`.
std::string jobs_csv(const std::vector<JobRow>& rows, const std::string& label) {
  auto catalog = small_catalog();
  cluster::Topology topo(uniform_cluster(1, 1, 4), catalog);
  LabelledSource source(rows, label);
  auto perf = perf::make_trace_rate_model();
  metrics::Collector collector(topo, 60 * kMicrosPerSecond);
  sim::Simulation simulation(topo, scheduler_config("best-fit"), source, *perf, collector, "memory");
  simulation.run();
  std::ostringstream out;
  metrics::write_jobs_csv(out, collector, source.strings());
  return out.str();
}
}  // namespace

TEST_CASE("Util.Csv.fields_are_quoted_per_rfc4180") {
  struct Case {
    const char* in;
    const char* out;
  };
  const Case cases[] = {
      {"plain", "plain"},
      {"", ""},
      {"a,b", "\"a,b\""},
      {"say \"hi\"", "\"say \"\"hi\"\"\""},
      // Control bytes are escaped (util/text.h), never quoted raw: a line is one record (R32).
      {"two\nlines", "two\\x0alines"},
      {"cr\r", "cr\\x0d"},
      {"a,\nb", "\"a,\\x0ab\""},
      {"\"", "\"\"\"\""},
  };
  for (const auto& c : cases) {
    CAPTURE(c.in);
    CHECK(util::csv_field(c.in) == c.out);
  }
}

TEST_CASE("Metrics.Writers.jobs_csv_quotes_a_trace_id_with_commas_quotes_and_escapes_newlines") {
  // The newline is escaped (util/text.h), so the row stays one line (R32).
  const std::string csv = jobs_csv({{0, 10, 1, 1}}, "job,1 \"x\"\nnext");
  CHECK(csv.find("\n0,\"job,1 \"\"x\"\"\\x0anext\",,0.000000,0.000000,10.000000,0.000000,0.000000,10.000000,"
                 "10.000000,1,1,1000,1,") != std::string::npos);
}

TEST_CASE("Metrics.Writers.gpu_counts_print_as_integers_at_any_size") {
  CHECK(metrics::gpu_milli_text(8000) == "8");
  CHECK(metrics::gpu_milli_text(250) == "0.25");
  CHECK(metrics::gpu_milli_text(1) == "0.001");
  CHECK(metrics::gpu_milli_text(std::uint64_t{1} << 41) == "2199023255.552");
  // 2^31 tasks of one GPU (dropped: the cluster has 4) and 2^31 tasks of 2^31 GPUs.
  const std::uint32_t big = 1u << 31;
  const std::string csv = jobs_csv({{0, 10, big, 1}, {0, 10, big, big}}, "j");
  CHECK(csv.find(",2147483648,1,1000,2147483648,") != std::string::npos);
  CHECK(csv.find(",2147483648,2147483648,1000,4611686018427387904,") != std::string::npos);
  CHECK(csv.find("e+") == std::string::npos);
}

TEST_CASE("Workload.NativeCsv.writer_quotes_user_text") {
  workload::StringPool strings;
  workload::JobSpec j;
  j.tasks = 1;
  j.gpus_per_task = 1;
  j.user = strings.intern("doe, jane");
  j.pool = strings.intern("p\"1");
  j.gpu_request = strings.intern("H100");
  std::ostringstream out;
  workload::write_native_row(out, j, strings);
  CHECK(out.str().find(",H100,0,\"doe, jane\",\"p\"\"1\",") != std::string::npos);
}
