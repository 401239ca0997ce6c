// Which GPUs are free, with the indexes that let a placement find a host without scanning
// every host: per GPU model, hosts bucketed by their count of wholly free GPUs (ordered by
// host id), free GPUs per rack and per model. A GPU is either free, held whole by one task,
// or shared by fractional tasks whose shares sum to at most 1000 thousandths; whole-GPU
// tasks never share a GPU.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "cluster/host_set.h"
#include "cluster/placement.h"
#include "cluster/topology.h"

namespace schedlab::cluster {

class AllocationState {
 public:
  explicit AllocationState(const Topology& topo);

  const Topology& topology() const { return *topo_; }
  std::uint16_t whole_free(HostId h) const { return whole_free_[h]; }
  std::uint64_t free_gpus(ModelId m) const { return free_by_model_[m]; }
  std::uint64_t free_gpus() const { return free_total_; }
  std::uint64_t free_gpus(ModelMask mask) const;
  std::uint32_t rack_free(ModelId m, RackId r) const { return rack_free_[m * racks_ + r]; }
  std::uint64_t used_milli() const { return used_milli_; }
  // GPUs holding at least one share.
  std::uint64_t shared_gpus() const { return shared_total_; }

  // Hosts of model m with exactly k wholly free GPUs, in ascending id.
  const HostSet& hosts_with_free(ModelId m, std::uint16_t k) const { return buckets_[m][k]; }
  // Lowest-id host of model m with at least k free GPUs (first fit).
  std::optional<HostId> first_host_with(ModelId m, std::uint16_t k) const;
  // Host of model m with the fewest free GPUs that still has k, lowest id on ties (best fit).
  std::optional<HostId> tightest_host_with(ModelId m, std::uint16_t k) const;
  // Host of model m with the most free GPUs (at least k), lowest id on ties (worst fit).
  std::optional<HostId> roomiest_host_with(ModelId m, std::uint16_t k) const;
  // Free whole GPUs on hosts of model m that have at least k free (GPUs a task of k can use).
  std::uint64_t usable_gpus(ModelId m, std::uint16_t k) const;

  // Shares on host h: used thousandths per shared-GPU slot (0 = slot unused).
  const std::vector<std::uint16_t>& shares(HostId h) const { return share_used_[h]; }
  // Hosts of model m that have a shared GPU (ascending id).
  const HostSet& hosts_with_shares(ModelId m) const { return shared_hosts_[m]; }
  // The share slot on h with room for `milli`: the fullest one that fits when `tightest`,
  // else the lowest slot; -1 when none has room.
  int share_slot_with_room(HostId h, std::uint16_t milli, bool tightest) const;

  void take_whole(HostId h, std::uint16_t n);
  void release_whole(HostId h, std::uint16_t n);
  // Puts a share on an existing shared slot, or on a newly opened one when slot < 0.
  // Returns the slot used.
  std::uint16_t take_share(HostId h, std::uint16_t milli, int slot);
  void release_share(HostId h, std::uint16_t slot, std::uint16_t milli);

  void take(const TaskSlot& t);
  void release(const TaskSlot& t);
  // Ends a run: frees its tasks and advances the release epoch.
  void release(const Placement& p);
  // Failed GPUs leave the free indexes until repaired; only wholly free GPUs go down.
  void set_down(HostId h, std::uint16_t n);
  void set_up(HostId h, std::uint16_t n);
  std::uint16_t down(HostId h) const { return down_.empty() ? 0 : down_[h]; }
  std::uint64_t down_gpus() const { return down_total_; }
  // Counts completed runs' releases (not transaction rollbacks): if it has not moved, no
  // GPU was freed, and a placement that failed before fails again.
  std::uint64_t release_epoch() const { return release_epoch_; }

 private:
  void move_bucket(HostId h, std::uint16_t from, std::uint16_t to);
  std::size_t shared_gpus_on(HostId h) const;

  const Topology* topo_;
  std::size_t racks_;
  std::vector<std::uint16_t> whole_free_;
  std::vector<std::vector<HostSet>> buckets_;  // [model][free count]
  std::vector<std::uint32_t> rack_free_;               // [model * racks + rack]
  std::vector<std::uint64_t> free_by_model_;
  std::uint64_t free_total_ = 0;
  std::uint64_t used_milli_ = 0;
  std::uint64_t shared_total_ = 0;
  std::uint64_t release_epoch_ = 0;
  std::vector<std::uint16_t> down_;  // [host], allocated at the first failure
  std::uint64_t down_total_ = 0;
  std::vector<std::vector<std::uint16_t>> share_used_;  // [host][slot]
  std::vector<HostSet> shared_hosts_;          // [model]
};

// Tentative changes to an AllocationState: applied at once (so that later queries see
// them) and undone on destruction unless committed. Gang placement is built on it: tasks
// are assigned one by one, then the whole gang is committed or discarded.
class AllocationTransaction {
 public:
  explicit AllocationTransaction(AllocationState& state) : state_(&state) {}
  ~AllocationTransaction() { rollback(); }
  AllocationTransaction(const AllocationTransaction&) = delete;
  AllocationTransaction& operator=(const AllocationTransaction&) = delete;

  const AllocationState& state() const { return *state_; }
  // Records and applies one task's slot; fills in share_slot for shares.
  TaskSlot take(TaskSlot slot);
  // Records and applies the release of a held slot (a preemption's dry run frees victims).
  void release(const TaskSlot& slot);
  void commit() { log_.clear(); }
  void rollback();

 private:
  struct Entry {
    TaskSlot slot;
    bool taken;  // undo by releasing (else by taking back exactly this slot)
  };
  AllocationState* state_;
  std::vector<Entry> log_;
};

}  // namespace schedlab::cluster
