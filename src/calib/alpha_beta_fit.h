// Fits the ring allreduce model T = 2(n−1)·α + 2(n−1)/n · S/β to measured (ranks, bytes, time)
// rows by least squares, then a per-size correction table so the profile reproduces each size.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "calib/nccl_tests_log.h"
#include "perf/calibration_profile.h"

namespace schedlab::calib {

// algbw and busbw (GB/s) from a time, as nccl-tests defines them for allreduce:
// algbw = bytes / 1e9 / seconds; busbw = algbw · 2(n−1)/n, so 0 for one rank.
struct Bandwidths {
  double algbw = 0, busbw = 0;
};
Bandwidths allreduce_bandwidths(double bytes, double time_us, int ranks);

struct FitSample {
  int ranks = 0;
  double bytes = 0;
  double time_us = 0;
};

// The fit at one (ranks, size): measured is the geometric mean of the samples there.
struct SizeFit {
  int ranks = 0;
  double bytes = 0;
  int samples = 0;
  double measured_us = 0;
  double model_us = 0;      // plain α-β
  double model_error = 0;   // model / measured − 1
  double corrected_us = 0;  // α-β times the correction table
  double corrected_error = 0;
};

struct AlphaBetaFit {
  double alpha_us = 0;
  double beta_gbps = 0;
  std::vector<SizeFit> sizes;  // by ranks, then bytes
  double max_model_error = 0;  // largest |model_error|
  double max_corrected_error = 0;
};

// Least squares on relative residuals (weights 1/t²) so that 8 B and 16 GiB rows count alike;
// α ≥ 0 and β > 0 are enforced. Rows with fewer than 2 ranks or no time are left out (a 1-rank
// allreduce crosses no link). Throws InputError when fewer than two rows remain or the times do
// not grow with size. Fills `sizes` with model errors only (no correction yet).
AlphaBetaFit fit_alpha_beta(const std::vector<FitSample>& samples);

// measured / α-β time per size (geometric mean over ranks and repeats), sizes increasing.
std::vector<perf::SizeCorrection> correction_table(double alpha_us, double beta_gbps,
                                                   const std::vector<FitSample>& samples);

// α, β and corrections for one tier, each rounded to 4 significant digits; `report` (optional)
// gets the fit with both the plain and the corrected errors.
perf::TierParams fit_tier(const std::vector<FitSample>& samples, AlphaBetaFit* report = nullptr);

enum class TableHalf { out_of_place, in_place, both };
// Rows as fit samples with the log's rank count (or `ranks_override` when > 0).
std::vector<FitSample> samples_from_log(const NcclTestsLog& log, TableHalf half = TableHalf::both,
                                        int ranks_override = 0);

struct ImportOptions {
  perf::LinkTier tier = perf::LinkTier::nvlink;
  int ranks_override = 0;  // > 0: use instead of what the log says
  std::string command;     // for provenance
  std::string date;        // for provenance, YYYY-MM-DD
};
// A profile with one fitted tier from nccl-tests logs (both table halves), the raw rows kept as
// measurements. Throws InputError naming the log when its rank count is unknown or below 2.
perf::CalibrationProfile profile_from_nccl_tests(const std::vector<NcclTestsLog>& logs, const ImportOptions& options,
                                                 AlphaBetaFit* report = nullptr);

// A human-readable table of the fit: one line per (ranks, size).
void print_fit_report(const AlphaBetaFit& fit, std::string_view tier, std::ostream& out);

}  // namespace schedlab::calib
