// Calibration profiles: the ring prediction, YAML reading with file:line errors, the writer,
// and the datasheet defaults.
#include "perf/calibration_profile.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <ostream>

#include "util/yaml_util.h"
#include "util/checked.h"
#include "util/error.h"
#include "util/parse.h"
#include "util/suggest.h"

namespace schedlab::perf {

// ---------------------------------------------------------------------------------------------
// Names

std::string_view link_tier_name(LinkTier tier) {
  switch (tier) {
    case LinkTier::nvlink:
      return "nvlink";
    case LinkTier::pcie:
      return "pcie";
    case LinkTier::nic:
      return "nic";
    case LinkTier::rack:
      return "rack";
    case LinkTier::spine:
      return "spine";
  }
  return "?";
}

std::optional<LinkTier> link_tier_from_name(std::string_view name) {
  for (LinkTier t : kAllLinkTiers)
    if (link_tier_name(t) == name) return t;
  return std::nullopt;
}

std::vector<std::string> link_tier_names() {
  std::vector<std::string> out;
  for (LinkTier t : kAllLinkTiers) out.emplace_back(link_tier_name(t));
  return out;
}

std::string_view dtype_name(Dtype dtype) {
  switch (dtype) {
    case Dtype::fp32:
      return "fp32";
    case Dtype::fp16:
      return "fp16";
    case Dtype::bf16:
      return "bf16";
  }
  return "?";
}

std::optional<Dtype> dtype_from_name(std::string_view name) {
  for (Dtype d : kAllDtypes)
    if (dtype_name(d) == name) return d;
  return std::nullopt;
}

std::vector<std::string> dtype_names() {
  std::vector<std::string> out;
  for (Dtype d : kAllDtypes) out.emplace_back(dtype_name(d));
  return out;
}

std::string gpu_model_from_device_name(std::string_view device_name) {
  std::vector<std::string_view> words;
  util::split_whitespace(util::trim(device_name), words);
  for (std::string_view w : words) {
    if (w == "NVIDIA" || w == "Tesla" || w == "GeForce" || w == "Quadro") continue;
    return std::string(w.substr(0, w.find('-')));
  }
  return std::string(util::trim(device_name));
}

// ---------------------------------------------------------------------------------------------
// Prediction

double TierParams::ring_us(int ranks, double bytes) const {
  if (ranks < 2) return 0.0;
  double n = ranks;
  // S/β in µs with β in GB/s: bytes / (β·1e9) s = bytes / (β·1e3) µs.
  return 2.0 * (n - 1) * alpha_us + 2.0 * (n - 1) / n * bytes / (beta_gbps * 1e3);
}

double TierParams::correction(double bytes) const {
  if (corrections.empty()) return 1.0;
  if (bytes <= corrections.front().bytes) return corrections.front().factor;
  if (bytes >= corrections.back().bytes) return corrections.back().factor;
  auto hi = std::upper_bound(corrections.begin(), corrections.end(), bytes,
                             [](double b, const SizeCorrection& c) { return b < c.bytes; });
  auto lo = hi - 1;
  double t = (std::log(bytes) - std::log(lo->bytes)) / (std::log(hi->bytes) - std::log(lo->bytes));
  return lo->factor + t * (hi->factor - lo->factor);
}

const TierParams& CalibrationProfile::tier(LinkTier t) const {
  auto it = tiers.find(t);
  if (it == tiers.end()) {
    std::vector<std::string> present;
    for (const auto& [k, v] : tiers) present.emplace_back(link_tier_name(k));
    throw util::InputError(fmt::format("calibration profile has no '{}' tier; it has: {}", link_tier_name(t),
                                       present.empty() ? std::string("none") : util::join(present, ", ")));
  }
  return it->second;
}

double CalibrationProfile::predict_allreduce_us(LinkTier t, int ranks, double bytes) const {
  if (ranks < 2) return 0.0;
  return tier(t).predict_allreduce_us(ranks, bytes);
}

std::optional<double> CalibrationProfile::tflops(const std::string& gpu_model, Dtype dtype) const {
  auto m = compute.find(gpu_model);
  if (m == compute.end()) return std::nullopt;
  auto d = m->second.find(dtype);
  if (d == m->second.end()) return std::nullopt;
  return d->second;
}

// ---------------------------------------------------------------------------------------------
// Reading

namespace {

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const YAML::Node& at, const std::string& field, const std::string& what) const {
    throw util::InputError(file_, line_of(at), field, what);
  }

