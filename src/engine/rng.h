// The run's seeded random streams. The generator (SplitMix64 seeding xoshiro256**) and
// every distribution are our own, documented here, so that a seed gives the same draws
// with any standard library; std::*_distribution is implementation-defined and never used.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace schedlab::engine {

class Rng {
 public:
  explicit Rng(std::uint64_t seed);
  // An independent stream for one purpose ("arrivals", "durations", ...): same seed and
  // name, same stream, regardless of how many draws other streams made.
  Rng stream(std::string_view name) const;

  std::uint64_t next_u64();
  // Uniform in [0, 1) with 53 random bits.
  double uniform();
  // Uniform integer in [lo, hi], by rejection (no modulo bias).
  std::int64_t uniform_int(std::int64_t lo, std::int64_t hi);
  // Exponential with the given mean: -mean * ln(1 - U).
  double exponential(double mean);
  // Standard normal by Box-Muller (the cosine branch only; one draw pair per call).
  double normal(double mean, double stddev);
  // exp(normal(mu, sigma)).
  double lognormal(double mu, double sigma);
  // Pareto with scale xm and shape alpha: xm / (1 - U)^(1/alpha).
  double pareto(double xm, double alpha);
  // Index i with probability weights[i] / sum(weights).
  std::size_t weighted_index(const double* weights, std::size_t n);

 private:
  std::array<std::uint64_t, 4> s_{};
  std::uint64_t seed_ = 0;
};

}  // namespace schedlab::engine
