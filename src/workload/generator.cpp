// The synthetic trace generator; every draw comes from the seeded Rng's own distributions.
#include "workload/generator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "cluster/resources.h"
#include "engine/rng.h"
#include "util/checked.h"
#include "util/error.h"
#include "workload/chronos_schedule.h"
#include "workload/job_limit.h"
#include "workload/mixed_source.h"

namespace schedlab::workload {

namespace {
// The lowest arrival rate whose mean gap stays within 100 years (kMaxInputSeconds).
constexpr double kMinRatePerHour = 3600.0 / util::kMaxInputSeconds;

void check_finite(double v, const char* field) {
  if (!std::isfinite(v)) throw util::InputError("", 0, field, fmt::format("{} is not a finite number", v));
}
}  // namespace

void validate(const GeneratorConfig& c) {
  if (c.jobs == 0) throw util::InputError("", 0, "generate.jobs", "must be at least 1");
  // Within 32-bit job ids (JobId) too.
  check_job_count(c.jobs, "jobs", "", 0, "generate.jobs");
  check_finite(c.arrival_rate_per_hour, "generate.arrival_rate_per_hour");
  check_finite(c.duration_median_s, "generate.duration_median_s");
  check_finite(c.duration_sigma, "generate.duration_sigma");
  check_finite(c.duration_min_s, "generate.duration_min_s");
  check_finite(c.duration_max_s, "generate.duration_max_s");
  if (!(c.arrival_rate_per_hour > 0)) throw util::InputError("", 0, "generate.arrival_rate_per_hour", "must be > 0");
  // A rate so low that one mean gap exceeds 100 years overflows the microsecond clock.
  if (c.arrival_rate_per_hour < kMinRatePerHour)
    throw util::InputError("", 0, "generate.arrival_rate_per_hour",
                           fmt::format("{} is out of range: at least {:.3g} per hour (a mean gap of at most 100 years)",
                                       c.arrival_rate_per_hour, kMinRatePerHour));
  if (!(c.duration_median_s > 0)) throw util::InputError("", 0, "generate.duration_median_s", "must be > 0");
  if (c.duration_sigma < 0) throw util::InputError("", 0, "generate.duration_sigma", "must be >= 0");
  if (!(c.duration_min_s > 0) || c.duration_max_s < c.duration_min_s)
    throw util::InputError("", 0, "generate.duration_min_s", "need 0 < duration_min_s <= duration_max_s");
  if (c.duration_max_s > util::kMaxInputSeconds)
    throw util::InputError(
        "", 0, "generate.duration_max_s",
        fmt::format("{} s is out of range: at most 100 years ({} s)", c.duration_max_s, util::kMaxInputSeconds));
  if (c.gpu_sizes.empty() || c.gpu_sizes.size() != c.gpu_size_weights.size())
    throw util::InputError("", 0, "generate.gpu_size_weights", "need one weight per entry of gpu_sizes");
  for (auto s : c.gpu_sizes)
    if (s == 0) throw util::InputError("", 0, "generate.gpu_sizes", "sizes must be at least 1");
  if (c.gpus_per_host == 0) throw util::InputError("", 0, "generate.gpus_per_host", "must be at least 1");
  for (auto s : c.gpu_sizes)
    if (s > c.gpus_per_host && s % c.gpus_per_host != 0)
      throw util::InputError(
          "", 0, "generate.gpu_sizes",
          "a multi-host size must be a multiple of gpus_per_host (" + std::to_string(c.gpus_per_host) + ")");
  if (c.shapes.size() != c.shape_weights.size())
    throw util::InputError("", 0, "generate.shape_weights", "need one weight per shape");
  if (c.models.size() != c.model_weights.size())
    throw util::InputError("", 0, "generate.model_weights", "need one weight per entry of models");
  if (c.users == 0) throw util::InputError("", 0, "generate.users", "must be at least 1");
  check_finite(c.cpu_job_share, "generate.cpu_job_share");
  if (c.cpu_job_share < 0 || c.cpu_job_share > 1)
    throw util::InputError("", 0, "generate.cpu_job_share", fmt::format("{} is out of range [0, 1]", c.cpu_job_share));
  if (c.cpu_sizes.empty() || c.cpu_sizes.size() != c.cpu_size_weights.size())
    throw util::InputError("", 0, "generate.cpu_size_weights", "need one weight per entry of cpu_sizes");
  for (auto s : c.cpu_sizes)
    if (s == 0 || s > cluster::kMaxCpus)
      throw util::InputError("", 0, "generate.cpu_sizes",
                             fmt::format("{} is out of range [1, {}]", s, cluster::kMaxCpus));
  check_finite(c.mem_gb_per_cpu, "generate.mem_gb_per_cpu");
  // Every drawn job's memory must stay within a task's limit.
  std::uint32_t largest = 0;
  for (auto s : c.cpu_sizes) largest = std::max(largest, s);
  if (c.mem_gb_per_cpu < 0 || c.mem_gb_per_cpu * largest > cluster::kMaxMemGb)
    throw util::InputError("", 0, "generate.mem_gb_per_cpu",
                           fmt::format("{} is out of range [0, {}] (for tasks of up to {} CPUs)", c.mem_gb_per_cpu,
                                       cluster::kMaxMemGb / largest, largest));
  constexpr std::uint32_t kMaxEntries = 10'000;
  if (c.services > kMaxEntries)
    throw util::InputError("", 0, "generate.services",
                           fmt::format("{} is out of range [0, {}]", c.services, kMaxEntries));
  if (c.cron_entries > kMaxEntries)
    throw util::InputError("", 0, "generate.cron_entries",
                           fmt::format("{} is out of range [0, {}]", c.cron_entries, kMaxEntries));
  if (c.service_instances_max == 0 || c.service_instances_max > 1000)
    throw util::InputError("", 0, "generate.service_instances_max",
                           fmt::format("{} is out of range [1, 1000]", c.service_instances_max));
  check_finite(c.cron_period_s, "generate.cron_period_s");
  check_finite(c.cron_duration_s, "generate.cron_duration_s");
  if (!(c.cron_period_s >= 1) || c.cron_period_s > 366 * 86400.0)
    throw util::InputError("", 0, "generate.cron_period_s",
                           fmt::format("{} is out of range [1, 31622400] s", c.cron_period_s));
  if (!(c.cron_duration_s >= 1) || c.cron_duration_s > util::kMaxInputSeconds)
    throw util::InputError("", 0, "generate.cron_duration_s",
                           fmt::format("{} is out of range [1, {}] s", c.cron_duration_s, util::kMaxInputSeconds));
  // Services and cron entries add jobs: up to service_instances_max per service, and one per
  // period per cron entry over the trace's expected span (cron ends with the trace). A run's
  // count of jobs is checked again as they are handed out (with_job_limit).
  const double span_s = static_cast<double>(c.jobs) * 3600.0 / c.arrival_rate_per_hour;
  const double total = static_cast<double>(c.jobs) +
                       static_cast<double>(c.services) * static_cast<double>(c.service_instances_max) +
                       static_cast<double>(c.cron_entries) * (std::floor(span_s / c.cron_period_s) + 1);
  if (total > static_cast<double>(kMaxJobsPerRun))
    throw util::InputError(
        "", 0, "generate",
        fmt::format("{} jobs, up to {} service instances and about {:.0f} cron occurrences (over the "
                    "{:.3g} s the jobs arrive in) are more than the {} jobs a run may have",
                    c.jobs, static_cast<std::uint64_t>(c.services) * c.service_instances_max,
                    static_cast<double>(c.cron_entries) * (std::floor(span_s / c.cron_period_s) + 1), span_s,
                    kMaxJobsPerRun));
}

namespace {
const std::string kNoFile;

class Generator final : public JobSource {
 public:
  Generator(GeneratorConfig c, std::uint64_t seed)
      : c_(std::move(c)),
        arrivals_(engine::Rng(seed).stream("arrivals")),
        durations_(engine::Rng(seed).stream("durations")),
        shapes_(engine::Rng(seed).stream("shapes")),
        labels_(engine::Rng(seed).stream("labels")),
        cpu_jobs_(engine::Rng(seed).stream("cpu_jobs")) {
    for (std::uint32_t u = 0; u < c_.users; ++u) users_.push_back(strings_.intern("user" + std::to_string(u)));
    for (const auto& m : c_.models) models_.push_back(strings_.intern(m == "any" ? "" : m));
  }

