// Fuzz target of the external-scheduler protocol from schedlab's side
// (sched/external/external_policy.h): the input is what a policy writes, one line per message
// — its hello, then its answer to each tick (decisions, or a request for the state) — and a run
// of the small test trace on the small cluster is scheduled by it. The lines are handed over
// in memory (ExternalConfig::channel), not by a process. Once they run out the policy answers
// every tick with no decisions, so the run ends and its figures are checked. A first line that
// starts with a space runs with `on_invalid: skip` (invalid decisions are reported and ignored)
// instead of ending the run.
#include <cmath>
#include <deque>
#include <string>
#include <string_view>

#include "metrics/collector.h"
#include "perf/perf_registry.h"
#include "sched/external/policy_process.h"
#include "sim/simulation.h"
#include "fuzz_targets.h"
#include "util/error.h"
#include "workload/trace_format.h"

namespace schedlab::fuzz {
namespace {

class ScriptedPolicy final : public sched::PolicyChannel {
 public:
  explicit ScriptedPolicy(std::deque<std::string> lines) : lines_(std::move(lines)) {}
  void send(const std::string& line) override {
    // What schedlab writes must be one line of JSON (the policy reads line by line).
    expect(line.find('\n') == std::string::npos, "schedlab wrote a message with a newline in it");
  }
  std::string receive(double) override {
    if (lines_.empty()) return R"({"type":"decisions"})";
    std::string line = std::move(lines_.front());
    lines_.pop_front();
    if (!line.empty() && line.back() == '\r') line.pop_back();  // as PolicyProcess reads
    return line;
  }
  void finish() override {}

 private:
  std::deque<std::string> lines_;
};

}  // namespace

int fuzz_external_policy(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::deque<std::string> lines;
  for (std::size_t pos = 0; pos < text.size();) {
    const auto nl = std::min(text.find('\n', pos), text.size());
    lines.emplace_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  if (lines.empty()) lines.emplace_back();  // the policy closed its output at once: an empty hello

  const SmallCluster& small = small_cluster();
  const cluster::Topology topo(small.spec, small.catalog);
  sched::SchedulerConfig config;
  config.external.command = "fuzz-policy";
  config.external.file = "fuzz.yaml";
  config.external.line = 1;
  config.external.skip_invalid = !lines.front().empty() && lines.front().front() == ' ';
  config.external.channel = [lines] { return std::make_unique<ScriptedPolicy>(lines); };
  try {
    workload::TraceOptions options;
    options.format = "native";
    auto source = workload::open_trace(sandbox_root() + "/tests/fixtures/native/small.csv", options);
    auto perf = perf::make_perf_model("trace", {}, "fuzz", topo, 1);
    metrics::Collector collector(topo, 86400 * engine::kMicrosPerSecond);
    sim::Simulation simulation(topo, config, *source, *perf, collector, "fuzz");
    simulation.run();
    check_run(collector);
  } catch (const util::InputError& e) {
    // The policy's faults are reported where the scenario set it up.
    expect(e.file() == "fuzz.yaml" && e.line() == 1, std::string("error names another place: ") + e.what());
  }
  return 0;
}

}  // namespace schedlab::fuzz
