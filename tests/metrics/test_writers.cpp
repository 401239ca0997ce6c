// CSV output that parses: user text quoted per RFC 4180 in every CSV writer, and counts
// printed as integers at any size; rows built through util::RowBuffer.
#include <doctest/doctest.h>

#include <cstring>
#include <sstream>

#include "../support/sim_harness.h"
#include "metrics/writers.h"
#include "util/csv.h"
#include "util/row_buffer.h"
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
    // Written through a row pointer: the same bytes, within the room it asks for.
    std::string room(util::csv_field_room(c.in), '?');
    const char* end = util::put_csv_field(room.data(), c.in);
    CHECK(std::string(room.data(), static_cast<std::size_t>(end - room.data())) == c.out);
  }
  // The most a field can grow: every byte a control byte (4 bytes each), or quotes and a comma.
  for (const std::string& worst : {std::string(50, '\x01'), std::string(50, '"') + ",", std::string("\xc2\x85,\"")}) {
    CAPTURE(worst);
    CHECK(util::csv_field(worst).size() <= util::csv_field_room(worst));
  }
}

TEST_CASE("Util.RowBuffer.rows_reach_the_stream_whole_and_in_order") {
  // A chunk of 16 bytes: rows that fill it, cross it, and one longer than a chunk.
  std::ostringstream out;
  util::RowBuffer rows(out, 16);
  std::string expected;
  for (const std::string& row :
       {std::string("a,1\n"), std::string("bb,22\n"), std::string("ccc,333\n"), std::string(40, 'x') + "\n",
        std::string("d,4\n")}) {
    char* p = rows.room(row.size());
    std::memcpy(p, row.data(), row.size());
    rows.done(p + row.size());
    expected += row;
  }
  CHECK(out.str().size() < expected.size());  // the last rows are still held
  rows.flush();
  CHECK(out.str() == expected);
  rows.flush();  // nothing held: nothing written
  CHECK(out.str() == expected);
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
