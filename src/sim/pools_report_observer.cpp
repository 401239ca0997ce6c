// The pools report, taken once.
#include "sim/pools_report_observer.h"

#include "pools/pools_report.h"

namespace schedlab::sim {

void PoolsReportObserver::on_instant(const metrics::InstantState& s) {
  if (taken_ || s.now < at_ || !s.pools) return;
  report_ = pools::format_pools_report(*s.pools, s.now);
  taken_ = true;
}

}  // namespace schedlab::sim
