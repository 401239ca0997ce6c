// Row resampling with a load-keeping arrival span (see trace_resample.h for the method).
#include "workload/trace_resample.h"

#include <fmt/format.h>

#include <cmath>

#include "engine/rng.h"
#include "util/checked.h"
#include "util/error.h"
#include "workload/arrival_scale.h"
#include "workload/job_limit.h"
#include "workload/trace_stats.h"

namespace schedlab::workload {

namespace {
const std::string kNoFile;

class Resampler final : public JobSource {
 public:
  Resampler(std::unique_ptr<JobSource> trace, double load, std::uint64_t jobs, std::uint64_t seed,
            ResampleReport& report)
      : trace_(std::move(trace)), seed_(seed) {
    if (!(load >= kMinArrivalScale && load <= kMaxArrivalScale))
      throw util::InputError("", 0, "--load",
                             fmt::format("{} is out of range [{:g}, {:g}] (GPU demand relative to the --like trace)",
                                         load, kMinArrivalScale, kMaxArrivalScale));
    JobSpec j;
    engine::Time first = 0, last = 0;
    while (trace_->next(j)) {
      if (rows_.empty()) first = j.submit;
      last = j.submit;
      report.gpu_hours += job_gpu_hours(j);
      // The row's own identity and place in T are not part of what is resampled.
      j.id = 0;
      j.submit = 0;
      j.line = 0;
      j.trace_number = 0;
      j.trace_id = kNoLabel;
      j.group = kNoLabel;
      j.kind = JobKind::batch;
      j.recorded_wait_s = kNoRecordedWait;  // T's record of its own arrivals
      rows_.push_back(j);
    }
    report.rows = rows_.size();
    if (rows_.size() < 2) throw util::InputError("", 0, "--like", "a trace needs at least 2 jobs to generate like it");
    report.span_s = engine::to_seconds(last - first);
    if (!(report.span_s > 0))
      throw util::InputError("", 0, "--like",
                             "every job of the trace is submitted at one instant: it has no rate to keep");
    jobs_ = jobs ? jobs : rows_.size();
    check_job_count(jobs_, "jobs", "", 0, "--jobs");
    report.jobs = jobs_;
    report.load = load;

    // First pass over the draws: the GPU-hours of the rows that will be drawn, and the sum of
    // the gaps. next() makes the same draws again from fresh streams of the same seed.
    auto rows = rows_stream();
    for (std::uint64_t i = 0; i < jobs_; ++i) report.out_gpu_hours += job_gpu_hours(rows_[draw_row(rows)]);
    auto gaps = gaps_stream();
    for (std::uint64_t i = 1; i < jobs_; ++i) gap_total_ += gaps.exponential(1.0);
    // T's demand per hour of span, times the load; a CPU-only trace keeps its job rate.
    const double span_h = report.span_s / 3600.0;
    if (report.gpu_hours > 0 && report.out_gpu_hours > 0)
      span_s_ = report.out_gpu_hours / (load * report.gpu_hours / span_h) * 3600.0;
    else
      span_s_ = static_cast<double>(jobs_ - 1) / (load * static_cast<double>(rows_.size() - 1) / report.span_s);
    if (jobs_ < 2) span_s_ = 0;
    if (!(span_s_ <= util::kMaxInputSeconds))
      throw util::InputError(
          "", 0, "--load",
          fmt::format("{} jobs at this load would arrive over {:.3g} s, beyond 100 years ({} s): raise "
                      "--load or lower --jobs",
                      jobs_, span_s_, util::kMaxInputSeconds));
    report.out_span_s = span_s_;
    rows_draws_ = rows_stream();
    gap_draws_ = gaps_stream();
  }

  bool next(JobSpec& out) override {
    if (produced_ == jobs_) return false;
    out = rows_[draw_row(rows_draws_)];
    out.id = static_cast<JobId>(produced_);  // < jobs_, which check_job_count keeps within JobId
    out.trace_number = produced_;
    // The k-th submission at S · (e_1 + … + e_k) / (e_1 + … + e_{n−1}); the same additions in
    // the same order as the first pass, so the last one lands on S exactly.
    if (produced_ > 0) cum_ += gap_draws_.exponential(1.0);
    const double at = gap_total_ > 0 ? span_s_ * (cum_ / gap_total_) : 0.0;
    out.submit = util::checked_seconds(at, util::FieldContext{kNoFile, 0, "--load"}, 0);
    ++produced_;
    return true;
  }
  StringPool& strings() override { return trace_->strings(); }
  double fraction_done() const override {
    return static_cast<double>(produced_) / static_cast<double>(jobs_);
  }

 private:
  engine::Rng rows_stream() const { return engine::Rng(seed_).stream("resample_rows"); }
  engine::Rng gaps_stream() const { return engine::Rng(seed_).stream("resample_gaps"); }
  std::size_t draw_row(engine::Rng& r) const {
    return static_cast<std::size_t>(r.uniform_int(0, static_cast<std::int64_t>(rows_.size()) - 1));
  }

  std::unique_ptr<JobSource> trace_;  // kept for its string pool
  std::uint64_t seed_;
  std::vector<JobSpec> rows_;
  std::uint64_t jobs_ = 0;
  double span_s_ = 0, gap_total_ = 0, cum_ = 0;
  engine::Rng rows_draws_{0}, gap_draws_{0};
  std::uint64_t produced_ = 0;
};
}  // namespace

std::unique_ptr<JobSource> make_resampler(std::unique_ptr<JobSource> trace, double load, std::uint64_t jobs,
                                          std::uint64_t seed, ResampleReport& report) {
  report = ResampleReport{};
  return std::make_unique<Resampler>(std::move(trace), load, jobs, seed, report);
}

std::string ResampleReport::describe() const {
  const double per_day = span_s > 0 ? gpu_hours / (span_s / 86400) : 0;
  const double out_per_day = out_span_s > 0 ? out_gpu_hours / (out_span_s / 86400) : 0;
  return fmt::format(
      "resampling {} jobs (rows of the trace: {:.1f} GPU-hours over {:.2f} days = {:.1f} GPU-hours/day) into {} jobs "
      "at load {:g}: {:.1f} GPU-hours over {:.2f} days = {:.1f} GPU-hours/day ({:.3f}x)",
      rows, gpu_hours, span_s / 86400, per_day, jobs, load, out_gpu_hours, out_span_s / 86400, out_per_day,
      per_day > 0 ? out_per_day / per_day : 0.0);
}

}  // namespace schedlab::workload
