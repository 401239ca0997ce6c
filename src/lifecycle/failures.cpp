// The seeded failure model (a heap of each host's next failure plus the next GPU failure,
// drawn lazily) and the failure trace reader.
#include "lifecycle/failures.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <queue>

#include "engine/rng.h"
#include "util/checked.h"
#include "util/csv.h"
#include "util/error.h"
#include "util/line_reader.h"
#include "util/parse.h"
#include "util/suggest.h"

namespace schedlab::lifecycle {

namespace {
constexpr double kMicrosPerHour = 3600.0 * 1e6;
}  // namespace

// --- host names --------------------------------------------------------------------------

std::string host_name(const cluster::Topology& topo, cluster::HostId h) {
  (void)topo;
  return fmt::format("h{}", h);
}

std::optional<cluster::HostId> find_host(const cluster::Topology& topo, std::string_view name) {
  const auto n_hosts = topo.hosts().size();
  std::int64_t k = 0;
  if (name.size() > 1 && name.front() == 'h' && util::try_parse_int(name.substr(1), k)) {
    if (k >= 0 && static_cast<std::uint64_t>(k) < n_hosts) return static_cast<cluster::HostId>(k);
    return std::nullopt;
  }
  const auto slash = name.rfind('/');
  if (slash == std::string_view::npos || !util::try_parse_int(name.substr(slash + 1), k) || k < 0) return std::nullopt;
  const auto rack = name.substr(0, slash);
  for (const auto& r : topo.racks())
    if (r.name == rack) {
      if (static_cast<std::uint64_t>(k) >= r.hosts) return std::nullopt;
      return static_cast<cluster::HostId>(r.first_host + static_cast<cluster::HostId>(k));
    }
  return std::nullopt;
}

namespace {

// "unknown host 'x'; did you mean 'h3'? valid: h0..h6, or <rack>/<k> of racks v100 (3 hosts), ..."
std::string unknown_host_message(const cluster::Topology& topo, std::string_view name) {
  std::vector<std::string> candidates;
  for (cluster::HostId h = 0; h < topo.hosts().size(); ++h) candidates.push_back(host_name(topo, h));
  for (const auto& r : topo.racks())
    for (std::uint32_t k = 0; k < r.hosts; ++k) candidates.push_back(fmt::format("{}/{}", r.name, k));
  std::string msg = fmt::format("unknown host '{}'", name);
  const auto near = util::closest_match(name, candidates);
  if (!near.empty()) msg += fmt::format("; did you mean '{}'?", near);
  msg += fmt::format(" valid: h0..h{}, or <rack>/<k> of racks ", topo.hosts().empty() ? 0 : topo.hosts().size() - 1);
  const std::size_t shown = std::min<std::size_t>(topo.racks().size(), 8);
  for (std::size_t i = 0; i < shown; ++i)
    msg += fmt::format("{}{} ({} host{})", i ? ", " : "", topo.racks()[i].name, topo.racks()[i].hosts,
                       topo.racks()[i].hosts == 1 ? "" : "s");
  if (shown < topo.racks().size()) msg += fmt::format(", ... ({} racks)", topo.racks().size());
  return msg;
}

// --- the seeded rate model ---------------------------------------------------------------

// Each host is a renewal process: up for a time drawn from the host distribution (exponential,
// or Weibull of the given shape, with mean host_mtbf_h), then down for `repair`, then up again.
// Single-GPU failures form one Poisson process over the cluster's GPUs. Only the next event of
// each process is drawn: memory is one heap entry per host, whatever the run's length.
class RateFailures final : public FailureSource {
 public:
  RateFailures(const FailureRates& rates, const cluster::Topology& topo, std::uint64_t seed)
      : rates_(rates),
        topo_(topo),
        hosts_rng_(engine::Rng(seed).stream("failures.hosts")),
        gpus_rng_(engine::Rng(seed).stream("failures.gpus")) {
    if (rates_.host_mtbf_h > 0) {
      const double mean_us = rates_.host_mtbf_h * kMicrosPerHour;
      // Weibull(k, scale) has mean scale * Gamma(1 + 1/k): pick the scale that keeps the mean.
      host_scale_us_ = rates_.shape == 1 ? mean_us : mean_us / std::tgamma(1.0 + 1.0 / rates_.shape);
      // Every host starts new at time 0 (its first failure is a full time-between-failures).
      for (cluster::HostId h = 0; h < topo_.hosts().size(); ++h)
        if (topo_.host(h).gpus > 0) heap_.push({host_gap(), kHost, h});
    }
    if (rates_.gpu_failures_per_gpu_h > 0 && topo_.total_gpus() > 0) {
      gpu_mean_gap_us_ = kMicrosPerHour / (rates_.gpu_failures_per_gpu_h * static_cast<double>(topo_.total_gpus()));
      heap_.push({gpu_gap(0), kGpu, 0});
    }
  }

