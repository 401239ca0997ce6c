// The table of summary figures (see summary_figures.h; definitions in docs/metrics.md).
#include "metrics/summary_figures.h"

namespace schedlab::metrics {

std::string_view unit_symbol(FigureUnit unit) {
  switch (unit) {
    case FigureUnit::seconds:
      return "s";
    case FigureUnit::share:
      return "%";
    case FigureUnit::gpu_hours:
      return "GPU-h";
    case FigureUnit::count:
    case FigureUnit::number:
      break;
  }
  return "";
}

namespace {
using U = FigureUnit;
// The macro keeps each row on one line: name, label, unit, how, and the member it reads.
#define SCHEDLAB_FIGURE(field, label, unit, how) \
  FigureDef { #field, label, unit, how, [](const Summary& s) { return static_cast<double>(s.field); } }

const std::vector<FigureDef> kFigures = {
    SCHEDLAB_FIGURE(jobs, "jobs", U::count, "jobs submitted (dropped ones included)"),
    SCHEDLAB_FIGURE(finished, "finished", U::count, "jobs other than services that finished"),
    SCHEDLAB_FIGURE(dropped, "dropped", U::count, "jobs refused at submit (they can never fit)"),
    SCHEDLAB_FIGURE(failed, "failed", U::count, "jobs terminated after their last retry"),
    SCHEDLAB_FIGURE(jct_mean_s, "JCT mean", U::seconds, "end - submit, mean over finished jobs"),
    SCHEDLAB_FIGURE(jct_p50_s, "JCT p50", U::seconds, "end - submit, median over finished jobs"),
    SCHEDLAB_FIGURE(jct_p95_s, "JCT p95", U::seconds, "end - submit, 95th percentile over finished jobs"),
    SCHEDLAB_FIGURE(jct_p99_s, "JCT p99", U::seconds, "end - submit, 99th percentile over finished jobs"),
    SCHEDLAB_FIGURE(queueing_delay_mean_s, "queueing delay mean", U::seconds,
                    "time pending between submit and end (after preemptions too) = JCT - run time, mean"),
    SCHEDLAB_FIGURE(queueing_delay_p50_s, "queueing delay p50", U::seconds, "queueing delay, median"),
    SCHEDLAB_FIGURE(queueing_delay_p95_s, "queueing delay p95", U::seconds, "queueing delay, 95th percentile"),
    SCHEDLAB_FIGURE(queueing_delay_p99_s, "queueing delay p99", U::seconds, "queueing delay, 99th percentile"),
    SCHEDLAB_FIGURE(first_wait_mean_s, "first wait mean", U::seconds, "first start - submit, mean"),
    SCHEDLAB_FIGURE(first_wait_p95_s, "first wait p95", U::seconds, "first start - submit, 95th percentile"),
    SCHEDLAB_FIGURE(slowdown_mean, "slowdown mean", U::number, "JCT / run time, mean over jobs that ran > 0 s"),
    SCHEDLAB_FIGURE(bounded_slowdown_mean, "bounded slowdown mean", U::number,
                    "max(1, JCT / max(run time, 10 s)), mean"),
    SCHEDLAB_FIGURE(bounded_slowdown_p95, "bounded slowdown p95", U::number,
                    "max(1, JCT / max(run time, 10 s)), 95th percentile"),
    SCHEDLAB_FIGURE(makespan_s, "makespan", U::seconds, "last end - first submit"),
    SCHEDLAB_FIGURE(gpu_hours, "GPU-hours", U::gpu_hours, "GPU-time held by all runs"),
    SCHEDLAB_FIGURE(window_start_s, "window start", U::seconds, "start of the measurement window"),
    SCHEDLAB_FIGURE(window_end_s, "window end", U::seconds, "end of the measurement window"),
    SCHEDLAB_FIGURE(gpu_utilization, "GPU utilization", U::share,
                    "GPU-time held in the window / (GPUs x window length)"),
    SCHEDLAB_FIGURE(gpu_utilization_makespan, "GPU utilization (makespan)", U::share,
                    "GPU-time held / (GPUs x makespan): the drain tail included"),
    SCHEDLAB_FIGURE(fragmentation, "fragmentation", U::share,
                    "fragmented GPUs (free, unusable by the head job) / GPUs, time average in the window"),
    SCHEDLAB_FIGURE(preemptions, "preemptions", U::count, "stops by preemption, over all jobs"),
    SCHEDLAB_FIGURE(failures, "failures", U::count, "stops by a host or GPU failure, over all jobs"),
    SCHEDLAB_FIGURE(lost_gpu_hours, "lost GPU-hours", U::gpu_hours,
                    "work thrown away plus checkpoint save and restore time"),
    SCHEDLAB_FIGURE(goodput, "goodput", U::share, "(GPU-time held - lost) / GPU-time held"),
    SCHEDLAB_FIGURE(jain_fairness, "Jain fairness (users)", U::number,
                    "Jain's index of GPU-hours per user; none with fewer than 2 users"),
    SCHEDLAB_FIGURE(ftf_rho_max, "FTF rho max", U::number, "JCT / traced duration, maximum"),
    SCHEDLAB_FIGURE(ftf_rho_p95, "FTF rho p95", U::number, "JCT / traced duration, 95th percentile"),
    SCHEDLAB_FIGURE(finished_without_gpu, "finished without GPU", U::count, "finished jobs that need no GPU"),
    SCHEDLAB_FIGURE(gpu_job_first_wait_mean_s, "GPU-job first wait mean", U::seconds,
                    "first wait of finished jobs that need GPUs, mean"),
    SCHEDLAB_FIGURE(gpu_job_first_wait_p95_s, "GPU-job first wait p95", U::seconds,
                    "first wait of finished jobs that need GPUs, 95th percentile"),
    SCHEDLAB_FIGURE(cpu_utilization, "CPU utilization", U::share,
                    "CPU-time held in the window / (CPUs x window length)"),
    SCHEDLAB_FIGURE(cpu_utilization_makespan, "CPU utilization (makespan)", U::share,
                    "CPU-time held / (CPUs x makespan)"),
};
#undef SCHEDLAB_FIGURE
}  // namespace

const std::vector<FigureDef>& summary_figures() { return kFigures; }

const FigureDef* find_figure(std::string_view name) {
  for (const auto& f : kFigures)
    if (f.name == name) return &f;
  return nullptr;
}

std::vector<std::pair<std::string, double>> Summary::figures() const {
  std::vector<std::pair<std::string, double>> out;
  out.reserve(kFigures.size());
  for (const auto& f : kFigures) out.emplace_back(std::string(f.name), f.value(*this));
  return out;
}

}  // namespace schedlab::metrics
