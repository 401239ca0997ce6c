// What a stop costs a job, as plain functions of plain values (docs/lifecycle.md): which
// checkpoint costs a job has, how long a graceful stop keeps its GPUs, when evicting a running
// job first keeps work, what a stop keeps and throws away (and the GPU time that costs), what
// a failure that cuts a save short costs, and which jobs a failed host or GPU strikes. The
// simulation applies the answers to its job records; nothing here reads or changes a run.
#pragma once

#include <cstdint>
#include <vector>

#include "cluster/placement.h"
#include "engine/time.h"
#include "lifecycle/lifecycle_config.h"
#include "perf/perf_model.h"
#include "sched/job_life.h"
#include "workload/checkpoint.h"
#include "workload/job_spec.h"

namespace schedlab::sim {

// A job's checkpoint costs: per field, the trace's column, else the scenario's `checkpoint:`,
// else the model catalog's estimate, else none (docs/lifecycle.md).
workload::CheckpointCost checkpoint_for(const workload::JobSpec& job, const lifecycle::LifecycleConfig& lifecycle,
                                        const perf::PerfModel& perf);

// A graceful preemption saves all the job's work: its save fits in the grace period.
bool saves_on_preemption(const lifecycle::LifecycleConfig& lifecycle, const workload::CheckpointCost& ckpt);
// How long a preempted job keeps its GPUs to save (0: freed at once).
engine::Time stop_hold(const lifecycle::LifecycleConfig& lifecycle, const workload::CheckpointCost& ckpt);

// The work (trace microseconds) of a job whose runs report their own progress: its tasks resume
// from one checkpoint, so it is as far as its slowest run (`least_run`); a job that is not
// running, or not fully started, has made no progress past its checkpoint (`life.work_done`).
double job_progress(const sched::JobLife& life, bool fully_started, bool has_runs, double least_run);

// The running attempt of a job, as the thrash guard sees it.
struct Attempt {
  double restored = 0;            // work at the checkpoint it resumed from
  double done = 0;                // work done by now
  double total = 0;               // all its work
  engine::Time progress_from = 0; // when it began making progress (after its restore)
};
// The earliest instant (>= now) at which stopping the fully started attempt keeps work beyond
// `restored` (sched::JobLedger::keeps_work_from): at least what the stop and the restart cost,
// and past the next periodic checkpoint unless a graceful stop saves everything; an estimate
// at the attempt's speed so far. kTimeMax when the job finishes first.
engine::Time keeps_work_from(const Attempt& a, const workload::CheckpointCost& ckpt,
                             const lifecycle::LifecycleConfig& lifecycle, engine::Time now);

// A stop of a job's runs at `now`, priced.
struct StopPrice {
  double saved = 0;          // the work it keeps
  double lost = 0;           // work thrown away (done - saved)
  double wall_per_work = 0;  // wall microseconds this attempt took per unit of work (0: no progress)
  double lost_gpu_us = 0;    // the thrown-away work, at that wall time, on the GPUs held
  double hold_gpu_us = 0;    // the GPUs held to save
};
// `keeps_all`: the stop saves everything (a graceful preemption whose save fits, or a service);
// otherwise the job keeps its last periodic checkpoint. `gpus`: the GPUs it holds (whole plus
// shares); `hold`: how long it keeps them to save.
StopPrice price_stop(const workload::CheckpointCost& ckpt, bool keeps_all, double done, double restored,
                     engine::Time progress_from, engine::Time now, double gpus, engine::Time hold);
// Whether a stop keeps all the job's work (see price_stop); `preempted`: a preemption (or a
// pool's reclaim), not a failure or a kill.
bool keeps_all_work(bool preempted, bool service, const lifecycle::LifecycleConfig& lifecycle,
                    const workload::CheckpointCost& ckpt);

// A failure cuts a graceful stop's save short: only the periodic checkpoint survives.
struct CutSave {
  double kept = 0;            // the work the job keeps
  double lost = 0;            // what the save would have kept beyond that
  double lost_gpu_us = 0;     // that work, at the attempt's wall time per work, on the GPUs held
  double unspent_gpu_us = 0;  // the rest of the hold, no longer spent (taken off the loss)
};
// `saved`: what the save would have kept; `done_at_stop`, `restored_at_stop`: the stop's work
// done and the checkpoint that attempt had resumed from; `hold_until`: when the save would end.
CutSave price_cut_save(const workload::CheckpointCost& ckpt, double saved, double done_at_stop,
                       double restored_at_stop, double wall_per_work, double gpus, engine::Time hold_until,
                       engine::Time now);

// A run holding GPUs, as a failure sees it.
struct HeldRun {
  workload::JobId job = 0;
  const cluster::Placement* placement = nullptr;
};
// The jobs a failure on `host` strikes, sorted and without repeats. `runs`: the runs with a task
// on the host, in start order. A whole host strikes them all; a GPU (`gpu`, taken modulo the
// host's `working` GPUs) strikes its holder: whole-GPU tasks hold the first indexes (in start
// order), shared GPUs the next (by slot, `shares` as cluster::AllocationState::shares gives
// them), free GPUs the rest (no victim).
std::vector<workload::JobId> failure_victims(const std::vector<HeldRun>& runs, cluster::HostId host, bool whole,
                                             std::uint32_t gpu, std::uint32_t working,
                                             const std::vector<std::uint16_t>& shares);

}  // namespace schedlab::sim
