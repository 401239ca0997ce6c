// Optimus' greedy marginal-gain allocation.
#include "sched/optimus_plan.h"


namespace schedlab::sched {

std::vector<std::uint64_t> optimus_sizes(const std::vector<SizingJob>& jobs, std::uint64_t capacity,
                                         const std::function<double(std::size_t, std::uint64_t)>& speed) {
  return optimus_sizes_by(jobs, capacity, speed);
}

}  // namespace schedlab::sched
