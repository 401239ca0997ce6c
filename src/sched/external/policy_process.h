// The external policy's process: started with /bin/sh -c, spoken to over pipes, one line at a
// time. Its standard error is ours (a policy's prints show). Lines it writes are read with a
// deadline, so a policy that hangs ends the run instead of stalling it.
#pragma once

#include <string>
#include <sys/types.h>

#include "sched/external/external_config.h"

namespace schedlab::sched {

// What ExternalPolicy speaks through: lines out, lines back. PolicyProcess is the one a run
// uses; tests and the fuzz target (tests/fuzz/fuzz_external.cpp) put the policy's lines in
// memory (ExternalConfig::channel), so that the reading and checking of replies is exercised
// without a process. The contract is PolicyProcess's: failures are InputErrors.
class PolicyChannel {
 public:
  virtual ~PolicyChannel() = default;
  virtual void send(const std::string& line) = 0;
  virtual std::string receive(double timeout_s) = 0;
  virtual void finish() = 0;
};

class PolicyProcess final : public PolicyChannel {
 public:
  // Throws InputError (naming where `config` was set) when the process cannot be started.
  PolicyProcess(const std::string& command, const ExternalConfig& config);
  // Closes its input and gives it `kGraceSeconds` to exit, then kills it.
  ~PolicyProcess() override;
  PolicyProcess(const PolicyProcess&) = delete;
  PolicyProcess& operator=(const PolicyProcess&) = delete;

  // Writes one line (a newline is added). Throws InputError when the policy is gone.
  void send(const std::string& line) override;
  // The next line it writes, without its newline. Throws InputError when it exits, closes its
  // output, writes a line longer than kMaxLineBytes (util/input_limits.h), or writes nothing
  // for `timeout_s`.
  std::string receive(double timeout_s) override;
  // Closes its input (it sees end of file) and waits up to kGraceSeconds for it to exit.
  void finish() override;

  static constexpr double kGraceSeconds = 5;

 private:
  [[noreturn]] void gone(const std::string& what);
  // Its exit status in words, waiting up to `wait_s` for it; kills it after that.
  std::string reap(double wait_s);

  std::string file_, field_, command_;
  long line_ = 0;
  pid_t pid_ = -1;
  int to_ = -1;    // its standard input
  int from_ = -1;  // its standard output
  std::string buffer_;
  std::size_t scanned_ = 0;  // bytes of buffer_ already searched for a newline
  bool reaped_ = false;
};

}  // namespace schedlab::sched
