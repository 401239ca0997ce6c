// Placement `fgd`, fragmentation gradient descent (Weng et al., USENIX ATC'23): each task goes
// where the expected fragmentation of the cluster (sched/fragmentation.h, measured against
// the workload's mix of requests) grows least; for a share, onto the GPU of that host where it
// grows least. The mix is learned from the jobs shown to expect(): every job as it is
// submitted in a replay, the whole list beforehand in the packing mode (as the paper does).
// Ties go to the host left with the fewest free GPUs, then the lowest id. Tasks without GPUs
// descend the same measure (their CPUs can strand a host's GPUs).
#include <algorithm>
#include <string>
#include <unordered_map>

#include "sched/builtin_parts.h"
#include "sched/fragmentation.h"
#include "sched/placement_common.h"

namespace schedlab::sched {
namespace {

using cluster::HostId;

class Fgd final : public PlacementPolicy {
 public:
  void expect(const PendingJob& job) override {
    const auto& s = *job.spec;
    if (!s.needs_gpu()) return;  // a task without GPUs uses no GPU capacity
    measure_.add(TaskKind{static_cast<std::uint16_t>(s.fractional() ? 1 : s.gpus_per_task),
                          s.fractional() ? s.gpu_milli : std::uint16_t{1000}, s.cpu_milli, job.requested},
                 s.tasks);
    memo_.clear();
  }

  void place(const PendingJob& job, std::uint32_t want, cluster::ModelMask allowed, cluster::AllocationTransaction& tx,
             std::vector<cluster::TaskSlot>& out) const override {
    for (std::uint32_t placed = 0; placed < want; ++placed) {
      Choice best;
      if (!job.spec->needs_gpu())
        consider_without_gpu(job, allowed, tx.state(), best);
      else
        for_each_model(allowed, tx.state().topology().catalog().size(),
                       [&](cluster::ModelId m) { consider_model(job, m, tx.state(), best); });
      if (!best.found) return;
      const auto slot =
          task_slot(job, best.host, job.spec->fractional() || !job.spec->needs_gpu() ? 0 : job.spec->gpus_per_task);
      out.push_back(job.spec->fractional() ? tx.take_share_on(slot, best.share_slot) : tx.take(slot));
    }
  }

 private:
  struct Choice {
    bool found = false;
    double delta = 0;
    std::uint16_t whole_free_after = 0;
    HostId host = 0;
    int share_slot = -1;  // for a share: the shared GPU, or -1 for a newly opened one
    int rank = 0;         // among one host's options: its slots in order, a new GPU last
    std::uint32_t cpu_free = 0;  // for a task without GPUs: the host's free CPUs (fewest first)
    bool better_than(const Choice& o) const {
      if (!o.found) return true;
      if (delta != o.delta) return delta < o.delta;
      if (whole_free_after != o.whole_free_after) return whole_free_after < o.whole_free_after;
      if (cpu_free != o.cpu_free) return cpu_free < o.cpu_free;
      if (host != o.host) return host < o.host;
      return rank < o.rank;
    }
  };

  // A task without GPUs takes CPUs only, but CPUs short on a GPU host strand its GPUs: it goes
  // where fragmentation grows least too (a host without GPUs: not at all), then on the host
  // with the fewest free GPUs, then the fewest free CPUs.
  void consider_without_gpu(const PendingJob& job, cluster::ModelMask allowed, const cluster::AllocationState& a,
                            Choice& best) const {
    const auto& topo = a.topology();
    const cluster::TaskNeed need = job.need();
    for (HostId h = 0; h < topo.hosts().size(); ++h) {
      if (!topo.class_in_mask(topo.class_of(h), allowed) || !a.fits(h, need) || a.host_down(h)) continue;
      double delta = 0;
      if (topo.host(h).gpus > 0) {
        FragmentationMeasure::free_milli_of(a, h, room_);
        const auto model = topo.host(h).model;
        const std::uint32_t cpu = a.free_cpu_milli(h);
        delta = fragmentation(model, room_, cpu - need.cpu_milli) - fragmentation(model, room_, cpu);
      }
      Choice c{true, delta, a.whole_free(h), h, -1, 0, a.free_cpu_milli(h)};
      if (c.better_than(best)) best = c;
    }
  }

