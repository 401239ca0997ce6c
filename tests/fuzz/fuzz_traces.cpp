// Fuzz targets of the trace readers (one per format, and format detection) and of the
// nccl-tests log importer.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <sstream>
#include <string>

#include "calib/alpha_beta_fit.h"
#include "calib/nccl_tests_log.h"
#include "cluster/topology.h"
#include "config/cluster_config.h"
#include "fuzz_targets.h"
#include "metrics/collector.h"
#include "metrics/summary.h"
#include "perf/calibration_profile.h"
#include "perf/perf_registry.h"
#include "config/scenario.h"
#include "lifecycle/failures.h"
#include "run/packing_run.h"
#include "sim/simulation.h"
#include "util/error.h"
#include "workload/trace_format.h"

namespace schedlab::fuzz {
namespace {

// Stops a source after `limit` jobs, and checks each job against what every reader promises:
// jobs in submit order, at least one task of at least one GPU (or a share of one) or of some
// CPUs, no negative times.
class FirstJobs final : public workload::JobSource {
 public:
  FirstJobs(workload::JobSource& inner, std::uint64_t limit) : inner_(inner), limit_(limit) {}
  bool next(workload::JobSpec& out) override {
    if (produced_ >= limit_ || !inner_.next(out)) return false;
    std::string job = "job " + std::to_string(out.id) + " (line " + std::to_string(out.line) + ")";
    expect(out.tasks >= 1 && (out.gpus_per_task >= 1 || out.cpu_milli > 0),
           job + " asks for " + std::to_string(out.tasks) + " tasks of " + std::to_string(out.gpus_per_task) +
               " GPUs and " + std::to_string(out.cpu_milli) + " milli-CPUs");
    expect(out.gpu_milli >= 1 && out.gpu_milli <= 1000, job + " gpu_milli " + std::to_string(out.gpu_milli));
    expect(out.duration >= 0 && out.estimate >= 0, job + " has a negative duration or estimate");
    expect(out.submit >= last_submit_, job + " is submitted before the job before it");
    last_submit_ = out.submit;
    ++produced_;
    return true;
  }
  workload::StringPool& strings() override { return inner_.strings(); }

