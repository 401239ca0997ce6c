// α-β cost formulas (see collective_cost.h and docs/perf-model.md).
#include "perf/collective_cost.h"

#include <algorithm>
#include <cmath>

namespace schedlab::perf {

namespace {
constexpr double kBytesPerGbUs = 1e3;  // 1 GB/s = 1e9 B/s = 1e3 B/µs
}

double ring_allreduce_us(int ranks, double bytes, const TierParams& link) {
  if (ranks < 2) return 0;
  double n = ranks;
  double t = 2 * (n - 1) * link.alpha_us + 2 * (n - 1) / n * bytes / (link.beta_gbps * kBytesPerGbUs);
  return t * link.correction(bytes);
}

double ring_reduce_scatter_us(int ranks, double bytes, const TierParams& link) {
  if (ranks < 2) return 0;
  double n = ranks;
  double t = (n - 1) * link.alpha_us + (n - 1) / n * bytes / (link.beta_gbps * kBytesPerGbUs);
  return t * link.correction(bytes);
}

double tree_allreduce_us(int ranks, double bytes, const TierParams& link) {
  if (ranks < 2) return 0;
  double depth = std::ceil(std::log2(static_cast<double>(ranks)));
  double t = 2 * depth * link.alpha_us + 2 * bytes / (link.beta_gbps * kBytesPerGbUs);
  return t * link.correction(bytes);
}

double parameter_server_us(int workers, int workers_per_host, int servers, double bytes, double alpha_us,
                           double worker_gbps, double server_gbps) {
  if (workers < 2) return 0;
  servers = std::max(servers, 1);
  double worker_side = workers_per_host * bytes / (worker_gbps * kBytesPerGbUs);
  double server_side = workers * bytes / (servers * server_gbps * kBytesPerGbUs);
  double one_way = alpha_us + std::max(worker_side, server_side);
  return 2 * one_way;
}

}  // namespace schedlab::perf