  bool next(JobSpec& out) override {
    if (produced_ == c_.jobs) return false;
    out = JobSpec{};
    out.id = static_cast<JobId>(produced_);  // < jobs, which validate() keeps within JobId
    out.trace_number = produced_;
    ++produced_;
    // Poisson arrivals: exponential gaps, rounded to whole microseconds once. The clock
    // is checked, not wrapped: many jobs at a low rate can still run past 100 years.
    now_s_ += arrivals_.exponential(3600.0 / c_.arrival_rate_per_hour);
    if (!(now_s_ <= util::kMaxInputSeconds))
      throw util::InputError(
          "", 0, "generate.arrival_rate_per_hour",
          fmt::format("job {} would arrive after {:.3g} s, beyond 100 years ({} s): raise the rate or "
                      "lower the number of jobs",
                      out.trace_number, now_s_, util::kMaxInputSeconds));
    out.submit = util::checked_seconds(now_s_, util::FieldContext{kNoFile, 0, "generate.arrival_rate_per_hour"}, 0);
    double d = durations_.lognormal(std::log(c_.duration_median_s), c_.duration_sigma);
    d = std::min(std::max(d, c_.duration_min_s), c_.duration_max_s);
    out.duration =
        util::checked_duration_seconds(std::round(d), util::FieldContext{kNoFile, 0, "generate.duration_max_s"});
    if (!c_.shapes.empty()) {
      const auto& shape = c_.shapes[shapes_.weighted_index(c_.shape_weights.data(), c_.shapes.size())];
      out.tasks = shape.tasks;
      out.gpus_per_task = shape.gpus_per_task;
      out.gpu_milli = shape.gpu_milli;
    } else if (std::uint32_t gpus = c_.gpu_sizes[shapes_.weighted_index(c_.gpu_size_weights.data(), c_.gpu_sizes.size())];
               gpus > c_.gpus_per_host) {
      out.tasks = gpus / c_.gpus_per_host;
      out.gpus_per_task = c_.gpus_per_host;
    } else {
      out.tasks = 1;
      out.gpus_per_task = gpus;
    }
    out.user = users_[labels_.uniform_int(0, static_cast<std::int64_t>(users_.size()) - 1)];
    if (!models_.empty()) out.gpu_request = models_[labels_.weighted_index(c_.model_weights.data(), models_.size())];
    if (c_.cpu_job_share > 0 && cpu_jobs_.uniform() < c_.cpu_job_share) {
      // A CPU job: one task, no GPU, no GPU model.
      const std::uint32_t cpus = c_.cpu_sizes[cpu_jobs_.weighted_index(c_.cpu_size_weights.data(), c_.cpu_sizes.size())];
      out.tasks = 1;
      out.gpus_per_task = 0;
      out.gpu_milli = 1000;
      out.gpu_request = kNoLabel;
      out.cpu_milli = cpus * cluster::kMilliPerCpu;
      out.mem_mib =
          cluster::checked_mem_mib(cpus * c_.mem_gb_per_cpu, util::FieldContext{kNoFile, 0, "generate.mem_gb_per_cpu"});
      out.cpu_given = out.mem_given = true;
    }
    return true;
  }
  StringPool& strings() override { return strings_; }
  double fraction_done() const override {
    return c_.jobs ? static_cast<double>(produced_) / static_cast<double>(c_.jobs) : 1.0;
  }