  static long line_of(const YAML::Node& n) {
    if (!n.IsDefined()) return 0;
    long line = n.Mark().line;
    return line >= 0 ? line + 1 : 0;
  }

  void expect_map(const YAML::Node& n, const std::string& field) const {
    if (!n.IsMap()) fail(n, field, "expected a mapping ({key: value, ...})");
  }

  // Every key must be one of `allowed`; an unknown one is reported on its own line.
  void check_keys(const YAML::Node& map, const std::string& field, const std::vector<std::string>& allowed) const {
    expect_map(map, field);
    for (const auto& kv : map) {
      std::string key = this->key(kv.first, field);
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
        fail(kv.first, field, util::unknown_name_message("key", key, allowed));
    }
  }

  std::string string(const YAML::Node& n, const std::string& field) const {
    if (!n.IsDefined() || n.IsNull()) return {};
    if (!n.IsScalar()) fail(n, field, "expected a text value");
    return n.Scalar();
  }

  double number(const YAML::Node& n, const std::string& field) const {
    if (!n.IsDefined()) fail(n, field, "missing");
    if (!n.IsScalar()) fail(n, field, "expected a number");
    double v;
    if (!util::try_parse_double(n.Scalar(), v)) fail(n, field, fmt::format("'{}' is not a number", n.Scalar()));
    return v;
  }

  // A number within [lo, hi] (lo excluded when lo_open), through the one checked conversion.
  double number_in(const YAML::Node& n, const std::string& field, double lo, double hi, bool lo_open = false) const {
    return util::checked_real(number(n, field), util::FieldContext{file_, line_of(n), field}, lo, hi, lo_open);
  }

  int integer_in(const YAML::Node& n, const std::string& field, int lo, int hi) const {
    if (!n.IsScalar()) fail(n, field, "expected an integer");
    std::int64_t v;
    if (!util::try_parse_int(n.Scalar(), v)) fail(n, field, fmt::format("'{}' is not an integer", n.Scalar()));
    return util::checked_int<int>(v, util::FieldContext{file_, line_of(n), field}, lo, hi);
  }

