// The per-step barrier of a gang of `schedlab worker` processes: data-parallel training advances
// in lockstep (every rank's gradients are summed before the next step), so a rank that is slow
// stalls the others and a rank that dies breaks the gang. Rank 0 serves the barrier on
// MASTER_ADDR:MASTER_PORT over TCP (Boost.Asio, one background thread); the other ranks connect,
// retrying until rank 0 is up. The wire is lines of text, each at most 1 KiB:
//
//   rank > 0 -> rank 0:  hello EMU JOB WORLD RANK PLAN   (once, first; a mismatch is refused)
//                        arrive N                    (this rank finished round N)
//                        leave                       (this rank is done; its close is not a failure)
//                        stop                        (this rank stops gracefully; so does the gang)
//   rank 0 -> rank > 0:  start ANNOUNCE              (every rank joined; ANNOUNCE is rank 0's line)
//                        go N                        (every rank finished round N)
//                        stop                        (a rank stops gracefully: every rank does)
//                        broken WHY                  (the gang is broken; then rank 0 closes)
//                        refused WHY                 (a bad hello; then rank 0 closes)
//
// EMU is the emulation's identity (SCHEDLAB_EMULATION_ID, a random token each emulation draws):
// it is checked first, and a rank of another emulation (another emulation on this machine whose
// gang was given the same port, a stray process) is refused without learning anything of this
// gang, not even its job.
//
// Rounds are numbered from 0 and every rank arrives at each in turn. A graceful stop is the
// gang's: whichever rank is asked first (the agents signal every task, in some order), all stop
// and save, so that a rank leaving after its save never looks like a failure to a rank that has
// not been signalled yet. A registered rank whose
// connection closes before it left, or that breaks the protocol, breaks the gang: rank 0 tells
// the others why and closes every connection, so every rank learns it at once (`broken()`), as a
// killed rank stalls and then fails a real training job. A gang of one needs no network: its rounds are released at once.
//
// What each line means, and what rank 0 answers, is decided by the barrier's rules
// (emu/node/barrier.h, tested without sockets); this class carries the lines over TCP.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace schedlab::emu {

struct RendezvousConfig {
  std::uint32_t rank = 0;
  std::uint32_t world_size = 1;
  std::string address;     // rank 0 listens here, the other ranks connect here (MASTER_ADDR)
  std::uint16_t port = 0;  // MASTER_PORT; 0 lets rank 0 take an ephemeral port (tests)
  std::string emulation = "-";  // one token; a rank of another emulation is refused ("-": none given)
  std::string job_id;      // one token; a rank of another job is refused
  std::string plan;        // one token the ranks must agree on (the work, the checkpoint interval)
  std::string announce;    // rank 0's line given to every rank with `start` (no newline)
  // Ranks > 0: how long to keep trying to reach rank 0 before the gang counts as broken.
  std::chrono::milliseconds connect_timeout{60'000};
};

class Rendezvous {
 public:
  // Starts listening (rank 0 of a gang) or connecting (the other ranks) in the background.
  // Failing to listen does not throw: the rendezvous is then broken, saying why.
  // `on_change` is called from the background thread whenever started(), released() or
  // broken() may have changed (never with a lock of the rendezvous held).
  Rendezvous(RendezvousConfig config, std::function<void()> on_change);
  // Delivers what is still queued (the last `go`), closes the connections and stops the
  // background thread, within about a second whatever the peers do.
  ~Rendezvous();
  Rendezvous(const Rendezvous&) = delete;
  Rendezvous& operator=(const Rendezvous&) = delete;

  // The port rank 0 listens on (the ephemeral one when the config said 0); 0 for other ranks.
  std::uint16_t port() const;
  // Every rank has joined; announce() then holds rank 0's line.
  bool started() const;
  std::string announce() const;
  // This rank finished `round` (0 for the first, then 1, 2, ... in turn; only after started()).
  void arrive(std::uint64_t round);
  // The last round that every rank finished; -1 before the first.
  std::int64_t released() const;
  // This rank is done (after its last round was released): its leaving is not a failure.
  void leave();
  // This rank stops gracefully: the other ranks are told (stopping() becomes true for them) and
  // its leaving is not a failure.
  void stop();
  // Some rank of the gang stops gracefully (this one included, once stop() was called).
  bool stopping() const;
  // Why the gang cannot go on (a rank lost, rank 0 unreachable or refusing); nullopt while whole.
  std::optional<std::string> broken() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace schedlab::emu