  void consider_model(const PendingJob& job, cluster::ModelId m, const cluster::AllocationState& a, Choice& best) const {
    const auto& s = *job.spec;
    const cluster::TaskNeed need = job.need();
    const std::uint16_t most = most_gpus(a.topology(), m);
    if (!s.fractional()) {
      const auto g = static_cast<std::uint16_t>(s.gpus_per_task);
      for (std::uint16_t k = g; k <= most; ++k)
        for (HostId h : a.hosts_with_free(m, k))
          if (a.fits(h, need)) offer(a, h, need, g, 0, -1, 0, best);
      return;
    }
    // A share: onto a shared GPU with room, or a wholly free GPU opened for sharing.
    for (HostId h : a.hosts_with_shares(m)) {
      if (!a.fits(h, need)) continue;
      const auto& used = a.shares(h);
      for (std::size_t slot = 0; slot < used.size(); ++slot)
        if (used[slot] > 0 && used[slot] + s.gpu_milli <= 1000)
          offer(a, h, need, 0, s.gpu_milli, static_cast<int>(slot), static_cast<int>(slot), best);
    }
    for (std::uint16_t k = 1; k <= most; ++k)
      for (HostId h : a.hosts_with_free(m, k))
        if (a.fits(h, need)) offer(a, h, need, 0, s.gpu_milli, -1, 1 << 16, best);
  }

  // One option: `whole` GPUs taken whole, or (whole = 0) a share of `milli` put on `slot`
  // (-1: a newly opened GPU). Keeps it in `best` when it raises fragmentation least.
  void offer(const cluster::AllocationState& a, HostId h, const cluster::TaskNeed& need, std::uint16_t whole,
             std::uint16_t milli, int slot, int rank, Choice& best) const {
    const auto model = a.topology().host(h).model;
    FragmentationMeasure::free_milli_of(a, h, room_);
    const std::uint32_t cpu = a.free_cpu_milli(h);
    const double before = fragmentation(model, room_, cpu);
    std::uint16_t whole_after = a.whole_free(h);
    if (whole > 0) {
      room_.erase(room_.begin(), room_.begin() + whole);  // sorted largest first: the free GPUs lead
      whole_after = static_cast<std::uint16_t>(whole_after - whole);
    } else {
      // The GPU's room before: 1000 for a new one, else what the slot has left.
      const std::uint16_t had = slot < 0 ? 1000 : static_cast<std::uint16_t>(1000 - a.shares(h)[slot]);
      auto it = std::find(room_.begin(), room_.end(), had);
      *it = static_cast<std::uint16_t>(had - milli);
      std::sort(room_.begin(), room_.end(), std::greater<>());
      if (slot < 0) --whole_after;
    }
    Choice c{true, fragmentation(model, room_, cpu - need.cpu_milli) - before, whole_after, h, slot, rank, 0};
    if (c.better_than(best)) best = c;
  }

  double fragmentation(cluster::ModelId model, const std::vector<std::uint16_t>& room, std::uint32_t cpu) const {
    // Hosts in the same state cost one computation: the key is (model, CPUs, rooms).
    key_.assign(reinterpret_cast<const char*>(&model), sizeof model);
    key_.append(reinterpret_cast<const char*>(&cpu), sizeof cpu);
    key_.append(reinterpret_cast<const char*>(room.data()), room.size() * sizeof(room[0]));
    auto it = memo_.find(key_);
    if (it != memo_.end()) return it->second;
    if (memo_.size() > kMemoLimit) memo_.clear();
    const double f = measure_.of(model, room, cpu);
    memo_.emplace(key_, f);
    return f;
  }

  std::uint16_t most_gpus(const cluster::Topology& topo, cluster::ModelId m) const {
    if (most_.empty()) {
      most_.assign(topo.catalog().size(), 0);
      for (const auto& h : topo.hosts())
        if (h.gpus > 0) most_[h.model] = std::max(most_[h.model], h.gpus);
    }
    return most_[m];
  }

  static constexpr std::size_t kMemoLimit = 1 << 20;
  FragmentationMeasure measure_;
  mutable std::unordered_map<std::string, double> memo_;
  mutable std::vector<std::uint16_t> most_;  // most GPUs on one host, per model
  mutable std::vector<std::uint16_t> room_;
  mutable std::string key_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> make_fgd_placement(const PartArgs&) { return std::make_unique<Fgd>(); }

}  // namespace schedlab::sched
