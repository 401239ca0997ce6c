// Reading metrics.window and metrics.warmup_s.
#include "config/measure_window_config.h"

#include "util/checked.h"

namespace schedlab::config {

void read_measure_window(const YAML::Node& m, const At& mat, const std::string& path, metrics::MeasureWindow& out) {
  if (const auto& w = m["window"]) {
    const At wat = mat / "window";
    if (!w.IsSequence() || w.size() != 2) fail(w, wat, "expected [start_s, end_s]");
    const double a = get_real_in(w[0], wat / "0", 0, kMaxInputSeconds);
    const double b = get_real_in(w[1], wat / "1", 0, kMaxInputSeconds);
    if (b <= a) fail(w, wat, "the window must end after it starts (end_s > start_s)");
    const FieldContext where{path, line_of(w), "metrics.window"};
    out.start = checked_seconds(a, where, 0.0);
    out.end = checked_seconds(b, where, 0.0);
  }
  if (const auto& w = m["warmup_s"])
    out.warmup = checked_seconds(get_real_in(w, mat / "warmup_s", 0, kMaxInputSeconds),
                                 FieldContext{path, line_of(w), "metrics.warmup_s"}, 0.0);
}

}  // namespace schedlab::config
