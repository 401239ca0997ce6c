// Which GPUs, CPUs and memory are free, with the indexes that let a placement find a host
// without scanning every host: per GPU model, hosts bucketed by their count of wholly free
// GPUs (ordered by host id), free GPUs per rack and per model; per host class (a GPU model's
// hosts, or the hosts without GPUs), hosts bucketed by free CPUs, for tasks that need no GPU.
// A GPU is either free, held whole by one task, or shared by fractional tasks whose shares
// sum to at most 1000 thousandths; whole-GPU tasks never share a GPU. A host's CPUs and
// memory are never given out beyond its capacity.
//
// A GPU search given a task's CPUs and memory returns the same host as without them when
// that host also has the CPUs and memory, else the next one in the same order that does:
// when no task asks a host for more CPUs or memory per GPU than it has, the searches cost
// what they did without CPUs. Hosts whose free CPUs or memory fell below their free GPUs'
// share ("short" hosts) are indexed, so that counting the GPUs a task can use stays cheap.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "cluster/host_set.h"
#include "cluster/placement.h"
#include "cluster/topology.h"

namespace schedlab::cluster {

// What one task needs beside its GPUs.
struct TaskNeed {
  std::uint32_t cpu_milli = 0;
  std::uint32_t mem_mib = 0;
  bool none() const { return cpu_milli == 0 && mem_mib == 0; }
};

// How a search for a host for a task without GPUs ranks the hosts that fit.
enum class HostPick : std::uint8_t {
  lowest,     // lowest id (first fit)
  tightest,   // fewest free CPUs, then lowest id (best fit)
  roomiest,   // most free CPUs, then lowest id (worst fit, spread)
};

// One change an AllocationTransaction made, in its log.
struct TransactionStep {
  TaskSlot slot;
  bool taken;  // undo by releasing (else by taking back exactly this slot)
};

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

  std::uint32_t free_cpu_milli(HostId h) const { return free_cpu_[h]; }
  std::uint32_t free_mem_mib(HostId h) const { return free_mem_[h]; }
  std::uint64_t used_cpu_milli() const { return used_cpu_; }
  std::uint64_t used_mem_mib() const { return used_mem_; }
  bool fits(HostId h, const TaskNeed& need) const {
    return free_cpu_[h] >= need.cpu_milli && free_mem_[h] >= need.mem_mib;
  }
  // Tasks of g whole GPUs (0 = none) and `need` each that host h can take now.
  std::uint32_t task_room(HostId h, std::uint16_t g, const TaskNeed& need) const;

  // Hosts of model m with exactly k wholly free GPUs, in ascending id.
  const HostSet& hosts_with_free(ModelId m, std::uint16_t k) const { return buckets_[m][k]; }
  // Lowest-id host of model m with at least k free GPUs and `need` (first fit).
  std::optional<HostId> first_host_with(ModelId m, std::uint16_t k, const TaskNeed& need = {}) const;
  // Host of model m with the fewest free GPUs that still has k (and `need`), lowest id on ties (best fit).
  std::optional<HostId> tightest_host_with(ModelId m, std::uint16_t k, const TaskNeed& need = {}) const;
  // Host of model m with the most free GPUs (at least k, and `need`), lowest id on ties (worst fit).
  std::optional<HostId> roomiest_host_with(ModelId m, std::uint16_t k, const TaskNeed& need = {}) const;
  // Free whole GPUs on hosts of model m that have at least k free (GPUs a task of k can use).
  // With a need, a host counts only the GPUs of the tasks its free CPUs and memory allow.
  std::uint64_t usable_gpus(ModelId m, std::uint16_t k, const TaskNeed& need = {}) const;
  // Hosts of model m whose free CPUs or memory are below their free GPUs' share of the host's.
  const HostSet& short_hosts(ModelId m) const { return short_[m]; }

  // A host for a task without GPUs that needs `need`, among the classes of `mask`
  // (Topology::for_each_class), ranked by `pick`; hosts in `avoid` are passed over.
  std::optional<HostId> cpu_host(ModelMask mask, const TaskNeed& need, HostPick pick,
                                 const std::vector<HostId>* avoid = nullptr) const;

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

  // CPUs and memory of one task on host h (within what is free).
  void take_resources(HostId h, std::uint32_t cpu_milli, std::uint32_t mem_mib);
  void release_resources(HostId h, std::uint32_t cpu_milli, std::uint32_t mem_mib);

