// Notices: what a user should know that is not an error (the timeline was coarsened, rows
// were reshaped by a documented rule, the perf model fell back to datasheet figures). Each
// goes to standard error as `schedlab: notice: ...`, and each distinct text only once per
// Notices. A command owns one for its run and passes it to whatever may raise one (trace
// readers, the perf model, the collector, the simulation, the emulator's token file): a
// compare shares one across its variants, which read the same trace and would otherwise say
// it once each; a sweep's cells, forks of the sweep, each take a copy of the sweep's.
// `--quiet` makes one that says nothing.
#pragma once

#include <mutex>
#include <set>
#include <string>

namespace schedlab::util {

class Notices {
 public:
  explicit Notices(bool quiet = false) : quiet_(quiet) {}
  Notices(const Notices&) = delete;
  Notices& operator=(const Notices&) = delete;

  void say(const std::string& text);

 private:
  std::mutex mutex_;  // a compare's variants run in threads (and say a handful each, rarely)
  std::set<std::string> said_;
  bool quiet_;
};

}  // namespace schedlab::util
