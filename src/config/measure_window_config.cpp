// Reading metrics.window and metrics.warmup_s.
#include "config/measure_window_config.h"

#include "util/checked.h"

namespace schedlab::config {

void read_measure_window(const YAML::Node& m, const util::At& mat, const std::string& path,
                         metrics::MeasureWindow& out) {
  if (const auto& w = m["window"]) {
    const util::At wat = mat / "window";
    if (!w.IsSequence() || w.size() != 2) fail(w, wat, "expected [start_s, end_s]");
    const double a = util::get_real_in(w[0], wat / "0", 0, util::kMaxInputSeconds);
    const double b = util::get_real_in(w[1], wat / "1", 0, util::kMaxInputSeconds);
    if (b <= a) fail(w, wat, "the window must end after it starts (end_s > start_s)");
    const util::FieldContext where{path, util::line_of(w), "metrics.window"};
    out.start = util::checked_seconds(a, where, 0.0);
    out.end = util::checked_seconds(b, where, 0.0);
  }
  if (const auto& w = m["warmup_s"])
    out.warmup = util::checked_seconds(util::get_real_in(w, mat / "warmup_s", 0, util::kMaxInputSeconds),
                                       util::FieldContext{path, util::line_of(w), "metrics.warmup_s"}, 0.0);
}

}  // namespace schedlab::config
