// The emulation's journal: an append-only file (WORK_DIR/journal.jsonl, one JSON object per
// line) from which `schedlab emulate --resume WORK_DIR` continues after the controller was
// killed. The loop is deterministic given what reached it from outside and when, so the
// journal records exactly that: a header with the command's options, the wall-clock anchor
// of trace time, and one line per instant at which inputs were applied (emu/controller/outside_input.h).
// The decisions (starts, stops, their reasons) follow from those and are derived again on
// replay; only the inputs are facts that no one can recompute. Lines are written with one
// write(2) each, so a killed controller loses nothing it had applied; fdatasync runs every 200 ms
// on a thread of its own, never in the loop's (a disk busy with other writers would hold up
// the loop, and with it every launch), so a machine crash loses what was written since the
// last sync that completed (the jobs it concerned fail and restart from their checkpoints).
// A last line cut short by a crash is ignored on reading.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "emu/controller/outside_input.h"
#include "engine/time.h"

namespace schedlab::emu {

inline constexpr int kJournalVersion = 1;

// Trace time `origin` was due at wall time `unix_us` (microseconds since the Unix epoch).
struct ClockAnchor {
  engine::Time origin = 0;
  std::int64_t unix_us = 0;
  bool operator==(const ClockAnchor&) const = default;
};

// The inputs the loop applied at one instant, in their order.
struct JournalBatch {
  engine::Time at = 0;
  std::vector<OutsideInput> inputs;
};

struct Journal {
  nlohmann::json options;  // what the header recorded (the command to run again)
  std::optional<ClockAnchor> anchor;  // absent when the clock never started
  std::vector<JournalBatch> batches;
};

class JournalWriter {
 public:
  // Creates `path` (refusing to overwrite one) and writes the header.
  static JournalWriter create(const std::string& path, const nlohmann::json& options);
  // Appends to an existing journal (a resumed emulation goes on writing the same one).
  static JournalWriter append(const std::string& path);
  JournalWriter(JournalWriter&& other) noexcept;
  JournalWriter& operator=(JournalWriter&&) = delete;
  JournalWriter(const JournalWriter&) = delete;
  ~JournalWriter();

  void clock_started(const ClockAnchor& anchor);
  // Loop thread: an input about to be applied, then the instant they were applied at (writes
  // the line when anything was recorded).
  void record(const OutsideInput& input);
  void end_batch(engine::Time at);
  // Makes everything written so far durable, in the caller's thread.
  void sync();

  // The thread that makes the written lines durable every `every` (journal.cpp).
  class Syncer;

 private:
  JournalWriter(int fd, std::string path);
  void write_line(const nlohmann::json& j);

  int fd_ = -1;
  std::string path_;
  nlohmann::json pending_ = nlohmann::json::array();
  std::unique_ptr<Syncer> syncer_;  // null after a move
};

// Reads a journal; InputError (path:line: field: what is wrong) when it is not one.
Journal read_journal(const std::string& path);

// For tests and the reader: one input as a journal element, and back.
nlohmann::json input_to_json(const OutsideInput& input);
// Throws InputError naming `path` and `line`.
OutsideInput input_from_json(const nlohmann::json& j, const std::string& path, long line);

}  // namespace schedlab::emu