 private:
  GeneratorConfig c_;
  engine::Rng arrivals_, durations_, shapes_, labels_, cpu_jobs_;
  StringPool strings_;
  std::vector<Label> users_, models_;
  std::uint64_t produced_ = 0;
  double now_s_ = 0;
};
}  // namespace

// The generator's jobs with its services and cron entries, numbered in the order handed out.
class GeneratedMix final : public JobSource {
 public:
  GeneratedMix(std::unique_ptr<JobSource> base, LongRunningWork work)
      : work_(std::move(work)), mixed_(std::move(base), work_) {}
  bool next(JobSpec& out) override {
    if (!mixed_.next(out)) return false;
    out.id = static_cast<JobId>(std::min<std::uint64_t>(n_, std::numeric_limits<JobId>::max()));
    out.trace_number = n_++;
    return true;
  }
  StringPool& strings() override { return mixed_.strings(); }
  double fraction_done() const override { return mixed_.fraction_done(); }

 private:
  LongRunningWork work_;  // before mixed_, which keeps a reference to it
  MixedSource mixed_;
  std::uint64_t n_ = 0;
};

LongRunningWork long_running_of(const GeneratorConfig& c, std::uint64_t seed) {
  LongRunningWork w;
  auto draws = engine::Rng(seed).stream("long_running");
  const double span_s = static_cast<double>(c.jobs) * 3600.0 / c.arrival_rate_per_hour;
  const auto span = util::checked_duration_seconds(std::min(span_s, static_cast<double>(util::kMaxInputSeconds)),
                                                   util::FieldContext{kNoFile, 0, "generate.arrival_rate_per_hour"});
  for (std::uint32_t i = 0; i < c.services; ++i) {
    ServiceSpec s;
    s.name = fmt::format("svc{}", i);
    s.shape.gpus_per_task = 1;
    s.instances = static_cast<std::uint32_t>(draws.uniform_int(1, c.service_instances_max));
    s.start = static_cast<engine::Time>(draws.uniform() * 0.1 * static_cast<double>(span));
    s.stop = std::max(span, s.start + engine::kMicrosPerSecond);
    w.services.push_back(s);
  }
  // Schedules on a calendar that trace time 0 stands for (any instant would do).
  constexpr const char* kEpoch = "2026-01-05T00:00:00Z";
  w.epoch_us = parse_iso_datetime_us(kEpoch);
  for (std::uint32_t i = 0; i < c.cron_entries; ++i) {
    CronSpec e;
    e.name = fmt::format("cron{}", i);
    e.shape.gpus_per_task = 1;
    e.duration = util::checked_duration_seconds(std::round(c.cron_duration_s),
                                                util::FieldContext{kNoFile, 0, "generate.cron_duration_s"});
    const auto period = static_cast<std::int64_t>(std::round(c.cron_period_s));
    const auto offset = draws.uniform_int(0, period - 1);
    e.schedule_text = fmt::format("R/{}/PT{}S", kEpoch, period);
    e.schedule = parse_chronos_schedule(e.schedule_text);
    e.schedule.start_us += offset * engine::kMicrosPerSecond;  // its first occurrence, within the first period
    w.cron.push_back(e);
  }
  return w;
}

std::unique_ptr<JobSource> make_generator(const GeneratorConfig& config, std::uint64_t seed) {
  validate(config);
  auto gen = std::make_unique<Generator>(config, seed);
  if (config.services == 0 && config.cron_entries == 0) return gen;
  return std::make_unique<GeneratedMix>(std::move(gen), long_running_of(config, seed));
}

}  // namespace schedlab::workload
