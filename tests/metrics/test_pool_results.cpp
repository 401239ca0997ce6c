// Pools in the results: each pool's time-averaged allocation and entitlement (pools-timeline.csv),
// the per-pool summary with its fairness figure, and jobs.csv's pool and kind columns. The runs
// are worked out by hand on 16 GPUs (2 hosts x 8), entitlements every 60 s, no checkpoint costs.
#include <doctest/doctest.h>

#include <sstream>

#include "../support/sim_harness.h"
#include "../support/pool_fixtures.h"
#include "config/pools_config.h"
#include "metrics/summary.h"
#include "metrics/writers.h"
#include "pools/pool_book.h"

using namespace schedlab;
using namespace schedlab::metrics;
using namespace schedlab::testing;

namespace {

JobRow in_pool(double submit, double duration, std::uint32_t gpus, const std::string& p, std::uint32_t tasks = 1) {
  JobRow r(submit, duration, tasks, gpus);
  r.pool = p;
  return r;
}

// The rows as a trace gives them, each with its kind (batch when not given).
class KindSource final : public SpecListSource {
 public:
  KindSource(const std::vector<JobRow>& rows, const std::vector<workload::JobKind>& kinds) {
    for (std::size_t i = 0; i < rows.size(); ++i) {
      jobs_.push_back(spec_of(rows[i], i));
      if (i < kinds.size()) jobs_.back().kind = kinds[i];
    }
  }
};

// One run of `rows` under admission [gang, pools] and `preemption`, with `pools` (or none),
// a 60 s timeline. Members in construction order (the topology points at the catalog).
struct PoolRun {
  cluster::GpuCatalog catalog = small_catalog();
  cluster::Topology topo;
  KindSource source;
  std::unique_ptr<perf::PerfModel> perf = perf::make_trace_rate_model();
  Collector collector;
  Summary summary;

  PoolRun(const std::vector<JobRow>& rows, const pools::PoolsConfig* pools, std::string preemption = "none",
          const std::vector<workload::JobKind>& kinds = {})
      : topo(uniform_cluster(1, 2, 8), catalog), source(rows, kinds), collector(topo, sec(60)) {
    auto config = scheduler_config(
        "best-fit", pools ? std::vector<std::string>{"gang", "pools"} : std::vector<std::string>{"gang"});
    config.preemption = std::move(preemption);
    sim::Simulation simulation(topo, config, source, *perf, collector, "memory");
    if (pools) simulation.use_pools(*pools, 1);
    simulation.run();
    summary = summarize(collector, 0);
  }
  std::string jobs_csv() {
    std::ostringstream out;
    write_jobs_csv(out, collector, source.strings());
    return out.str();
  }
  std::string pools_csv() const {
    std::ostringstream out;
    write_pools_timeline_csv(out, collector);
    return out.str();
  }
};

// The line of `csv` that starts with `prefix` ("" when none).
std::string line_of(const std::string& csv, const std::string& prefix) {
  const auto at = csv.find("\n" + prefix);
  if (at == std::string::npos) return "";
  const auto end = csv.find('\n', at + 1);
  return csv.substr(at + 1, end - at - 1);
}

}  // namespace

