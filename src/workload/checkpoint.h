// Checkpoint-restart costs of one job: how often it saves its state (in its own progress),
// how long a save takes (GPUs held, no progress) and how long a restore takes on restart.
// From the trace's columns, else the scenario's `checkpoint:`, else the model catalog.
#pragma once

#include <cmath>

#include "engine/time.h"

namespace schedlab::workload {

struct CheckpointCost {
  engine::Time interval = 0;  // work (trace microseconds) between saves; 0 = no work is ever lost
  engine::Time save = 0;      // wall microseconds to save (a graceful preemption pays it)
  engine::Time restore = 0;   // wall microseconds to restore (every restart from a checkpoint pays it)
};

// The work (trace microseconds) saved by the last periodic checkpoint at or before `done`,
// never less than `restored` (the checkpoint the run resumed from stays valid).
inline double last_checkpoint(const CheckpointCost& c, double done, double restored) {
  if (c.interval <= 0) return done;
  const double step = static_cast<double>(c.interval);
  double periodic = done > 0 ? std::floor(done / step) * step : 0.0;
  return periodic > restored ? periodic : restored;
}

}  // namespace schedlab::workload