  void take(const TaskSlot& t);
  void release(const TaskSlot& t);
  // Ends a run: frees its tasks and advances the release epoch.
  void release(const Placement& p);
  // Failed GPUs leave the free indexes until repaired; only wholly free GPUs go down. A host
  // whose GPUs are all down is down: its CPUs leave the index of tasks without GPUs too.
  void set_down(HostId h, std::uint16_t n);
  void set_up(HostId h, std::uint16_t n);
  std::uint16_t down(HostId h) const { return down_.empty() ? 0 : down_[h]; }
  bool host_down(HostId h) const { return !down_.empty() && down_[h] > 0 && down_[h] == topo_->host(h).gpus; }
  std::uint64_t down_gpus() const { return down_total_; }
  // Counts completed runs' releases (not transaction rollbacks): if it has not moved, no
  // GPU was freed, and a placement that failed before fails again.
  std::uint64_t release_epoch() const { return release_epoch_; }
  // Moves whenever any host's free GPUs, CPUs or memory change (takes, releases, failures and
  // repairs, rollbacks included): a figure computed from them at the same version is the same.
  std::uint64_t version() const { return version_; }

 private:
  void move_bucket(HostId h, std::uint16_t from, std::uint16_t to);
  std::size_t shared_gpus_on(HostId h) const;
  std::size_t cpu_bucket_of(std::uint32_t milli) const { return milli / cpu_unit_; }
  // Re-files host h in the short-host index after its free GPUs, CPUs or memory changed.
  void update_short(HostId h);
  // take_whole, release_whole, take_resources and release_resources without update_short
  // (take and release of a task call it once for both): false when nothing changed.
  bool take_whole_counts(HostId h, std::uint16_t n);
  bool release_whole_counts(HostId h, std::uint16_t n);
  bool take_resources_counts(HostId h, std::uint32_t cpu_milli, std::uint32_t mem_mib);
  bool release_resources_counts(HostId h, std::uint32_t cpu_milli, std::uint32_t mem_mib);
  // Moves host h between free-CPU buckets after its free CPUs went from `from` (not while down).
  void move_cpu_bucket(HostId h, std::uint32_t from);
  // The lowest-id host of `set` below `below` that fits `need`.
  std::optional<HostId> first_fitting(const HostSet& set, const TaskNeed& need,
                                      HostId below = ~HostId{0}) const;

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
  std::uint64_t version_ = 0;
  std::vector<std::uint16_t> down_;  // [host], allocated at the first failure
  std::uint64_t down_total_ = 0;
  std::vector<std::vector<std::uint16_t>> share_used_;  // [host][slot]
  std::vector<HostSet> shared_hosts_;          // [model]
  std::vector<std::uint32_t> free_cpu_;        // [host], milli-CPUs
  std::vector<std::uint32_t> free_mem_;        // [host], MiB
  std::uint64_t used_cpu_ = 0;
  std::uint64_t used_mem_ = 0;
  // Hosts by free CPUs, per class: cpu_buckets_[class][free_cpu / cpu_unit_].
  std::vector<std::vector<HostSet>> cpu_buckets_;
  std::uint32_t cpu_unit_ = 1000;  // milli-CPUs per bucket: one CPU, or more on huge hosts
  std::vector<HostSet> short_;     // [model]
  // Logs of ended transactions, lent to the next ones (a preemption's dry run opens thousands,
  // and a fresh log allocated as it grew). Never grown past its capacity, so that giving a log
  // back (in a destructor) cannot throw.
  friend class AllocationTransaction;
  std::vector<std::vector<TransactionStep>> spare_logs_;
};

// Tentative changes to an AllocationState: applied at once (so that later queries see
// them) and undone on destruction unless committed. Gang placement is built on it: tasks
// are assigned one by one, then the whole gang is committed or discarded.
class AllocationTransaction {
 public:
  explicit AllocationTransaction(AllocationState& state);
  ~AllocationTransaction();
  AllocationTransaction(const AllocationTransaction&) = delete;
  AllocationTransaction& operator=(const AllocationTransaction&) = delete;

  const AllocationState& state() const { return *state_; }
  // Records and applies one task's slot; fills in share_slot for shares (the fullest shared
  // GPU with room, else a newly opened one).
  TaskSlot take(TaskSlot slot);
  // The same for a share put on a chosen shared GPU: `share_slot` (which must have room), or
  // a newly opened GPU when -1.
  TaskSlot take_share_on(TaskSlot slot, int share_slot);
  // Records and applies the release of a held slot (a preemption's dry run frees victims).
  void release(const TaskSlot& slot);
  void commit() { log_.clear(); }
  void rollback();

 private:
  AllocationState* state_;
  std::vector<TransactionStep> log_;
};

}  // namespace schedlab::cluster