// Four research jobs (4 GPUs, 1000 s each) fill the cluster at 0 s while production is idle:
// research is entitled to all 16 GPUs. Production's two 4-GPU jobs (1000 s) arrive at 100 s; from
// the recomputation at 120 s each pool is entitled to its 8, but without reclaim research keeps
// its 16 until its jobs end at 1000 s, when production's start. From 1020 s production wants 8 and
// is entitled to 12 (its 8 and half of the 8 nobody wants), research to the other 4; the run ends
// at 2000 s.
//   production: holds 8 over [1000, 2000): 8000 GPU-s over 2000 s, mean 4. Entitled 0 over
//     [0, 120), 8 over [120, 1020), 12 over [1020, 2000): 7200 + 11760 = 18960, mean 9.48. Due
//     (entitled and wanting) 8 GPUs over [120, 2000), 1880 s, of which it held them 1000 s
//     (before 120 s it was entitled to nothing: not counted): fairness 1000 / 1880.
//   research: holds 16 over [0, 1000): mean 8. Entitled 16 over [0, 120), 8 to 1020, 4 to 2000:
//     1920 + 7200 + 3920 = 13040, mean 6.52. Due 16, then 8 (holding 16): fairness 1.
TEST_CASE("Metrics.Pools.allocation_entitlement_and_fairness_of_a_pool_kept_waiting") {
  const auto pools = production_and_research();
  PoolRun run(
      {in_pool(0, 1000, 4, "research"), in_pool(0, 1000, 4, "research"), in_pool(0, 1000, 4, "research"),
       in_pool(0, 1000, 4, "research"), in_pool(100, 1000, 4, "production"), in_pool(100, 1000, 4, "production")},
      &pools);
  const auto& c = run.collector;
  REQUIRE(c.pools().size() == 2);
  CHECK(c.pools()[0].name == "production");
  CHECK(c.pools()[1].name == "research");
  CHECK(c.pools()[1].parent == -1);
  REQUIRE(c.timeline().size() == 34);  // [0, 60) ... [1980, 2000)
  constexpr std::size_t kProd = 0, kRes = 1;

  SUBCASE("per interval: time averages, entitlement included") {
    // [60, 120): production waits for 8 GPUs from 100 s, entitled to none yet.
    CHECK(c.pool_cell(1, kProd).gpus_allocated == 0);
    CHECK(c.pool_cell(1, kProd).gpus_entitled == 0);
    CHECK(c.pool_cell(1, kProd).pending_gpus == doctest::Approx(8.0 * 20 / 60));
    CHECK(c.pool_cell(1, kRes).gpus_allocated == doctest::Approx(16));
    CHECK(c.pool_cell(1, kRes).gpus_entitled == doctest::Approx(16));
    // [120, 180): 8 each, research still holds 16.
    CHECK(c.pool_cell(2, kProd).gpus_entitled == doctest::Approx(8));
    CHECK(c.pool_cell(2, kProd).pending_gpus == doctest::Approx(8));
    CHECK(c.pool_cell(2, kRes).gpus_entitled == doctest::Approx(8));
    CHECK(c.pool_cell(2, kRes).gpus_allocated == doctest::Approx(16));
    // [960, 1020): research's jobs end at 1000 s and production's start.
    CHECK(c.pool_cell(16, kProd).gpus_allocated == doctest::Approx(8.0 * 20 / 60));
    CHECK(c.pool_cell(16, kProd).pending_gpus == doctest::Approx(8.0 * 40 / 60));
    CHECK(c.pool_cell(16, kRes).gpus_allocated == doctest::Approx(16.0 * 40 / 60));
    CHECK(c.pool_cell(16, kRes).gpus_entitled == doctest::Approx(8));
    // [1020, 1080): production 12, research 4.
    CHECK(c.pool_cell(17, kProd).gpus_entitled == doctest::Approx(12));
    CHECK(c.pool_cell(17, kRes).gpus_entitled == doctest::Approx(4));
    // The last row ends with the run and is averaged over its 20 s.
    CHECK(c.timeline().back().end == sec(2000));
    CHECK(c.pool_cell(33, kProd).gpus_allocated == doctest::Approx(8));
    CHECK(c.pool_cell(33, kProd).gpus_entitled == doctest::Approx(12));
    // Every row: the top-level pools hold what the timeline says is used, and are entitled to
    // the whole cluster (no limits: phase 3 hands out what nobody wants) once pools are known.
    for (std::size_t i = 0; i < c.timeline().size(); ++i) {
      CAPTURE(i);
      CHECK(c.pool_cell(i, kProd).gpus_allocated + c.pool_cell(i, kRes).gpus_allocated ==
            doctest::Approx(c.timeline()[i].used_gpus));
      CHECK(c.pool_cell(i, kProd).gpus_entitled + c.pool_cell(i, kRes).gpus_entitled == doctest::Approx(16));
    }
  }

  SUBCASE("pools-timeline.csv: one row per interval and pool") {
    const std::string csv = run.pools_csv();
    CHECK(
        csv.starts_with("start_s,end_s,pool,parent,gpus_allocated,gpus_entitled,cpus_allocated,cpus_entitled,"
                        "mem_gb_allocated,mem_gb_entitled,pending_gpus\n0,60,production,,0.000,0.000,"));
    CHECK(std::count(csv.begin(), csv.end(), '\n') == 1 + 34 * 2);
    CHECK(line_of(csv, "960,1020,production,") == "960,1020,production,,2.667,8.000,0.000,0.000,0.000,0.000,5.333");
    CHECK(line_of(csv, "1980,2000,research,") == "1980,2000,research,,0.000,4.000,0.000,0.000,0.000,0.000,0.000");
  }

  SUBCASE("summary: per pool, and the least fairness") {
    const auto& s = run.summary;
    REQUIRE(s.pools.size() == 2);
    const auto& prod = s.pools[kProd];
    const auto& res = s.pools[kRes];
    CHECK(c.pool_span_seconds() == doctest::Approx(2000));
    CHECK(prod.gpus_allocated_mean == doctest::Approx(4));
    CHECK(prod.gpus_entitled_mean == doctest::Approx(9.48));
    REQUIRE(prod.fairness);
    CHECK(*prod.fairness == doctest::Approx(1000.0 / 1880));
    CHECK(res.gpus_allocated_mean == doctest::Approx(8));
    CHECK(res.gpus_entitled_mean == doctest::Approx(6.52));
    REQUIRE(res.fairness);
    CHECK(*res.fairness == doctest::Approx(1));
    REQUIRE(s.pool_fairness_min);
    CHECK(*s.pool_fairness_min == doctest::Approx(1000.0 / 1880));
    // Jobs: production's wait 900 s and JCT 1900 s; research's 0 and 1000.
    CHECK(prod.jobs == 2);
    CHECK(prod.finished == 2);
    CHECK(prod.first_wait_mean_s == doctest::Approx(900));
    CHECK(prod.queueing_delay_mean_s == doctest::Approx(900));
    CHECK(prod.jct_p95_s == doctest::Approx(1900));
    CHECK(res.finished == 4);
    CHECK(res.first_wait_p95_s == 0);
    CHECK(res.jct_mean_s == doctest::Approx(1000));
    // The printed summary and summary.json carry them; the figures every run has are unchanged.
    CHECK(format_summary_table(s).find(fmt::format("\n  {:<28} {:>14}\n", "pool fairness (min)", "0.532")) !=
          std::string::npos);
    std::ostringstream json;
    write_summary_json(json, s, "x");
    CHECK(json.str().find("\"pool_fairness_min\": 0.531915,\n  \"pools\": {\n    \"production\": {\n"
                          "      \"parent\": \"\",\n      \"jobs\": 2,") != std::string::npos);
    CHECK(json.str().find("\"fairness\": 1.0\n    }\n  }\n}") != std::string::npos);
  }
}