 private:
  workload::JobSource& inner_;
  std::uint64_t limit_;
  std::uint64_t produced_ = 0;
  engine::Time last_submit_ = std::numeric_limits<engine::Time>::min();
};

// Simulates the first jobs of `source` on the small cluster with the trace's own durations,
// and checks that the figures agree with each other.
void simulate(workload::JobSource& source) {
  const SmallCluster& small = small_cluster();
  cluster::Topology topo(small.spec, small.catalog);
  FirstJobs jobs(source, 500);
  auto perf = perf::make_perf_model("trace", {}, "fuzz", topo, 1);
  // One timeline row per simulated day keeps far-apart jobs cheap to replay.
  metrics::Collector collector(topo, 86400 * engine::kMicrosPerSecond);
  sim::Simulation simulation(topo, sched::SchedulerConfig{}, jobs, *perf, collector, "fuzz");
  simulation.run();
  check_run(collector);
}

}  // namespace

const SmallCluster& small_cluster() {
  static const SmallCluster small = [] {
    SmallCluster c;
    std::string path = sandbox_root() + "/tests/fixtures/clusters/tiny.yaml";
    c.catalog = config::load_catalog(config::catalog_path_of(path));
    c.spec = config::load_cluster(path, c.catalog).spec;
    return c;
  }();
  return small;
}

void check_run(const metrics::Collector& collector) {
  metrics::Summary s = metrics::summarize(collector, 0);
  for (const auto& r : collector.jobs()) {
    std::string job = "job " + std::to_string(r.id);
    expect(r.start == -1 || r.start >= r.submit, job + " starts before it is submitted");
    expect(r.end == -1 || r.end >= r.start, job + " ends before it starts");
    expect(!r.dropped || r.start == -1, job + " is both dropped and started");
  }
  double run = collector.run_gpu_seconds(), integral = collector.integral_gpu_seconds();
  expect(std::isfinite(run) && run >= 0, "GPU-seconds held by runs: " + std::to_string(run));
  expect(std::fabs(run - integral) <= 1e-6 * std::max(1.0, run),
         "GPU-seconds by runs " + std::to_string(run) + " != timeline integral " + std::to_string(integral));
  for (const auto& [name, value] : s.figures()) {
    expect(!metrics::has_value(value) || (std::isfinite(value) && value >= 0),
           "summary " + name + " = " + std::to_string(value));
  }
  // CPUs are never held beyond the cluster's.
  expect(!metrics::has_value(s.cpu_utilization) || s.cpu_utilization <= 1 + 1e-9,
         "CPU utilization " + std::to_string(s.cpu_utilization));
  expect(s.cpu_utilization_makespan <= 1 + 1e-9, "CPU utilization " + std::to_string(s.cpu_utilization_makespan));
}

namespace {

// Reads the input as `format` (strictly, then skipping bad rows when the strict read fails)
// and simulates what it read.
int read_trace(const char* format, const char* file_name, const std::uint8_t* data, std::size_t size) {
  std::string path = write_input(std::string("in/") + file_name, data, size);
  for (bool skip : {false, true}) {
    try {
      workload::TraceOptions options;
      options.format = format;
      options.skip_bad_rows = skip;
      auto source = workload::open_trace(path, options);
      simulate(*source);
      return 0;
    } catch (const util::InputError&) {
    } catch (const util::EnvironmentError&) {
      return 0;
    }
  }
  return 0;
}

// Reads the input as an openb pod list (times optional) and runs the packing experiment on
// the small cluster under best-fit and fgd, checking that its counts agree with each other.
int pack_openb(const std::uint8_t* data, std::size_t size) {
  const SmallCluster& small = small_cluster();
  config::Scenario sc;
  sc.file = sc.cluster_file = sandbox_root() + "/tests/fixtures/clusters/tiny.yaml";
  sc.catalog = small.catalog;
  sc.cluster = small.spec;
  sc.workload.trace = write_input("in/pods.csv", data, size);
  sc.workload.options.format = "openb";
  sc.workload.options.times_optional = true;
  sc.workload.packing_mode = true;
  for (const char* placement : {"best-fit", "fgd"}) {
    sc.scheduler.placement = placement;
    run::PackingOutcome o;
    try {
      util::Notices notices;
      o = run::run_packing(sc, notices, "");
    } catch (const util::InputError&) {
      return 0;
    } catch (const util::EnvironmentError&) {
      return 0;
    }
    const std::string what = std::string(placement) + ": ";
    expect(o.pods_placed + o.pods_failed == o.pods_arrived, what + "placed + failed != arrived");
    expect(o.gpu_pods_failed <= o.pods_failed, what + "more GPU pods failed than pods");
    expect(o.allocated_milli <= o.demand_milli, what + "more GPUs allocated than asked for");
    expect(o.allocated_milli <= o.total_gpus * 1000, what + "more GPUs allocated than the cluster has");
    for (std::size_t i = 1; i < o.curve.size(); ++i)
      expect(o.curve[i].arrived_pct == o.curve[i - 1].arrived_pct + 1 &&
                 o.curve[i].allocated_milli >= o.curve[i - 1].allocated_milli,
             what + "the packing curve goes back at point " + std::to_string(i));
  }
  return 0;
}

}  // namespace

int fuzz_packing_openb(const std::uint8_t* d, std::size_t n) { return pack_openb(d, n); }
int fuzz_trace_native(const std::uint8_t* d, std::size_t n) { return read_trace("native", "trace.csv", d, n); }
int fuzz_trace_rfold(const std::uint8_t* d, std::size_t n) { return read_trace("rfold", "trace.csv", d, n); }
int fuzz_trace_philly(const std::uint8_t* d, std::size_t n) { return read_trace("philly", "trace.json", d, n); }
int fuzz_trace_pai2020(const std::uint8_t* d, std::size_t n) {
  return read_trace("pai2020", "pai_task_table.csv", d, n);
}
int fuzz_trace_openb(const std::uint8_t* d, std::size_t n) { return read_trace("openb", "trace.csv", d, n); }
int fuzz_trace_helios(const std::uint8_t* d, std::size_t n) { return read_trace("helios", "cluster_log.csv", d, n); }
int fuzz_trace_acme(const std::uint8_t* d, std::size_t n) { return read_trace("acme", "trace_seren.csv", d, n); }
int fuzz_trace_swf(const std::uint8_t* d, std::size_t n) { return read_trace("swf", "trace.swf", d, n); }
int fuzz_trace_sacct(const std::uint8_t* d, std::size_t n) { return read_trace("sacct", "history.txt", d, n); }
// Detection by content: the file name says nothing.
int fuzz_trace_auto(const std::uint8_t* d, std::size_t n) { return read_trace("auto", "trace.txt", d, n); }

// A failure trace (a scenario's `failures: {trace: ...}`) read on the small cluster: events in
// time order, on hosts and GPUs the cluster has, each down for at least a microsecond.
int fuzz_failure_trace(const std::uint8_t* data, std::size_t size) {
  const std::string path = write_input("in/failures.csv", data, size);
  const SmallCluster& small = small_cluster();
  const cluster::Topology topo(small.spec, small.catalog);
  try {
    auto source = lifecycle::open_failure_trace(path, topo);
    lifecycle::FailureEvent f;
    engine::Time last = 0;
    while (source->next(f)) {
      expect(f.at >= last, "failure at " + std::to_string(f.at) + " before the one before (" + std::to_string(last) + ")");
      last = f.at;
      expect(f.host < topo.hosts().size(), "failure on host " + std::to_string(f.host));
      expect(f.down_for >= 1, "down for " + std::to_string(f.down_for) + " us");
      expect(f.gpu == lifecycle::kWholeHost || f.gpu < topo.host(f.host).gpus, "failure of GPU " + std::to_string(f.gpu));
    }
  } catch (const util::InputError& e) {
    expect(e.file() == path, std::string("error names another file: ") + e.what());
  }
  return 0;
}

// An nccl-tests log, then the profile `schedlab calibrate --from-nccl-tests` would write,
// which must read back.
int fuzz_nccl_tests_log(const std::uint8_t* data, std::size_t size) {
  try {
    calib::NcclTestsLog log =
        calib::parse_nccl_tests_log_text(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.log");
    calib::ImportOptions io;
    io.command = "fuzz";
    io.date = "2026-01-01";
    perf::CalibrationProfile profile = calib::profile_from_nccl_tests({log}, io);
    std::ostringstream out;
    perf::write_profile(profile, out);
    perf::load_profile_text(out.str(), "fuzz-fitted.yaml");
  } catch (const util::InputError& e) {
    // Errors say where: the log's name, and the line for a row that does not parse.
    expect(e.file() == "fuzz.log", std::string("error names no file: ") + e.what());
  } catch (const util::EnvironmentError&) {
  }
  return 0;
}

}  // namespace schedlab::fuzz