  bool next(FailureEvent& out) override {
    if (heap_.empty()) return false;
    const Pending p = heap_.top();
    heap_.pop();
    out = FailureEvent{};
    out.at = p.at;
    out.down_for = rates_.repair;
    if (p.kind == kHost) {
      out.host = p.host;
      out.gpu = kWholeHost;
      // The next failure of this host: after its repair and a fresh time between failures.
      heap_.push({util::add_time(util::add_time(p.at, rates_.repair), host_gap()), kHost, p.host});
    } else {
      // A uniformly random GPU of the cluster: a host weighted by its GPU count, then an index.
      const auto g = static_cast<cluster::GpuIndex>(
          gpus_rng_.uniform_int(0, static_cast<std::int64_t>(topo_.total_gpus()) - 1));
      out.host = topo_.host_of_gpu(g);
      out.gpu = static_cast<std::uint16_t>(g - topo_.host(out.host).first_gpu);
      heap_.push({gpu_gap(p.at), kGpu, 0});
    }
    return true;
  }

 private:
  enum Kind : std::uint8_t { kHost, kGpu };
  struct Pending {
    engine::Time at;
    Kind kind;
    cluster::HostId host;
    // Earliest first; at one instant host failures before GPU failures, then by host.
    bool operator>(const Pending& o) const {
      if (at != o.at) return at > o.at;
      if (kind != o.kind) return kind > o.kind;
      return host > o.host;
    }
  };

  engine::Time host_gap() {
    // Weibull by inversion: scale * (-ln(1 - U))^(1/k); k = 1 is the exponential.
    const double e = -std::log1p(-hosts_rng_.uniform());
    const double us = rates_.shape == 1 ? host_scale_us_ * e : host_scale_us_ * std::pow(e, 1.0 / rates_.shape);
    return util::time_from_double_clamped(us);
  }
  engine::Time gpu_gap(engine::Time from) {
    return util::add_time(from, util::time_from_double_clamped(gpus_rng_.exponential(gpu_mean_gap_us_)));
  }

  FailureRates rates_;
  const cluster::Topology& topo_;
  engine::Rng hosts_rng_;
  engine::Rng gpus_rng_;
  double host_scale_us_ = 0;
  double gpu_mean_gap_us_ = 0;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> heap_;
};

// --- the failure trace -------------------------------------------------------------------

// CSV with a header naming the columns time_s, host, down_s and optionally gpu (an index on
// the host; empty or absent = the whole host). Rows must come in time order: the file is
// streamed, never sorted in memory, and a row out of order is an error naming its line.
class TraceFailures final : public FailureSource {
 public:
  TraceFailures(const std::string& path, const cluster::Topology& topo) : reader_(path), topo_(topo) {
    read_header();
  }

  bool next(FailureEvent& out) override {
    std::string_view line;
    while (reader_.next(line)) {
      if (util::trim(line).empty() || util::trim(line).front() == '#') continue;
      parse_row(line, out);
      return true;
    }
    return false;
  }

 private:
  enum Col { kTime, kHost, kDown, kGpu, kColCount };
  static constexpr std::array<const char*, kColCount> kNames = {"time_s", "host", "down_s", "gpu"};

  util::FieldContext at(Col c) const { return util::FieldContext{reader_.path(), reader_.line_number(), kNames[c]}; }
  [[noreturn]] void bad(Col c, const std::string& what) const {
    throw util::InputError(reader_.path(), reader_.line_number(), kNames[c], what);
  }

  void read_header() {
    std::string_view line;
    do {
      if (!reader_.next(line))
        throw util::InputError(reader_.path(), reader_.line_number(), "",
                               "empty failure trace: no header row (time_s,host,down_s)");
    } while (util::trim(line).empty() || util::trim(line).front() == '#');
    // time_s, host and down_s are required; gpu is optional.
    ncols_ = util::read_csv_header(line, reader_.path(), reader_.line_number(),
                                   util::CsvHeaderSpec{kNames, kDown + 1, true, ""}, pos_);
  }