  // A map key as text: a list or map used as a key is an error at its line.
  std::string key(const YAML::Node& k, const std::string& field) const {
    if (!k.IsScalar()) fail(k, field, "a key must be a plain name, not a list or a map");
    return k.Scalar();
  }

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

void read_provenance(const Reader& r, const YAML::Node& n, Provenance& p) {
  r.check_keys(n, "provenance", {"source", "host", "gpu", "driver", "cuda", "nccl", "date", "command"});
  p.source = r.string(n["source"], "provenance.source");
  const std::vector<std::string> sources = {"datasheet", "nccl-tests", "measured"};
  if (!p.source.empty() && std::find(sources.begin(), sources.end(), p.source) == sources.end())
    r.fail(n["source"], "provenance.source", util::unknown_name_message("source", p.source, sources));
  p.host = r.string(n["host"], "provenance.host");
  p.gpu = r.string(n["gpu"], "provenance.gpu");
  p.driver = r.string(n["driver"], "provenance.driver");
  p.cuda = r.string(n["cuda"], "provenance.cuda");
  p.nccl = r.string(n["nccl"], "provenance.nccl");
  p.date = r.string(n["date"], "provenance.date");
  p.command = r.string(n["command"], "provenance.command");
}

TierParams read_tier(const Reader& r, const YAML::Node& n, const std::string& field) {
  r.check_keys(n, field, {"alpha_us", "beta_gbps", "corrections"});
  TierParams t;
  if (!n["alpha_us"]) r.fail(n, field, "missing 'alpha_us'");
  if (!n["beta_gbps"]) r.fail(n, field, "missing 'beta_gbps'");
  t.alpha_us = r.number_in(n["alpha_us"], field + ".alpha_us", 0.0, kMaxAlphaUs);
  t.beta_gbps = r.number_in(n["beta_gbps"], field + ".beta_gbps", kMinBetaGbps, kMaxBetaGbps);
  if (YAML::Node c = n["corrections"]; c && !c.IsNull()) {
    std::string cf = field + ".corrections";
    if (!c.IsSequence()) r.fail(c, cf, "expected a list of [bytes, factor] pairs");
    for (std::size_t i = 0; i < c.size(); ++i) {
      YAML::Node e = c[i];
      std::string ef = fmt::format("{}[{}]", cf, i);
      if (!e.IsSequence() || e.size() != 2) r.fail(e, ef, "expected [bytes, factor]");
      SizeCorrection sc;
      sc.bytes = r.number_in(e[0], ef, 0.0, kMaxMessageBytes, true);
      sc.factor = r.number_in(e[1], ef, kMinCorrection, kMaxCorrection);
      if (!t.corrections.empty() && !(sc.bytes > t.corrections.back().bytes))
        r.fail(e, ef, fmt::format("sizes must increase: {} after {}", sc.bytes, t.corrections.back().bytes));
      t.corrections.push_back(sc);
    }
  }
  return t;
}

Measurement read_measurement(const Reader& r, const YAML::Node& n, const std::string& field) {
  r.check_keys(n, field, {"kind", "tier", "ranks", "bytes", "time_us", "algbw", "busbw", "tflops"});
  Measurement m;
  if (n["kind"]) {
    m.kind = r.string(n["kind"], field + ".kind");
    const std::vector<std::string> kinds = {"allreduce",  "allreduce_inplace", "launch",    "memcpy_d2d", "memcpy_h2d",
                                            "memcpy_d2h", "gemm_fp32",         "gemm_fp16", "gemm_bf16"};
    if (std::find(kinds.begin(), kinds.end(), m.kind) == kinds.end())
      r.fail(n["kind"], field + ".kind", util::unknown_name_message("kind", m.kind, kinds));
  }
  if (n["tier"]) {
    m.tier = r.string(n["tier"], field + ".tier");
    if (!link_tier_from_name(m.tier))
      r.fail(n["tier"], field + ".tier", util::unknown_name_message("tier", m.tier, link_tier_names()));
  }
  // Raw rows are kept for provenance only; their ranges just keep them finite and meaningful.
  if (n["ranks"]) m.ranks = r.integer_in(n["ranks"], field + ".ranks", 1, kMaxRanks);
  if (n["bytes"]) m.bytes = r.number_in(n["bytes"], field + ".bytes", 0.0, kMaxMessageBytes);
  if (n["time_us"]) m.time_us = r.number_in(n["time_us"], field + ".time_us", 0.0, kMaxMeasuredUs);
  if (n["algbw"]) m.algbw = r.number_in(n["algbw"], field + ".algbw", 0.0, kMaxBetaGbps);
  if (n["busbw"]) m.busbw = r.number_in(n["busbw"], field + ".busbw", 0.0, kMaxBetaGbps);
  if (n["tflops"]) m.tflops = r.number_in(n["tflops"], field + ".tflops", 0.0, kMaxTflops);
  return m;
}

CalibrationProfile read_root(const Reader& r, const YAML::Node& root) {
  if (!root.IsDefined() || root.IsNull()) throw util::InputError(r.file(), 0, "", "empty calibration profile");
  r.check_keys(root, "profile", {"provenance", "tiers", "compute", "measurements"});
  CalibrationProfile p;
  if (YAML::Node n = root["provenance"]; n && !n.IsNull()) read_provenance(r, n, p.provenance);
  if (YAML::Node n = root["tiers"]; n && !n.IsNull()) {
    r.expect_map(n, "tiers");
    for (const auto& kv : n) {
      std::string name = r.key(kv.first, "tiers");
      auto tier = link_tier_from_name(name);
      if (!tier) r.fail(kv.first, "tiers", util::unknown_name_message("tier", name, link_tier_names()));
      p.tiers[*tier] = read_tier(r, kv.second, "tiers." + name);
      p.tiers[*tier].datasheet = p.provenance.source == "datasheet";
    }
  }
  if (YAML::Node n = root["compute"]; n && !n.IsNull()) {
    r.expect_map(n, "compute");
    for (const auto& kv : n) {
      std::string model = r.key(kv.first, "compute");
      std::string field = "compute." + model;
      r.check_keys(kv.second, field, dtype_names());
      auto& entry = p.compute[model];
      for (const auto& d : kv.second) {
        Dtype dtype = *dtype_from_name(d.first.Scalar());
        entry[dtype] = r.number_in(d.second, field + "." + d.first.Scalar(), kMinTflops, kMaxTflops);
      }
    }
  }
  if (YAML::Node n = root["measurements"]; n && !n.IsNull()) {
    if (!n.IsSequence()) r.fail(n, "measurements", "expected a list");
    for (std::size_t i = 0; i < n.size(); ++i)
      p.measurements.push_back(read_measurement(r, n[i], fmt::format("measurements[{}]", i)));
  }
  return p;
}

CalibrationProfile load_from(const std::string& name, const std::string& text) {
  Reader r(name);
  YAML::Node root = util::parse_yaml(text, name);
  try {
    return read_root(r, root);
  } catch (const YAML::Exception& e) {  // a conversion we did not foresee; still say where
    throw util::InputError(name, e.mark.line >= 0 ? e.mark.line + 1 : 0, "", e.msg);
  }
}

}  // namespace