TEST_CASE("Metrics.Pools.a_pool_never_due_gpus_has_no_fairness_and_a_run_without_pools_no_pool_results") {
  const auto pools = production_and_research();
  // Only research has jobs: production is entitled to GPUs nobody wants, and never wants any.
  PoolRun run({in_pool(0, 100, 4, "research")}, &pools);
  REQUIRE(run.summary.pools.size() == 2);
  CHECK_FALSE(run.summary.pools[0].fairness);
  CHECK(run.summary.pools[0].gpus_entitled_mean > 0);
  REQUIRE(run.summary.pool_fairness_min);
  CHECK(*run.summary.pool_fairness_min == doctest::Approx(1));
  CHECK(format_summary_table(run.summary).find("        -\n") != std::string::npos);
  std::ostringstream json;
  write_summary_json(json, run.summary, "x");
  CHECK(json.str().find("\"fairness\": null\n") != std::string::npos);

  PoolRun flat({in_pool(0, 100, 4, "research")}, nullptr);
  CHECK_FALSE(flat.collector.has_pools());
  CHECK(flat.summary.pools.empty());
  std::ostringstream flat_json;
  write_summary_json(flat_json, flat.summary, "x");
  CHECK(flat_json.str().find("pool") == std::string::npos);
  CHECK(format_summary_table(flat.summary).find("pool") == std::string::npos);
}

