// Job records, the runs that hold GPUs, and the counts the scheduler reads.
#include "sim/job_table.h"

#include <algorithm>
#include <limits>

#include "sim/stop_accounting.h"

namespace schedlab::sim {

double JobTable::work_done(workload::JobId id, engine::Time now) const {
  if (!active(id)) return 0;
  const auto& rt = record(id);
  double least = std::numeric_limits<double>::infinity();
  if (rt.life.state == sched::JobState::running && rt.fully_started)
    for (RunId r : rt.runs) least = std::min(least, executor_.progress(r, now));
  return job_progress(rt.life, rt.fully_started, !rt.runs.empty(), least);
}

std::uint64_t JobTable::user_held_milli(workload::Label user) const {
  auto it = user_milli_.find(user);
  return it == user_milli_.end() ? 0 : it->second;
}

void JobTable::held_slots(workload::JobId id, std::vector<cluster::TaskSlot>& out) const {
  out.clear();
  if (!active(id)) return;
  for (RunId r : record(id).runs) {
    const auto& tasks = runs_.at(r).placement.tasks;
    out.insert(out.end(), tasks.begin(), tasks.end());
  }
}

engine::Time JobTable::stop_hold(workload::JobId id) const {
  if (!active(id)) return 0;
  return sim::stop_hold(lifecycle_, record(id).ckpt);
}

engine::Time JobTable::keeps_work_from(workload::JobId id, engine::Time now) const {
  if (!active(id)) return now;
  const auto& rt = record(id);
  if (rt.life.state != sched::JobState::running) return now;
  // A job not fully started (incremental admission) makes no progress yet: it is evicted
  // only once it has run whole and gained its cost, or two such jobs could take each
  // other's GPUs forever without either making progress.
  if (!rt.fully_started) return engine::kTimeMax;
  const Attempt a{rt.life.work_done, work_done(id, now), rt.life.work_total, rt.progress_from};
  return sim::keeps_work_from(a, rt.ckpt, lifecycle_, now);
}

workload::JobId JobTable::add(workload::JobSpec spec) {
  const auto id = static_cast<workload::JobId>(specs_.size());
  spec.id = id;
  specs_.push_back(std::move(spec));
  if (slot_of_.size() <= id) slot_of_.resize(id + 1, kNoSlot);
  if (free_slots_.empty()) {
    slot_of_[id] = static_cast<std::uint32_t>(records_.size());
    records_.emplace_back();
    return id;
  }
  slot_of_[id] = free_slots_.back();
  free_slots_.pop_back();
  auto& r = records_[slot_of_[id]];
  auto runs = std::move(r.runs);  // keeps its capacity: no allocation per job
  r = JobRecord{};
  runs.clear();
  r.runs = std::move(runs);
  return id;
}

void JobTable::release(workload::JobId id) {
  ++ended_[static_cast<std::size_t>(records_[slot_of_[id]].life.state)];
  free_slots_.push_back(slot_of_[id]);
  slot_of_[id] = kNoSlot;
}

void JobTable::arrived(workload::JobId id) {
  ++active_jobs_;
  ++active_users_[specs_[id].user];
}

void JobTable::left(workload::JobId id) {
  --active_jobs_;
  auto it = active_users_.find(specs_[id].user);
  if (it != active_users_.end() && --it->second == 0) active_users_.erase(it);
}

void JobTable::hold_changed(workload::JobId id, std::int64_t delta_milli) {
  auto& rt = record(id);
  rt.life.held_milli = static_cast<std::uint64_t>(static_cast<std::int64_t>(rt.life.held_milli) + delta_milli);
  // The user's counter, found once per job (map nodes never move, and users are never erased).
  if (!rt.user_milli) rt.user_milli = &user_milli_[specs_[id].user];
  *rt.user_milli = static_cast<std::uint64_t>(static_cast<std::int64_t>(*rt.user_milli) + delta_milli);
}

RunId JobTable::add_run(Run run) {
  const RunId id = next_run_++;
  runs_.insert(id, std::move(run));
  return id;
}

}  // namespace schedlab::sim
