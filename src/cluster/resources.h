// CPUs and memory as schedlab counts them: CPUs in thousandths (milli-CPUs, Kubernetes'
// unit), memory in MiB, both whole numbers; files and results give CPUs and GB (GiB, 1024
// MiB) as decimals. The conversions and the text forms live here, once.
#pragma once

#include <cstdint>
#include <string>

#include "util/parse.h"

namespace schedlab::cluster {

inline constexpr std::uint32_t kMilliPerCpu = 1000;
inline constexpr std::uint32_t kMibPerGb = 1024;

// Sense limits of one host's (and so one task's) CPUs and memory: 100,000 CPUs and 4,000,000
// GB (4 PB), far beyond any machine, so that both fit 32 bits in thousandths and MiB. A
// figure beyond them is a broken number (an error), not a job too big for the cluster (a drop).
inline constexpr double kMaxCpus = 100'000;
inline constexpr double kMaxMemGb = 4'000'000;

// CPUs given as a decimal count, as thousandths: a finite number within [0, kMaxCpus] (more
// than 0 when `positive`), no finer than a thousandth; else an InputError at `where`.
std::uint32_t checked_cpu_milli(double cpus, const util::FieldContext& where, bool positive = false);
// Thousandths of a CPU given as an integer (openb's cpu_milli), within the same limits.
std::uint32_t checked_cpu_milli_int(std::int64_t milli, const util::FieldContext& where);
// Memory given in GB (GiB), as MiB rounded up: finite, within [0, kMaxMemGb] (more than 0 when
// `positive`); else an InputError at `where`.
std::uint32_t checked_mem_mib(double gb, const util::FieldContext& where, bool positive = false);
// Memory given as an integer count of MiB (openb's memory_mib), within the same limits.
std::uint32_t checked_mem_mib_int(std::int64_t mib, const util::FieldContext& where);

// "12", "0.5", "2.25": CPUs from thousandths, without trailing zeros.
std::string cpu_text(std::uint64_t cpu_milli);
// "16", "0.5", "5.46875": GB from MiB, exactly (at most ten decimals), without trailing zeros.
std::string mem_gb_text(std::uint64_t mem_mib);

}  // namespace schedlab::cluster
