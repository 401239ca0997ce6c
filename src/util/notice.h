// Notices: what a user should know that is not an error (the timeline was coarsened, rows
// were reshaped by a documented rule, the perf model fell back to datasheet figures). Each
// goes to standard error as `schedlab: notice: ...`, and each distinct text only once per
// Notices. A command owns one for its run and passes it to whatever may raise one (trace
// readers, the perf model, the collector, the simulation, the emulator's token file): a
// compare shares one across its variants, which read the same trace and would otherwise say
// it once each; a sweep's cells, forks of the sweep, each take a copy of the sweep's.
// `--quiet` makes one that says nothing; `Notices::Hold` one that keeps what it is told, in
// order, for its owner to say later through another (run's pre-pass reads the trace before the
// run may speak: run/workload_scan.h).
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace schedlab::util {

class Notices {
 public:
  struct Hold {};
  explicit Notices(bool quiet = false) : quiet_(quiet) {}
  explicit Notices(Hold) : hold_(true) {}
  Notices(const Notices&) = delete;
  Notices& operator=(const Notices&) = delete;

  void say(const std::string& text);
  // A holding Notices: how many texts it holds (cheap enough to ask after every job), and
  // those texts, in the order they were said, handed over (it then holds none).
  std::size_t held() const { return held_count_.load(std::memory_order_relaxed); }
  std::vector<std::string> take_held();

 private:
  std::mutex mutex_;  // a compare's variants run in threads (and say a handful each, rarely)
  std::set<std::string> said_;
  bool quiet_ = false;
  bool hold_ = false;
  std::vector<std::string> held_;
  std::atomic<std::size_t> held_count_{0};
};

}  // namespace schedlab::util
