// The synthetic trace generator; every draw comes from the seeded Rng's own distributions.
#include "workload/generator.h"

#include <cmath>

#include "engine/rng.h"
#include "util/error.h"

namespace schedlab::workload {

void validate(const GeneratorConfig& c) {
  if (c.jobs == 0) throw InputError("", 0, "generate.jobs", "must be at least 1");
  if (!(c.arrival_rate_per_hour > 0)) throw InputError("", 0, "generate.arrival_rate_per_hour", "must be > 0");
  if (!(c.duration_median_s > 0)) throw InputError("", 0, "generate.duration_median_s", "must be > 0");
  if (c.duration_sigma < 0) throw InputError("", 0, "generate.duration_sigma", "must be >= 0");
  if (!(c.duration_min_s > 0) || c.duration_max_s < c.duration_min_s)
    throw InputError("", 0, "generate.duration_min_s", "need 0 < duration_min_s <= duration_max_s");
  if (c.gpu_sizes.empty() || c.gpu_sizes.size() != c.gpu_size_weights.size())
    throw InputError("", 0, "generate.gpu_size_weights", "need one weight per entry of gpu_sizes");
  for (auto s : c.gpu_sizes)
    if (s == 0) throw InputError("", 0, "generate.gpu_sizes", "sizes must be at least 1");
  if (c.gpus_per_host == 0) throw InputError("", 0, "generate.gpus_per_host", "must be at least 1");
  for (auto s : c.gpu_sizes)
    if (s > c.gpus_per_host && s % c.gpus_per_host != 0)
      throw InputError("", 0, "generate.gpu_sizes",
                       "a multi-host size must be a multiple of gpus_per_host (" + std::to_string(c.gpus_per_host) + ")");
  if (c.shapes.size() != c.shape_weights.size())
    throw InputError("", 0, "generate.shape_weights", "need one weight per shape");
  if (c.models.size() != c.model_weights.size())
    throw InputError("", 0, "generate.model_weights", "need one weight per entry of models");
  if (c.users == 0) throw InputError("", 0, "generate.users", "must be at least 1");
}

namespace {
class Generator final : public JobSource {
 public:
  Generator(GeneratorConfig c, std::uint64_t seed)
      : c_(std::move(c)),
        arrivals_(engine::Rng(seed).stream("arrivals")),
        durations_(engine::Rng(seed).stream("durations")),
        shapes_(engine::Rng(seed).stream("shapes")),
        labels_(engine::Rng(seed).stream("labels")) {
    for (std::uint32_t u = 0; u < c_.users; ++u) users_.push_back(strings_.intern("user" + std::to_string(u)));
    for (const auto& m : c_.models) models_.push_back(strings_.intern(m == "any" ? "" : m));
  }

  bool next(JobSpec& out) override {
    if (produced_ == c_.jobs) return false;
    out = JobSpec{};
    out.id = static_cast<JobId>(produced_);
    out.trace_number = produced_;
    ++produced_;
    // Poisson arrivals: exponential gaps, rounded to whole microseconds once.
    now_s_ += arrivals_.exponential(3600.0 / c_.arrival_rate_per_hour);
    out.submit = engine::from_seconds(now_s_);
    double d = durations_.lognormal(std::log(c_.duration_median_s), c_.duration_sigma);
    d = std::min(std::max(d, c_.duration_min_s), c_.duration_max_s);
    out.duration = engine::from_seconds(std::round(d));
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
    return true;
  }
  StringPool& strings() override { return strings_; }

 private:
  GeneratorConfig c_;
  engine::Rng arrivals_, durations_, shapes_, labels_;
  StringPool strings_;
  std::vector<Label> users_, models_;
  std::uint64_t produced_ = 0;
  double now_s_ = 0;
};
}  // namespace

std::unique_ptr<JobSource> make_generator(const GeneratorConfig& config, std::uint64_t seed) {
  validate(config);
  return std::make_unique<Generator>(config, seed);
}

}  // namespace schedlab::workload