  void parse_row(std::string_view line, FailureEvent& out) {
    if (!util::split_csv_fields(line, fields_, scratch_))
      throw util::InputError(reader_.path(), reader_.line_number(), "",
                             "a quoted field is left open or followed by text before the next comma");
    if (fields_.size() != ncols_)
      throw util::InputError(reader_.path(), reader_.line_number(), "",
                             fmt::format("expected {} fields, found {}", ncols_, fields_.size()));
    auto field = [&](Col c) { return util::trim(fields_[static_cast<std::size_t>(pos_[c])]); };
    out = FailureEvent{};
    out.at = util::checked_seconds(util::parse_double(field(kTime), at(kTime)), at(kTime), 0.0);
    if (out.at < last_)
      bad(kTime, fmt::format("{} s is before the previous row's {} s: failure times must not decrease (sort the "
                             "file by time_s)",
                             engine::to_seconds(out.at), engine::to_seconds(last_)));
    last_ = out.at;
    const auto name = field(kHost);
    const auto host = find_host(topo_, name);
    if (!host) bad(kHost, unknown_host_message(topo_, name));
    out.host = *host;
    const double down = util::parse_double(field(kDown), at(kDown));
    util::checked_positive(down, at(kDown), util::kMaxInputSeconds);
    out.down_for = std::max<engine::Time>(util::checked_duration_seconds(down, at(kDown)), 1);
    if (pos_[kGpu] >= 0 && !field(kGpu).empty()) {
      const auto gpus = topo_.host(out.host).gpus;
      if (gpus == 0) bad(kGpu, fmt::format("host '{}' has no GPUs", name));
      out.gpu = util::checked_int<std::uint16_t>(util::parse_int(field(kGpu), at(kGpu)), at(kGpu), 0,
                                                 static_cast<std::uint16_t>(gpus - 1));
    }
  }

  util::LineReader reader_;
  const cluster::Topology& topo_;
  std::vector<std::string_view> fields_;
  std::string scratch_;  // unquoted fields
  std::array<int, kColCount> pos_{};
  std::size_t ncols_ = 0;
  engine::Time last_ = 0;
};

// Two sources merged in time order (rates and a trace together); at one instant the first wins.
class MergedFailures final : public FailureSource {
 public:
  MergedFailures(std::unique_ptr<FailureSource> a, std::unique_ptr<FailureSource> b)
      : a_(std::move(a)), b_(std::move(b)) {
    has_a_ = a_->next(next_a_);
    has_b_ = b_->next(next_b_);
  }
  bool next(FailureEvent& out) override {
    if (!has_a_ && !has_b_) return false;
    if (has_a_ && (!has_b_ || next_a_.at <= next_b_.at)) {
      out = next_a_;
      has_a_ = a_->next(next_a_);
    } else {
      out = next_b_;
      has_b_ = b_->next(next_b_);
    }
    return true;
  }

 private:
  std::unique_ptr<FailureSource> a_, b_;
  FailureEvent next_a_, next_b_;
  bool has_a_ = false, has_b_ = false;
};

}  // namespace

std::unique_ptr<FailureSource> make_rate_failures(const FailureRates& rates, const cluster::Topology& topo,
                                                  std::uint64_t seed) {
  return std::make_unique<RateFailures>(rates, topo, seed);
}

std::unique_ptr<FailureSource> open_failure_trace(const std::string& path, const cluster::Topology& topo) {
  return std::make_unique<TraceFailures>(path, topo);
}

std::uint64_t check_failure_trace(const std::string& path, const cluster::Topology& topo) {
  TraceFailures trace(path, topo);
  FailureEvent f;
  std::uint64_t rows = 0;
  while (trace.next(f)) ++rows;
  return rows;
}

std::unique_ptr<FailureSource> make_failure_source(const FailureSpec& spec, const cluster::Topology& topo,
                                                   std::uint64_t seed) {
  const bool rates = spec.rates.host_mtbf_h > 0 || spec.rates.gpu_failures_per_gpu_h > 0;
  std::unique_ptr<FailureSource> trace = spec.trace.empty() ? nullptr : open_failure_trace(spec.trace, topo);
  if (!rates) return trace;
  auto model = make_rate_failures(spec.rates, topo, seed);
  if (!trace) return model;
  return std::make_unique<MergedFailures>(std::move(trace), std::move(model));
}

}  // namespace schedlab::lifecycle