// Read through config's checked file reading: a folder, a device or an over-long name is an
// InputError, never a stream exception (nor yaml-cpp's leak when its stream throws).
CalibrationProfile load_profile(const std::string& path) { return load_from(path, util::read_config_file(path)); }

CalibrationProfile load_profile_text(const std::string& text, const std::string& name) { return load_from(name, text); }

// ---------------------------------------------------------------------------------------------
// Writing

namespace {

// Always double-quoted, so that no value can change type ("yes", "2.28") or break the line.
std::string quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string num(double v) { return fmt::format("{}", v); }

}  // namespace

void write_profile(const CalibrationProfile& p, std::ostream& out) {
  out << kProfileFirstLine << " (format: docs/calibration.md)\n";
  const Provenance& pv = p.provenance;
  out << "provenance:\n";
  out << "  source: " << quote(pv.source) << "\n";
  out << "  host: " << quote(pv.host) << "\n";
  out << "  gpu: " << quote(pv.gpu) << "\n";
  out << "  driver: " << quote(pv.driver) << "\n";
  out << "  cuda: " << quote(pv.cuda) << "\n";
  out << "  nccl: " << quote(pv.nccl) << "\n";
  out << "  date: " << quote(pv.date) << "\n";
  out << "  command: " << quote(pv.command) << "\n";
  out << "tiers:";
  if (p.tiers.empty()) out << " {}";
  out << "\n";
  for (const auto& [tier, t] : p.tiers) {
    out << "  " << link_tier_name(tier) << ":\n";
    out << "    alpha_us: " << num(t.alpha_us) << "\n";
    out << "    beta_gbps: " << num(t.beta_gbps) << "\n";
    if (t.corrections.empty()) {
      out << "    corrections: []\n";
    } else {
      out << "    corrections:  # [bytes, measured / alpha-beta time]\n";
      for (const auto& c : t.corrections) out << "      - [" << num(c.bytes) << ", " << num(c.factor) << "]\n";
    }
  }
  out << "compute:";
  if (p.compute.empty()) out << " {}";
  out << "\n";
  for (const auto& [model, by_dtype] : p.compute) {
    out << "  " << quote(model) << ": {";
    bool first = true;
    for (const auto& [d, v] : by_dtype) {
      out << (first ? "" : ", ") << dtype_name(d) << ": " << num(v);
      first = false;
    }
    out << "}\n";
  }
  if (!p.measurements.empty()) {
    out << "measurements:\n";
    for (const auto& m : p.measurements) {
      out << "  - {kind: " << m.kind;
      if (!m.tier.empty()) out << ", tier: " << m.tier;
      out << ", ranks: " << m.ranks << ", bytes: " << num(m.bytes) << ", time_us: " << num(m.time_us)
          << ", algbw: " << num(m.algbw) << ", busbw: " << num(m.busbw);
      if (m.tflops > 0) out << ", tflops: " << num(m.tflops);
      out << "}\n";
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Defaults

CalibrationProfile datasheet_profile() {
  // Public figures, each cited with its source in configs/calibration/datasheet.yaml; keep
  // that file in step with this function (a test compares them).
  CalibrationProfile p;
  p.provenance.source = "datasheet";
  p.provenance.command = "schedlab built-in datasheet_profile()";
  p.provenance.date = "2026-11-21";

  // Each tier's figures and their sources: datasheet_alpha_source() and datasheet_beta_source() below.
  p.tiers[LinkTier::nvlink] = {0.92, 370.0, {}, true};
  p.tiers[LinkTier::pcie] = {0.92, 64.0, {}, true};
  p.tiers[LinkTier::nic] = {2.3, 47.0, {}, true};
  p.tiers[LinkTier::rack] = {2.3, 47.0, {}, true};
  p.tiers[LinkTier::spine] = {2.3, 47.0, {}, true};

  // Compute: peak dense figures from the datasheets (FP32; FP16/BF16 tensor), cited in datasheet.yaml.
  p.compute["H200"] = {{Dtype::fp32, 67.0}, {Dtype::fp16, 989.0}, {Dtype::bf16, 989.0}};  // H200 SXM
  p.compute["H100"] = {{Dtype::fp32, 67.0}, {Dtype::fp16, 989.0}, {Dtype::bf16, 989.0}};  // H100 SXM5
  p.compute["A100"] = {{Dtype::fp32, 19.5}, {Dtype::fp16, 312.0}, {Dtype::bf16, 312.0}};  // A100 SXM4
  p.compute["V100"] = {{Dtype::fp32, 15.7}, {Dtype::fp16, 125.0}};                        // V100 SXM2; no bf16 support
  p.compute["P100"] = {{Dtype::fp32, 10.6}, {Dtype::fp16, 21.2}};  // P100 SXM2; no tensor cores, no bf16
  return p;
}

std::string_view datasheet_alpha_source(LinkTier tier) {
  switch (tier) {
    case LinkTier::nvlink:
      return "8 B allreduce on 8xH100 p5 = 12.9 us over 2(8-1) = 14 ring steps (nccl-tests h100x8_p5_1node_nvswitch.log)";
    case LinkTier::pcie:
      return "no public figure: assumed the NVLink ring step (the same NCCL software path)";
    case LinkTier::nic:
    case LinkTier::rack:
    case LinkTier::spine:
      return "8 B allreduce over 2x p5 (EFA) = 69.1 us over 2(16-1) = 30 ring steps (nccl-tests "
             "h100x16_p5_2node_efa.log); rack and spine as nic (no separate public figure)";
  }
  return "";
}

std::string_view datasheet_beta_source(LinkTier tier) {
  switch (tier) {
    case LinkTier::nvlink:
      return "8xH100 NVSwitch plain-ring allreduce busbw, 370 GB/s (collectives.md; 18 NVLink 4 links x 20.6)";
    case LinkTier::pcie:
      return "PCIe Gen5 x16, 128 GB/s total = 64 GB/s per direction (datasheet table, collectives.md)";
    case LinkTier::nic:
    case LinkTier::rack:
    case LinkTier::spine:
      return "NDR InfiniBand achieved busbw per NIC, 46-48 GB/s (collectives.md); rack and spine as nic (on a "
             "non-blocking fabric the NIC is the bottleneck)";
  }
  return "";
}

CalibrationProfile overlay_profile(const CalibrationProfile& base, const CalibrationProfile& top) {
  CalibrationProfile out = base;
  out.provenance = top.provenance;
  for (const auto& [tier, t] : top.tiers) out.tiers[tier] = t;
  for (const auto& [model, by_dtype] : top.compute)
    for (const auto& [d, v] : by_dtype) out.compute[model][d] = v;
  out.measurements = top.measurements;
  return out;
}

}  // namespace schedlab::perf
