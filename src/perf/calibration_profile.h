// A calibration profile: α-β ring parameters per link tier with a per-size correction table,
// compute throughput per GPU model, and where the figures came from (docs/calibration.md).
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace schedlab::perf {

// The links a collective can cross, innermost first.
enum class LinkTier { nvlink, pcie, nic, rack, spine };
inline constexpr std::array<LinkTier, 5> kAllLinkTiers = {LinkTier::nvlink, LinkTier::pcie, LinkTier::nic,
                                                          LinkTier::rack, LinkTier::spine};
std::string_view link_tier_name(LinkTier tier);
std::optional<LinkTier> link_tier_from_name(std::string_view name);
std::vector<std::string> link_tier_names();

enum class Dtype { fp32, fp16, bf16 };
inline constexpr std::array<Dtype, 3> kAllDtypes = {Dtype::fp32, Dtype::fp16, Dtype::bf16};
std::string_view dtype_name(Dtype dtype);
std::optional<Dtype> dtype_from_name(std::string_view name);
std::vector<std::string> dtype_names();

// "NVIDIA H100 80GB HBM3" -> "H100", "Tesla V100-SXM3-32GB" -> "V100": the key of `compute`.
std::string gpu_model_from_device_name(std::string_view device_name);

struct Provenance {
  std::string source;  // "datasheet" | "nccl-tests" | "measured"
  std::string host, gpu, driver, cuda, nccl, date, command;
};

// Sense ranges of a profile (docs/calibration.md). A figure outside them is a typo or a broken
// number: an α of 1e300 µs or a β of 1e-300 GB/s makes every multi-GPU run infinitely long.
inline constexpr double kMaxAlphaUs = 1e6;                        // 1 s per ring step
inline constexpr double kMinBetaGbps = 1e-3, kMaxBetaGbps = 1e6;  // 1 MB/s to 1 PB/s
inline constexpr double kMinCorrection = 1e-3, kMaxCorrection = 1e3;
inline constexpr double kMaxMessageBytes = 1e15;
inline constexpr double kMinTflops = 1e-6, kMaxTflops = 1e6;
inline constexpr int kMaxRanks = 1 << 24;
inline constexpr double kMaxMeasuredUs = 1e12;  // 11.6 days for one collective

// measured time / α-β time at one message size (bytes per rank).
struct SizeCorrection {
  double bytes = 0;
  double factor = 1;
};

// Ring allreduce on one tier: T = 2(n−1)·α + 2(n−1)/n · S/β, times correction(S).
struct TierParams {
  double alpha_us = 0;                      // latency per ring step, µs
  double beta_gbps = 0;                     // bus bandwidth, GB/s (1e9 bytes/s)
  std::vector<SizeCorrection> corrections;  // strictly increasing bytes; may be empty
  // A public default (datasheet_profile(), or a profile whose provenance.source is "datasheet"),
  // not a measurement: where the GPU catalog gives the model's own achieved bus bandwidth
  // (intra_busbw_gbps, nic_busbw_gbps in configs/gpus.yaml), that replaces β (perf/gang_shape.h).
  bool datasheet = false;

  // The plain α-β ring time in µs; 0 for fewer than 2 ranks (nothing to exchange).
  double ring_us(int ranks, double bytes) const;
  // Factor interpolated linearly in log(bytes) between entries, clamped at the ends; 1 if empty.
  double correction(double bytes) const;
  double predict_allreduce_us(int ranks, double bytes) const { return ring_us(ranks, bytes) * correction(bytes); }
};

// One raw row kept for provenance. kind: allreduce | allreduce_inplace | launch | memcpy_d2d |
// memcpy_h2d | memcpy_d2h | gemm_fp32 | gemm_fp16 | gemm_bf16 (docs/calibration.md).
struct Measurement {
  std::string kind = "allreduce";
  std::string tier;  // allreduce rows only; empty otherwise
  int ranks = 1;
  double bytes = 0;
  double time_us = 0;
  double algbw = 0;   // GB/s
  double busbw = 0;   // GB/s
  double tflops = 0;  // gemm rows only
};

class CalibrationProfile {
 public:
  Provenance provenance;
  std::map<LinkTier, TierParams> tiers;                    // a tier may be absent
  std::map<std::string, std::map<Dtype, double>> compute;  // GPU model -> dtype -> TFLOP/s
  std::vector<Measurement> measurements;

  bool has_tier(LinkTier tier) const { return tiers.count(tier) != 0; }
  // Throws InputError naming the tiers present when `tier` is absent.
  const TierParams& tier(LinkTier tier) const;
  // α-β ring time times the size correction, µs. 0 for ranks < 2.
  double predict_allreduce_us(LinkTier tier, int ranks, double bytes) const;
  // TFLOP/s, or nullopt when the model or dtype is not in the profile.
  std::optional<double> tflops(const std::string& gpu_model, Dtype dtype) const;
};

// Reads a profile; InputError(file, line, field, what) for bad YAML, unknown keys, bad values.
CalibrationProfile load_profile(const std::string& path);
// The same from text (tests, embedded profiles); `name` stands in for the file name in errors.
CalibrationProfile load_profile_text(const std::string& text, const std::string& name);
// Writes YAML that load_profile reads back to an equal profile (numbers in shortest round-trip form).
void write_profile(const CalibrationProfile& profile, std::ostream& out);
// The first line write_profile writes: calibrate -o replaces only a file that starts so.
inline constexpr std::string_view kProfileFirstLine = "# schedlab calibration profile";

// Defaults from public figures, each cited with its source in configs/calibration/datasheet.yaml.
CalibrationProfile datasheet_profile();
// Where datasheet_profile()'s α or β of `tier` comes from, in one line (`model explain`).
std::string_view datasheet_alpha_source(LinkTier tier);
std::string_view datasheet_beta_source(LinkTier tier);

// `top`'s tiers, compute entries and provenance over `base` (a fitted profile over the datasheet).
CalibrationProfile overlay_profile(const CalibrationProfile& base, const CalibrationProfile& top);

}  // namespace schedlab::perf
