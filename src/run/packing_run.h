// The packing experiment (`workload.mode: packing`) of Weng et al., "Beware of Fragmentation"
// (USENIX ATC'23): pods arrive one at a time and never end, each placed at once by the
// scenario's scheduler parts or failed, until the GPU demand that arrived reaches
// `packing.arrive_until` times the cluster's GPUs (1.3, as in the paper). When the list asks
// for less, pods drawn from it at random (with the seed, with replacement) are added, as the
// authors' simulator inflates a workload; the pods arrive in the reader's order or shuffled
// by the seed. The result is the share of the cluster's GPUs allocated against the share
// demanded so far: the curve of the paper's Figure 9(a).
//
// Results folder: packing.csv (the curve at every whole percent of demand), pods.csv (each
// arrival: placed where, or why not), summary.json and run.yaml.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "config/scenario.h"
#include "util/notice.h"

namespace schedlab::run {

// The state after the first arrival that brought the demand to `arrived_pct` percent of the
// cluster's GPUs (0: before any arrival).
struct PackingPoint {
  std::uint32_t arrived_pct = 0;
  std::uint64_t pods_arrived = 0, pods_placed = 0;
  std::uint64_t demand_milli = 0;     // GPU thousandths the arrived pods asked for
  std::uint64_t allocated_milli = 0;  // GPU thousandths held by placed pods
};

struct PackingOutcome {
  std::uint64_t total_gpus = 0;
  std::uint64_t pods_in_list = 0;  // pods the trace gave (after its own drops)
  std::uint64_t pods_arrived = 0, pods_placed = 0, pods_failed = 0;
  std::uint64_t gpu_pods_failed = 0;  // failed pods that asked for GPUs
  std::uint64_t demand_milli = 0, allocated_milli = 0;
  std::uint64_t skipped_rows = 0;
  std::vector<std::pair<std::string, std::uint64_t>> skipped_by_reason;
  std::vector<PackingPoint> curve;
  std::string out_dir;

  // GPUs allocated at the first point where the demand reached `pct` percent, in percent of
  // the cluster's GPUs (the last point when the run ended before).
  double allocated_pct_at(std::uint32_t pct) const;
  // Name/value pairs in the order tables print them (`compare` lines variants up on them).
  std::vector<std::pair<std::string, double>> figures() const;
};

// Runs the experiment; writes the results folder to `out_dir` unless it is empty (replacing
// only a results folder, or with `force` an empty folder). A trace reader says its notices to `notices`.
PackingOutcome run_packing(const config::Scenario& scenario, util::Notices& notices, const std::string& out_dir,
                           bool force = false);

void write_packing_csv(std::ostream& out, const PackingOutcome& outcome);
void write_packing_summary_json(std::ostream& out, const PackingOutcome& outcome, const std::string& scenario);
// The table printed after a run.
std::string format_packing_table(const PackingOutcome& outcome);

}  // namespace schedlab::run
