// Reading `checkpoint:`, `preemption:` and `failures:`: every key known, every number checked.
#include "config/lifecycle_config.h"

#include <filesystem>

#include "util/checked.h"
#include "util/error.h"

namespace schedlab::config {

namespace {

constexpr double kMaxHours = util::kMaxInputSeconds / 3600.0;

util::FieldContext where(const YAML::Node& n, const util::At& at) {
  return util::FieldContext{at.file, util::line_of(n), at.path};
}

// A duration in seconds, 0 to 100 years.
engine::Time seconds(const YAML::Node& n, const util::At& at) {
  return util::checked_duration_seconds(util::get_double(n, at), where(n, at));
}

workload::CheckpointCost read_checkpoint(const YAML::Node& n, const util::At& at) {
  util::check_keys(n, {"interval_s", "save_s", "restore_s"}, at);
  workload::CheckpointCost c;
  if (n["interval_s"]) c.interval = seconds(n["interval_s"], at / "interval_s");
  if (n["save_s"]) c.save = seconds(n["save_s"], at / "save_s");
  if (n["restore_s"]) c.restore = seconds(n["restore_s"], at / "restore_s");
  return c;
}

sim::FailureSpec read_failures(const YAML::Node& n, const util::At& at, std::uint32_t& max_retries,
                               const cluster::ClusterSpec& cluster, const cluster::GpuCatalog& catalog) {
  util::check_keys(n, {"host_mtbf_h", "shape", "repair_h", "gpu_failures_per_gpu_h", "trace", "max_retries"}, at);
  sim::FailureSpec s;
  auto& r = s.rates;
  if (const auto& v = n["host_mtbf_h"])
    r.host_mtbf_h =
        util::checked_positive(util::get_double(v, at / "host_mtbf_h"), where(v, at / "host_mtbf_h"), kMaxHours);
  if (const auto& v = n["shape"]) {
    r.shape = util::checked_positive(util::get_double(v, at / "shape"), where(v, at / "shape"), 100.0);
    if (!n["host_mtbf_h"]) fail(v, at / "shape", "applies to host failures: give host_mtbf_h too");
  }
  if (const auto& v = n["gpu_failures_per_gpu_h"])
    r.gpu_failures_per_gpu_h = util::checked_real(util::get_double(v, at / "gpu_failures_per_gpu_h"),
                                                  where(v, at / "gpu_failures_per_gpu_h"), 0.0, 1e6);
  const bool rates = r.host_mtbf_h > 0 || r.gpu_failures_per_gpu_h > 0;
  if (const auto& v = n["repair_h"]) {
    const double h =
        util::checked_real(util::get_double(v, at / "repair_h"), where(v, at / "repair_h"), 0.0, kMaxHours);
    r.repair = util::checked_duration_seconds(h * 3600.0, where(v, at / "repair_h"));
  } else if (rates) {
    fail(n, at / "repair_h", "required with host_mtbf_h or gpu_failures_per_gpu_h: hours a failed host or GPU stays down");
  }
  if (const auto& v = n["max_retries"])
    max_retries =
        util::checked_int<std::uint32_t>(util::get_int(v, at / "max_retries", 0), where(v, at / "max_retries"));
  if (const auto& v = n["trace"]) {
    s.trace = util::resolve_path(at.file, util::get_string(v, at / "trace"));
    if (!std::filesystem::exists(s.trace)) fail(v, at / "trace", "no such file '" + s.trace + "'");
    // Read it now, against the cluster's host names, so that validate reports its errors.
    cluster::Topology topo(cluster, catalog);
    sim::check_failure_trace(s.trace, topo);
  }
  return s;
}

}  // namespace

LifecycleSettings read_lifecycle(const YAML::Node& root, const util::At& at, const cluster::ClusterSpec& cluster,
                                 const cluster::GpuCatalog& catalog) {
  LifecycleSettings s;
  if (const auto& c = root["checkpoint"]) {
    s.config.checkpoint = read_checkpoint(c, at / "checkpoint");
    s.config.checkpoint_set = true;
  }
  if (const auto& p = root["preemption"]) {
    util::check_keys(p, {"grace_s"}, at / "preemption");
    if (p["grace_s"]) s.config.grace = seconds(p["grace_s"], at / "preemption" / "grace_s");
  }
  if (const auto& f = root["failures"]) s.failures = read_failures(f, at / "failures", s.config.max_retries, cluster, catalog);
  return s;
}

}  // namespace schedlab::config
