// Perf model `trace`: trace durations are kept whatever the placement.
#include "perf/perf_model.h"

namespace schedlab::perf {
namespace {
class TraceRateModel final : public PerfModel {
 public:
  std::string name() const override { return "trace"; }
  double speed(const workload::JobSpec&, const cluster::Placement&, const cluster::Topology&) const override {
    return 1.0;
  }
};
}  // namespace

std::unique_ptr<PerfModel> make_trace_rate_model() { return std::make_unique<TraceRateModel>(); }

}  // namespace schedlab::perf
