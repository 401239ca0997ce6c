// α-β least squares, correction tables and the nccl-tests → profile import.
#include "calib/alpha_beta_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <set>

#include "util/error.h"
#include "util/suggest.h"

namespace schedlab::calib {
namespace {

double round_sig4(double v) {
  if (v == 0.0 || !std::isfinite(v)) return v;
  return std::stod(fmt::format("{:.4g}", v));
}

// Ring-model regressors: T = a·x + b·y with x = 2(n−1), y = 2(n−1)/n · S and b = 1/(β·1e3) µs/B.
double ring_x(int ranks) { return 2.0 * (ranks - 1); }
double ring_y(int ranks, double bytes) { return 2.0 * (ranks - 1) / ranks * bytes; }

bool usable(const FitSample& s) { return s.ranks >= 2 && s.time_us > 0 && s.bytes >= 0; }

// (ranks, bytes) -> geometric mean of the times there, and how many samples.
std::map<std::pair<int, double>, std::pair<double, int>> group(const std::vector<FitSample>& samples) {
  std::map<std::pair<int, double>, std::pair<double, int>> sum_log;
  for (const auto& s : samples) {
    if (!usable(s)) continue;
    auto& g = sum_log[{s.ranks, s.bytes}];
    g.first += std::log(s.time_us);
    g.second += 1;
  }
  for (auto& [k, g] : sum_log) g.first = std::exp(g.first / g.second);
  return sum_log;
}

}  // namespace

Bandwidths allreduce_bandwidths(double bytes, double time_us, int ranks) {
  Bandwidths b;
  if (time_us <= 0) return b;
  b.algbw = bytes / 1e9 / (time_us * 1e-6);
  b.busbw = ranks > 1 ? b.algbw * 2.0 * (ranks - 1) / ranks : 0.0;
  return b;
}

AlphaBetaFit fit_alpha_beta(const std::vector<FitSample>& samples) {
  double sxx = 0, sxy = 0, syy = 0, sxt = 0, syt = 0;
  int used = 0;
  std::set<double> sizes;
  for (const auto& s : samples) {
    if (!usable(s)) continue;
    double w = 1.0 / (s.time_us * s.time_us);
    double x = ring_x(s.ranks), y = ring_y(s.ranks, s.bytes);
    sxx += w * x * x;
    sxy += w * x * y;
    syy += w * y * y;
    sxt += w * x * s.time_us;
    syt += w * y * s.time_us;
    ++used;
    sizes.insert(s.bytes);
  }
  if (used < 2 || sizes.size() < 2)
    throw util::InputError(
        fmt::format("an alpha-beta fit needs rows at two or more sizes with 2 or more ranks; got {} row(s)"
                    " at {} size(s)",
                    used, sizes.size()));
  double det = sxx * syy - sxy * sxy;
  if (!(det > 1e-12 * sxx * syy))  // all rows on one (ranks, size) line: α and β cannot be told apart
    throw util::InputError("an alpha-beta fit needs rows that differ in size");
  double a = (sxt * syy - syt * sxy) / det;
  double b = (syt * sxx - sxt * sxy) / det;
  if (!(b > 0)) throw util::InputError("cannot fit a bandwidth: the times do not grow with the message size");
  if (!(a >= 0)) {  // constrained: α = 0 and fit β alone
    a = 0;
    b = syt / syy;
  }

  AlphaBetaFit fit;
  fit.alpha_us = a;
  fit.beta_gbps = 1.0 / (b * 1e3);
  perf::TierParams plain{fit.alpha_us, fit.beta_gbps, {}};
  for (const auto& [key, g] : group(samples)) {
    SizeFit f;
    f.ranks = key.first;
    f.bytes = key.second;
    f.measured_us = g.first;
    f.samples = g.second;
    f.model_us = plain.ring_us(f.ranks, f.bytes);
    f.model_error = f.model_us / f.measured_us - 1.0;
    f.corrected_us = f.model_us;
    f.corrected_error = f.model_error;
    fit.max_model_error = std::max(fit.max_model_error, std::abs(f.model_error));
    fit.sizes.push_back(f);
  }
  fit.max_corrected_error = fit.max_model_error;
  return fit;
}

std::vector<perf::SizeCorrection> correction_table(double alpha_us, double beta_gbps,
                                                   const std::vector<FitSample>& samples) {
  perf::TierParams plain{alpha_us, beta_gbps, {}};
  std::map<double, std::pair<double, int>> by_size;  // bytes -> (Σ log ratio, count)
  for (const auto& s : samples) {
    if (!usable(s)) continue;
    double model = plain.ring_us(s.ranks, s.bytes);
    if (!(model > 0)) continue;
    auto& e = by_size[s.bytes];
    e.first += std::log(s.time_us / model);
    e.second += 1;
  }
  std::vector<perf::SizeCorrection> out;
  for (const auto& [bytes, e] : by_size) {
    if (bytes <= 0) continue;  // log-linear interpolation needs positive sizes
    out.push_back({bytes, std::exp(e.first / e.second)});
  }
  return out;
}

perf::TierParams fit_tier(const std::vector<FitSample>& samples, AlphaBetaFit* report) {
  AlphaBetaFit fit = fit_alpha_beta(samples);
  perf::TierParams t;
  t.alpha_us = round_sig4(fit.alpha_us);
  t.beta_gbps = round_sig4(fit.beta_gbps);
  t.corrections = correction_table(t.alpha_us, t.beta_gbps, samples);
  for (auto& c : t.corrections) c.factor = round_sig4(c.factor);
  if (report) {
    fit.alpha_us = t.alpha_us;
    fit.beta_gbps = t.beta_gbps;
    fit.max_model_error = fit.max_corrected_error = 0;
    perf::TierParams plain{t.alpha_us, t.beta_gbps, {}};
    for (auto& f : fit.sizes) {
      f.model_us = plain.ring_us(f.ranks, f.bytes);
      f.model_error = f.model_us / f.measured_us - 1.0;
      f.corrected_us = t.predict_allreduce_us(f.ranks, f.bytes);
      f.corrected_error = f.corrected_us / f.measured_us - 1.0;
      fit.max_model_error = std::max(fit.max_model_error, std::abs(f.model_error));
      fit.max_corrected_error = std::max(fit.max_corrected_error, std::abs(f.corrected_error));
    }
    *report = std::move(fit);
  }
  return t;
}

std::vector<FitSample> samples_from_log(const NcclTestsLog& log, TableHalf half, int ranks_override) {
  int ranks = ranks_override > 0 ? ranks_override : log.ranks;
  std::vector<FitSample> out;
  out.reserve(log.rows.size() * 2);
  for (const auto& r : log.rows) {
    if (half != TableHalf::in_place) out.push_back({ranks, r.bytes, r.oop_time_us});
    if (half != TableHalf::out_of_place) out.push_back({ranks, r.bytes, r.ip_time_us});
  }
  return out;
}

perf::CalibrationProfile profile_from_nccl_tests(const std::vector<NcclTestsLog>& logs, const ImportOptions& options,
                                                 AlphaBetaFit* report) {
  if (logs.empty()) throw util::InputError("no nccl-tests logs given");
  perf::CalibrationProfile p;
  p.provenance.source = "nccl-tests";
  p.provenance.command = options.command;
  p.provenance.date = options.date;
  std::vector<std::string> hosts, gpus, nccls;
  auto add_unique = [](std::vector<std::string>& v, const std::string& s) {
    if (!s.empty() && std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
  };
  std::vector<FitSample> samples;
  std::string tier(perf::link_tier_name(options.tier));
  std::vector<std::string> paths;
  for (const auto& log : logs) {
    paths.push_back(log.path);
    int ranks = options.ranks_override > 0 ? options.ranks_override : log.ranks;
    if (ranks > perf::kMaxRanks)
      throw util::InputError(log.path, 0, "--ranks",
                             fmt::format("{} ranks is more than a profile holds ({})", ranks, perf::kMaxRanks));
    if (ranks <= 0)
      throw util::InputError(log.path, 0, "",
                             "cannot tell the number of ranks (no '#  Rank N' device lines, no NCCL 'nranks', and "
                             "busbw/algbw gives none); pass --ranks N");
    if (ranks < 2)
      throw util::InputError(
          log.path, 0, "",
          "1 rank: a single-rank allreduce crosses no link (busbw is 0), so it cannot calibrate the '" + tier +
              "' tier");
    add_unique(hosts, log.host);
    add_unique(gpus, log.gpu);
    add_unique(nccls, log.nccl_version);
    auto s = samples_from_log(log, TableHalf::both, ranks);
    samples.insert(samples.end(), s.begin(), s.end());
    for (const auto& r : log.rows) {
      p.measurements.push_back({"allreduce", tier, ranks, r.bytes, r.oop_time_us, r.oop_algbw, r.oop_busbw, 0});
      p.measurements.push_back({"allreduce_inplace", tier, ranks, r.bytes, r.ip_time_us, r.ip_algbw, r.ip_busbw, 0});
    }
  }
  p.provenance.host = util::join(hosts, ", ");
  p.provenance.gpu = util::join(gpus, ", ");
  p.provenance.nccl = util::join(nccls, ", ");
  // The fit sees samples, not files: its errors (too few sizes, times that do not grow) and a fit
  // outside the profile's sense ranges are reported naming the logs they came from.
  const std::string from = util::join(paths, ", ");
  try {
    p.tiers[options.tier] = fit_tier(samples, report);
  } catch (const util::InputError& e) {
    if (!e.file().empty()) throw;
    throw util::InputError(from, 0, "", e.what());
  }
  const perf::TierParams& t = p.tiers[options.tier];
  if (!(t.alpha_us >= 0 && t.alpha_us <= perf::kMaxAlphaUs))
    throw util::InputError(from, 0, "",
                           fmt::format("the fitted alpha, {} us per ring step, is outside [0, {}]: are these {} logs?",
                                       t.alpha_us, perf::kMaxAlphaUs, tier));
  if (!(t.beta_gbps >= perf::kMinBetaGbps && t.beta_gbps <= perf::kMaxBetaGbps))
    throw util::InputError(from, 0, "",
                           fmt::format("the fitted beta, {} GB/s, is outside [{}, {}]: are these {} logs?", t.beta_gbps,
                                       perf::kMinBetaGbps, perf::kMaxBetaGbps, tier));
  for (const auto& c : t.corrections)
    if (!(c.factor >= perf::kMinCorrection && c.factor <= perf::kMaxCorrection))
      throw util::InputError(
          from, 0, "",
          fmt::format("at {} bytes the measured time is {} times the alpha-beta fit, outside [{}, {}]", c.bytes,
                      c.factor, perf::kMinCorrection, perf::kMaxCorrection));
  return p;
}

void print_fit_report(const AlphaBetaFit& fit, std::string_view tier, std::ostream& out) {
  out << fmt::format("tier {}: alpha = {} us per ring step, beta = {} GB/s (bus bandwidth)\n", tier, fit.alpha_us,
                     fit.beta_gbps);
  out << fmt::format("{:>6} {:>12} {:>12} {:>12} {:>9} {:>12} {:>9}\n", "ranks", "bytes", "measured_us",
                     "alpha_beta_us", "error", "profile_us", "error");
  for (const auto& f : fit.sizes)
    out << fmt::format("{:>6} {:>12} {:>12.2f} {:>12.2f} {:>+8.1f}% {:>12.2f} {:>+8.2f}%\n", f.ranks, f.bytes,
                       f.measured_us, f.model_us, 100.0 * f.model_error, f.corrected_us, 100.0 * f.corrected_error);
  out << fmt::format("max |error|: alpha-beta line {:.1f}%, with the size corrections {:.2f}%\n",
                     100.0 * fit.max_model_error, 100.0 * fit.max_corrected_error);
}

}  // namespace schedlab::calib
