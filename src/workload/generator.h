// Synthetic traces from documented distributions, seeded. Arrivals are a Poisson process;
// durations are log-normal (heavy right tail, as fitted to Philly by Jeon et al. 2019),
// clipped to [min, max]; GPU counts are drawn from a weighted list of sizes (powers of two
// by default); a job larger than one host becomes tasks of `gpus_per_host` GPUs each. A share
// of the jobs may need no GPU (CPU jobs of weighted CPU counts).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workload/job_spec.h"

namespace schedlab::workload {

// One job shape drawn from an empirical table (see `shapes` below).
struct JobShape {
  std::uint32_t tasks = 1;
  std::uint32_t gpus_per_task = 1;
  std::uint16_t gpu_milli = 1000;
};

struct GeneratorConfig {
  std::uint64_t jobs = 1000;
  double arrival_rate_per_hour = 40;
  double duration_median_s = 1800;
  double duration_sigma = 1.6;  // of ln(duration)
  double duration_min_s = 60;
  double duration_max_s = 7 * 86400;
  std::vector<std::uint32_t> gpu_sizes = {1, 2, 4, 8, 16, 32, 64};
  std::vector<double> gpu_size_weights = {0.45, 0.15, 0.12, 0.14, 0.07, 0.05, 0.02};
  std::uint32_t gpus_per_host = 8;
  // When non-empty, shapes are drawn from this table instead of gpu_sizes (fitted traces
  // keep their exact shapes, fractional ones included).
  std::vector<JobShape> shapes;
  std::vector<double> shape_weights;
  std::vector<std::string> models;  // requested models; empty = no request
  std::vector<double> model_weights;
  std::uint32_t users = 32;
  // Jobs that need no GPU (CPU work beside the GPU jobs): this share of all jobs, each one
  // task of a CPU count drawn from cpu_sizes (weighted), with mem_gb_per_cpu GB per CPU. The
  // share is drawn from a stream of its own and the job's GPU shape is drawn either way, so
  // a share of 0 gives the trace as before. GPU jobs get no CPU figures (the scenario's
  // per-GPU defaults apply).
  double cpu_job_share = 0;
  std::vector<std::uint32_t> cpu_sizes = {1, 2, 4, 8, 16, 32};
  std::vector<double> cpu_size_weights = {0.25, 0.2, 0.2, 0.15, 0.1, 0.1};
  double mem_gb_per_cpu = 4;
  // Services and cron entries mixed in (workload/long_running.h). Each service: 1 to
  // service_instances_max instances of one GPU, wanted from an instant drawn in the first tenth
  // of the trace's expected span (jobs / rate) to its end. Each cron entry: one 1-GPU job of
  // cron_duration_s every cron_period_s, from an offset drawn within the first period, as long
  // as the trace lasts. Jobs are named svcN.i and cronN#k, their group svcN and cronN.
  std::uint32_t services = 0;
  std::uint32_t service_instances_max = 4;
  std::uint32_t cron_entries = 0;
  double cron_period_s = 6 * 3600;
  double cron_duration_s = 900;
};

// Checks the config; throws InputError naming the field.
void validate(const GeneratorConfig& c);
std::unique_ptr<JobSource> make_generator(const GeneratorConfig& config, std::uint64_t seed);

}  // namespace schedlab::workload
