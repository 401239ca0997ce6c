// The rules of the gang's per-step barrier (emu/node/rendezvous.h), without sockets, threads or
// clocks: what rank 0 answers to each line a rank sends, and what a rank makes of each line
// rank 0 sends. The Rendezvous carries the lines over TCP and does what a Step says; these
// classes decide, so every rule (who may join, when a round is released, what breaks the gang)
// is tested line by line (tests/emu/node/test_barrier.cpp) without a network.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedlab::emu {

// What the ranks must agree on; rank 0 checks each hello against its own.
struct BarrierIdentity {
  std::uint32_t world_size = 1;
  std::string emulation = "-";
  std::string job_id;
  std::string plan;
  std::string announce;  // rank 0's line, given to every rank with `start`
};

// What the gang knows so far; the same on both sides.
struct BarrierState {
  bool started = false;
  std::string announce;
  std::int64_t released = -1;  // the last round every rank finished
  bool stopping = false;
  std::optional<std::string> broken;
};

// What the transport does after an event, in this order: send `sends` (a line, without its
// newline, to a registered rank); answer a refused hello with "refused WHY" and close that
// connection once it is written; when `broke` is set, the gang broke just now (rank 0 tells
// every rank "broken WHY" and closes); call the change callback when `changed`.
struct BarrierStep {
  std::vector<std::pair<std::uint32_t, std::string>> sends;
  std::optional<std::string> refused;
  std::optional<std::string> broke;
  bool changed = false;
};

// Rank 0's side: the registered ranks, who arrived at the current round, who left. A gang of
// one (world_size <= 1) has started from the outset and releases each round as it arrives.
class BarrierHost {
 public:
  explicit BarrierHost(BarrierIdentity id);
  bool alone() const { return id_.world_size <= 1; }

  // The first line of a connection. On success the connection is rank `*rank` from now on.
  BarrierStep hello(std::string_view line, std::optional<std::uint32_t>* rank);
  // A later line from registered rank `rank`: "arrive N", "leave" or "stop".
  BarrierStep line(std::uint32_t rank, std::string_view line);
  // `rank` (0: this one) finished `round`.
  BarrierStep arrive(std::uint32_t rank, std::uint64_t round);
  // `rank` (0: this one) stops gracefully: every other rank still there is told once.
  BarrierStep stop_from(std::uint32_t rank);
  // The connection of registered rank `rank` closed (`why`: what the socket said). Not a
  // failure once the rank left.
  BarrierStep closed(std::uint32_t rank, std::string_view why);
  // The gang cannot go on (`why`); only the first reason counts.
  BarrierStep fail(std::string why);

  const BarrierState& state() const { return state_; }
  bool registered(std::uint32_t rank) const { return rank < joined_.size() && joined_[rank]; }
  bool left(std::uint32_t rank) const { return rank < left_.size() && left_[rank]; }

 private:
  BarrierIdentity id_;
  BarrierState state_;
  std::vector<bool> joined_;              // by rank (rank 0 never joins: it serves)
  std::vector<bool> left_;                // a rank that said leave or stop
  std::vector<std::int64_t> last_round_;  // the last round each rank arrived at
  std::uint32_t joined_count_ = 0, arrived_ = 0;
};

// A rank > 0's side: the lines it sends, and what it makes of rank 0's.
class BarrierMember {
 public:
  // `rank_zero`: "ADDR:PORT", for messages.
  BarrierMember(BarrierIdentity id, std::uint32_t rank, std::string rank_zero);

  std::string hello_line() const;
  static std::string arrive_line(std::uint64_t round);

  // A line from rank 0: "start ANNOUNCE", "go N", "stop", "broken WHY" or "refused WHY".
  BarrierStep line(std::string_view line);
  // This rank stops gracefully (it then sends "stop").
  BarrierStep stop();
  // The gang cannot go on (`why`); only the first reason counts.
  BarrierStep fail(std::string why);

  const BarrierState& state() const { return state_; }

 private:
  BarrierIdentity id_;
  std::uint32_t rank_;
  std::string rank_zero_;
  BarrierState state_;
};

// A line quoted for a message: printable ASCII ('?' for the rest), cut after `max` characters.
std::string shown(std::string_view line, std::size_t max = 80);

}  // namespace schedlab::emu