// jobs.csv's last columns: the job's pool (the scenario's, by its rules, when it has pools; else
// the trace's pool column) and its kind. Per-pool waits and JCTs leave services out.
TEST_CASE("Metrics.Pools.jobs_csv_pool_and_kind_columns_and_services_left_out_of_pool_jcts") {
  auto pools = production_and_research();
  pools::PoolRule rule;
  rule.on = pools::PoolRule::On::label;
  rule.equals = "vc-prod";
  rule.pool = "production";
  pools.rules = {rule};
  pools.default_pool = "research";
  pools.pools[1].limit[0] = 12;  // research: never more than 12 GPUs
  using K = workload::JobKind;
  const std::vector<JobRow> rows = {in_pool(0, 100, 4, "vc-prod"), in_pool(0, 500, 4, ""), in_pool(0, 50, 4, ""),
                                    in_pool(0, 10, 8, "", 2)};
  const std::vector<K> kinds = {K::batch, K::service, K::cron, K::batch};

  PoolRun run(rows, &pools, "none", kinds);
  const std::string csv = run.jobs_csv();
  CHECK(csv.substr(0, csv.find('\n')).ends_with(",cpus_per_task,mem_gb_per_task,pool,kind"));
  CHECK(line_of(csv, "0,0,").ends_with(",0,0,production,batch"));
  CHECK(line_of(csv, "1,1,").ends_with(",0,0,research,service"));
  CHECK(line_of(csv, "2,2,").ends_with(",0,0,research,cron"));
  // Dropped at submit (16 GPUs, above research's limit): its pool is still named.
  CHECK(line_of(csv, "3,3,").find(",dropped,\"over its pool: needs 16 GPUs, ") != std::string::npos);
  CHECK(line_of(csv, "3,3,").ends_with(",0,0,research,batch"));
  // research: the service (ended at 500 s) is neither finished nor in the JCTs.
  const auto& res = run.summary.pools[1];
  CHECK(res.jobs == 3);
  CHECK(res.finished == 1);
  CHECK(res.dropped == 1);
  CHECK(res.jct_mean_s == doctest::Approx(50));
  CHECK(res.jct_p95_s == doctest::Approx(50));
  CHECK(run.summary.pools[0].jct_mean_s == doctest::Approx(100));
  CHECK(run.summary.jct_mean_s == doctest::Approx((100.0 + 50) / 2));  // the run's own figure: services left out too

  // Without pools: the trace's column as it is, and the 16-GPU job fits the cluster.
  PoolRun flat(rows, nullptr, "none", kinds);
  const std::string flat_csv = flat.jobs_csv();
  CHECK(line_of(flat_csv, "0,0,").ends_with(",0,0,vc-prod,batch"));
  CHECK(line_of(flat_csv, "1,1,").ends_with(",0,0,,service"));
  CHECK(line_of(flat_csv, "3,3,").ends_with(",finished,,0,0,0,160.000000,0.000000,0,0,,batch"));
}

// Scripted: 20 pools, a 1 us interval over 0.2 s. The timeline would need 200,000 rows; with
// 20 pools it may hold 1,000,000 / 20 = 50,000, so the interval doubles to 8 us (25,000 rows),
// and every pool row is averaged with its timeline row.
TEST_CASE("Metrics.Pools.a_coarsened_timeline_keeps_each_pools_rows_and_averages") {
  pools::PoolsConfig config;
  config.enabled = true;
  for (int i = 0; i < 20; ++i) config.pools.push_back(reserved_pool("p" + std::to_string(i), 1));
  const pools::Amounts capacity{20, 0, 0};
  pools::PoolBook book(config, capacity);
  workload::JobSpec job;
  job.id = 0;
  job.gpus_per_task = 2;
  book.assign(0, 3);
  book.waiting(job, 1);
  book.started(job, 1);
  book.recompute(capacity);

  auto catalog = small_catalog();
  cluster::Topology topo(uniform_cluster(1, 1, 20), catalog);
  Collector c(topo, 1);
  InstantState s;
  s.now = 0;
  s.used_milli = 2000;
  s.pools = &book;
  c.on_instant(s);
  book.released(0);
  book.recompute(capacity);
  s.now = 100'000;
  s.used_milli = 0;
  c.on_instant(s);
  c.on_finish(200'000);

  CHECK(c.timeline_interval() == 8);
  REQUIRE(c.timeline().size() == 25'000);
  double held_us = 0, entitled_us = 0;
  for (std::size_t i = 0; i < c.timeline().size(); ++i) {
    const auto& row = c.timeline()[i];
    held_us += c.pool_cell(i, 3).gpus_allocated * static_cast<double>(row.end - row.start);
    entitled_us += c.pool_cell(i, 3).gpus_entitled * static_cast<double>(row.end - row.start);
    if (i == 100) CHECK(c.pool_cell(i, 3).gpus_allocated == doctest::Approx(row.used_gpus));
  }
  CHECK(held_us == doctest::Approx(2 * 100'000));
  CHECK(held_us == doctest::Approx(c.pool_totals(3).gpus_allocated_us));
  CHECK(entitled_us == doctest::Approx(c.pool_totals(3).gpus_entitled_us));
  CHECK(c.pool_span_seconds() == doctest::Approx(0.2));
}
