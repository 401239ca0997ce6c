// xoshiro256** (Blackman & Vigna) seeded through SplitMix64, and the distributions over it.
#include "engine/rng.h"

#include <cmath>
#include <numbers>

namespace schedlab::engine {
namespace {
std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
// FNV-1a, to turn a stream name into a seed offset.
std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}
}  // namespace

Rng::Rng(std::uint64_t seed) : seed_(seed) {
  std::uint64_t x = seed;
  for (auto& w : s_) w = splitmix64(x);
}

Rng Rng::stream(std::string_view name) const { return Rng(seed_ ^ fnv1a(name)); }

std::uint64_t Rng::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

std::int64_t Rng::uniform_int(std::int64_t lo, std::int64_t hi) {
  const std::uint64_t range = static_cast<std::uint64_t>(hi - lo) + 1;
  if (range == 0) return static_cast<std::int64_t>(next_u64());  // full 64-bit range
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % range;
  std::uint64_t x;
  do {
    x = next_u64();
  } while (x >= limit);
  return lo + static_cast<std::int64_t>(x % range);
}

double Rng::exponential(double mean) { return -mean * std::log1p(-uniform()); }

double Rng::normal(double mean, double stddev) {
  double u1 = 1.0 - uniform();  // (0, 1]
  double u2 = uniform();
  return mean + stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

double Rng::lognormal(double mu, double sigma) { return std::exp(normal(mu, sigma)); }

double Rng::pareto(double xm, double alpha) { return xm / std::pow(1.0 - uniform(), 1.0 / alpha); }

std::size_t Rng::weighted_index(const double* weights, std::size_t n) {
  double total = 0;
  for (std::size_t i = 0; i < n; ++i) total += weights[i];
  double x = uniform() * total;
  for (std::size_t i = 0; i < n; ++i) {
    if (x < weights[i]) return i;
    x -= weights[i];
  }
  return n - 1;
}

}  // namespace schedlab::engine
