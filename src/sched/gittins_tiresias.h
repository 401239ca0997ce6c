// The Tiresias simulator's Gittins ranks (docs/policies.md, D11), for `gittins` with `samples:`
// and `index: tiresias`: the sample file of job sizes it reads (a CSV with a `duration`
// column), and the rank it computes per sample with its own arithmetic (one quantum ahead,
// raw sizes summed, Python 2's integer division and rounding), so that ties and order agree
// with the simulator's job by job.
#pragma once

#include <string>
#include <vector>

namespace schedlab::sched {

// The `duration` column of a CSV (other columns ignored), each 1 to 1e9 seconds (GPU-seconds
// under gpu-time), returned in microseconds. InputError at the file and line.
std::vector<double> read_gittins_samples(const std::string& path);

// x >= 0 rounded to `digits` decimals (0..6), an exact half away from zero: Python 2's round().
double round_half_away(double x, int digits);

// The simulator's rank, higher first, for the sample index i (samples sorted, in
// microseconds; `prefix` their prefix sums; the quantum in microseconds), all in whole seconds:
// k = n - 1 when s[i] - 1 + quantum reaches the largest sample, else the count of samples at most
// that; P = (k - i) / (n - i) to 5 decimals; E = (s[i] + ... + s[k-1] + quantum (n - k)) // (n - i);
// rank = P 10^6 / E to 4 decimals.
double tiresias_rank(const std::vector<double>& sorted, const std::vector<double>& prefix, double quantum,
                     std::size_t i);

}  // namespace schedlab::sched
