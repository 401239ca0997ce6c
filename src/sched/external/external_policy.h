// The schedlab side of the external-scheduler protocol (docs/external-scheduler.md): it
// gathers what happened since the last tick as events, sends a tick when there are any,
// and reads the policy's decisions back as values. It checks a decision's shape (the
// scheduler checks it against the allocation state and applies it) and reports invalid ones
// as the scenario asks: an InputError that ends the run, or a warning on stderr.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "cluster/topology.h"
#include "engine/time.h"
#include "sched/external/external_config.h"
#include "sched/external/policy_process.h"
#include "sched/pending_job.h"

namespace schedlab::sched {

struct ExternalDecision {
  enum class Kind { start, preempt, timer } kind = Kind::start;
  workload::JobId job = 0;
  std::vector<cluster::HostId> hosts;  // start: one per task
  engine::Time at = 0;                 // timer
  std::size_t index = 0;               // 1-based, in its message, for reports
  std::string text;                    // as the policy wrote it, for reports
};

class ExternalPolicy {
 public:
  // Starts the policy and shakes hands; throws InputError when either fails.
  ExternalPolicy(const ExternalConfig& config, const cluster::Topology& topo);
  // Says bye and lets the policy exit (killed after PolicyProcess::kGraceSeconds).
  ~ExternalPolicy();

  void submitted(const PendingJob& job, const std::string& trace_id, const std::string& user,
                 const std::string& model);
  void ended(workload::JobId id) { event("end", id); }
  void stopped(workload::JobId id, const char* cause);
  void requeued(workload::JobId id) { event("requeued", id); }
  void gone(workload::JobId id) { event("gone", id); }
  // `gpus_down`: how many of its GPUs are down now (0: it is up again).
  void host_changed(cluster::HostId h, std::uint16_t gpus_down);
  void timer_due(engine::Time at);

  bool has_events() const { return !events_.empty(); }
  // One tick at `now`: the events so far (and the state from `state` when the policy wants
  // it each time or asks for it); returns its decisions, well-formed ones only (a malformed
  // one is reported as invalid).
  std::vector<ExternalDecision> tick(engine::Time now, const std::function<nlohmann::json()>& state);
  // A decision that cannot be applied: ends the run (InputError) or, with on_invalid: skip,
  // is reported on stderr and ignored.
  void invalid(const ExternalDecision& d, const std::string& what) const;
  const std::string& host_name(cluster::HostId h) const { return host_names_[h]; }

 private:
  void event(const char* kind, workload::JobId id);
  [[noreturn]] void protocol_error(const std::string& what) const;
  nlohmann::json read_message(const char* expected);
  std::optional<ExternalDecision> parse_decision(const nlohmann::json& d, std::size_t index);

  ExternalConfig config_;
  const cluster::Topology* topo_;
  std::unique_ptr<PolicyChannel> process_;
  bool full_state_ = false;
  nlohmann::json events_ = nlohmann::json::array();
  std::vector<std::string> host_names_;
  std::unordered_map<std::string, cluster::HostId> host_ids_;
  engine::Time now_ = 0;  // of the tick being answered, for reports
};

}  // namespace schedlab::sched
