// `run --pools-report T` (the scenario's pools.report_at): the pools report
// (pools/pools_report.h) as the pools stood after the scheduling pass of the first instant at or
// after T. An observer: it reads the pool book that each instant's snapshot shows.
#pragma once

#include <string>

#include "engine/time.h"
#include "metrics/observer.h"

namespace schedlab::sim {

class PoolsReportObserver final : public metrics::RunObserver {
 public:
  explicit PoolsReportObserver(engine::Time at) : at_(at) {}
  void on_instant(const metrics::InstantState& s) override;
  // The report, once the run has passed its instant; "" before (or without pools).
  const std::string& report() const { return report_; }

 private:
  engine::Time at_;
  bool taken_ = false;
  std::string report_;
};

}  // namespace schedlab::sim
