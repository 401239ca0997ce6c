// Slurm's durations as its commands print and take them: sacct's Elapsed and Timelimit, sbatch's
// --time. One reader, so that a trace and a sweep agree on what "1-00:30" means.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace schedlab::workload {

// "MM", "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS" (each part digits, fractional
// seconds after a '.' in the last part dropped) as seconds; nullopt for anything else
// ("UNLIMITED", "Partition_Limit", "", "1:2:3:4"). At most 100,000 days.
std::optional<std::uint64_t> slurm_duration_seconds(std::string_view text);

}  // namespace schedlab::workload
