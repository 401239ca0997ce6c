// Text forms of CPU and memory figures.
#include "cluster/resources.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "util/checked.h"

namespace schedlab::cluster {

std::uint32_t checked_cpu_milli(double cpus, const util::FieldContext& where, bool positive) {
  util::checked_real(cpus, where, 0, kMaxCpus, positive);
  const double milli = cpus * kMilliPerCpu;
  if (std::fabs(milli - std::round(milli)) > 1e-6)
    util::throw_out_of_range(where, fmt::format("{} is finer than a thousandth of a CPU", cpus));
  const auto v = static_cast<std::uint32_t>(std::round(milli));
  if (positive && v == 0) util::throw_out_of_range(where, fmt::format("{} CPUs: a host needs at least 0.001", cpus));
  return v;
}

std::uint32_t checked_cpu_milli_int(std::int64_t milli, const util::FieldContext& where) {
  return util::checked_int<std::uint32_t>(milli, where, 0, static_cast<std::uint32_t>(kMaxCpus * kMilliPerCpu));
}

std::uint32_t checked_mem_mib(double gb, const util::FieldContext& where, bool positive) {
  util::checked_real(gb, where, 0, kMaxMemGb, positive);
  // Rounded up, so that a task never gets less than it asked for (1e-9: binary fractions of decimals).
  const auto v = static_cast<std::uint32_t>(std::max(0.0, std::ceil(gb * kMibPerGb - 1e-9)));
  return positive && v == 0 ? 1 : v;
}

std::uint32_t checked_mem_mib_int(std::int64_t mib, const util::FieldContext& where) {
  return util::checked_int<std::uint32_t>(mib, where, 0, static_cast<std::uint32_t>(kMaxMemGb * kMibPerGb));
}

namespace {
// Trailing zeros of the decimals (and a bare point) dropped.
std::string trim_decimals(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}
}  // namespace

std::string cpu_text(std::uint64_t cpu_milli) {
  return trim_decimals(fmt::format("{}.{:03}", cpu_milli / kMilliPerCpu, cpu_milli % kMilliPerCpu));
}

std::string mem_gb_text(std::uint64_t mem_mib) {
  // Exact: a MiB is 1/1024 GB = 0.0009765625, so ten decimals always suffice, and reading the
  // text back gives the same MiB.
  return trim_decimals(fmt::format("{}.{:010}", mem_mib / kMibPerGb, (mem_mib % kMibPerGb) * 9765625));
}

}  // namespace schedlab::cluster
