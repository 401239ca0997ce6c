// The gang barrier's rules, line by line (see barrier.h and the wire in rendezvous.h).
#include "emu/node/barrier.h"

#include <fmt/format.h>

#include "util/parse.h"

namespace schedlab::emu {

namespace {

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  util::split_fields(line, ' ', out);
  return out;
}

std::optional<std::uint64_t> round_number(std::string_view text) {
  std::int64_t v = 0;
  if (!util::try_parse_int(text, v) || v < 0) return std::nullopt;
  return static_cast<std::uint64_t>(v);
}

BarrierStep refusal(std::string why) {
  BarrierStep s;
  s.refused = std::move(why);
  return s;
}

BarrierStep break_gang(BarrierState& state, std::string why) {
  BarrierStep s;
  if (state.broken) return s;
  state.broken = why;
  s.broke = std::move(why);
  s.changed = true;
  return s;
}

}  // namespace

std::string shown(std::string_view line, std::size_t max) {
  std::string s;
  for (char c : line.substr(0, max)) s += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (line.size() > max) s += "...";
  return s;
}

// ---- rank 0 -----------------------------------------------------------------------------------

BarrierHost::BarrierHost(BarrierIdentity id)
    : id_(std::move(id)), joined_(id_.world_size, false), left_(id_.world_size, false), last_round_(id_.world_size, -1) {
  if (alone()) {
    state_.started = true;
    state_.announce = id_.announce;
  }
}

BarrierStep BarrierHost::hello(std::string_view line, std::optional<std::uint32_t>* rank_out) {
  const auto w = words(line);
  if (w.size() != 6 || w[0] != "hello")
    return refusal(fmt::format("expected 'hello EMU JOB WORLD RANK PLAN', got '{}'", shown(line)));
  // First, and saying nothing of ours: a stranger learns neither identity nor job.
  if (w[1] != id_.emulation) return refusal("this rank 0 serves another emulation (SCHEDLAB_EMULATION_ID differs)");
  if (w[2] != id_.job_id) return refusal(fmt::format("this is job {}, not {}", id_.job_id, shown(w[2])));
  std::int64_t world = 0, rank = 0;
  if (!util::try_parse_int(w[3], world) || world != id_.world_size)
    return refusal(fmt::format("the gang has {} ranks, not {}", id_.world_size, shown(w[3])));
  if (!util::try_parse_int(w[4], rank) || rank < 1 || rank >= world)
    return refusal(fmt::format("rank {} is not one of 1 to {}", shown(w[4]), id_.world_size - 1));
  if (w[5] != id_.plan) return refusal(fmt::format("rank 0's plan is {}, not {}", id_.plan, shown(w[5])));
  const auto r = static_cast<std::uint32_t>(rank);
  if (joined_[r]) return refusal(fmt::format("rank {} has already joined", rank));
  joined_[r] = true;
  *rank_out = r;
  BarrierStep s;
  if (++joined_count_ == id_.world_size - 1) {
    state_.started = true;
    state_.announce = id_.announce;
    for (std::uint32_t i = 1; i < id_.world_size; ++i)
      if (joined_[i]) s.sends.emplace_back(i, "start " + id_.announce);
    s.changed = true;
  }
  return s;
}

BarrierStep BarrierHost::line(std::uint32_t rank, std::string_view line) {
  const auto w = words(line);
  if (w.size() == 2 && w[0] == "arrive") {
    if (auto n = round_number(w[1])) return arrive(rank, *n);
  } else if (w.size() == 1 && w[0] == "leave") {
    left_[rank] = true;
    return {};
  } else if (w.size() == 1 && w[0] == "stop") {
    left_[rank] = true;
    return stop_from(rank);
  }
  return fail(fmt::format("rank {} broke the protocol: '{}'", rank, shown(line)));
}

BarrierStep BarrierHost::arrive(std::uint32_t rank, std::uint64_t round) {
  const std::int64_t next = state_.released + 1;
  if (alone()) {  // the next round is released at once; any other is ignored
    if (static_cast<std::int64_t>(round) == next) state_.released = next;
    return {};
  }
  if (!state_.started || static_cast<std::int64_t>(round) != next || last_round_[rank] >= next)
    return fail(fmt::format("rank {} arrived at round {} while the gang is at round {}", rank, round, next));
  last_round_[rank] = next;
  BarrierStep s;
  if (++arrived_ < id_.world_size) return s;
  arrived_ = 0;
  state_.released = next;
  for (std::uint32_t i = 1; i < id_.world_size; ++i)
    if (joined_[i] && !left_[i]) s.sends.emplace_back(i, fmt::format("go {}", next));
  s.changed = true;
  return s;
}

BarrierStep BarrierHost::stop_from(std::uint32_t rank) {
  BarrierStep s;
  if (state_.stopping) return s;
  state_.stopping = true;
  for (std::uint32_t i = 1; i < id_.world_size; ++i)
    if (joined_[i] && i != rank && !left_[i]) s.sends.emplace_back(i, "stop");
  s.changed = true;
  return s;
}

BarrierStep BarrierHost::closed(std::uint32_t rank, std::string_view why) {
  if (left_[rank]) return {};
  return fail(fmt::format("rank {} disconnected ({})", rank, why));
}

BarrierStep BarrierHost::fail(std::string why) { return break_gang(state_, std::move(why)); }

// ---- ranks > 0 --------------------------------------------------------------------------------

BarrierMember::BarrierMember(BarrierIdentity id, std::uint32_t rank, std::string rank_zero)
    : id_(std::move(id)), rank_(rank), rank_zero_(std::move(rank_zero)) {}

std::string BarrierMember::hello_line() const {
  return fmt::format("hello {} {} {} {} {}", id_.emulation, id_.job_id, id_.world_size, rank_, id_.plan);
}

std::string BarrierMember::arrive_line(std::uint64_t round) { return fmt::format("arrive {}", round); }

BarrierStep BarrierMember::line(std::string_view v) {
  BarrierStep s;
  if (v.substr(0, 6) == "start ") {
    const bool fresh = !state_.started;
    state_.started = true;
    state_.announce = std::string(v.substr(6));
    if (fresh) {
      s.changed = true;
      return s;
    }
    // A second start: rank 0 broke the protocol (below).
  } else if (v.substr(0, 3) == "go ") {
    auto n = round_number(v.substr(3));
    if (n && state_.started && static_cast<std::int64_t>(*n) == state_.released + 1) {
      state_.released = static_cast<std::int64_t>(*n);
      s.changed = true;
      return s;
    }
  } else if (v == "stop") {
    s.changed = !state_.stopping;
    state_.stopping = true;
    return s;
  } else if (v.substr(0, 7) == "broken ") {
    return fail(fmt::format("rank 0 reports: {}", shown(v.substr(7), 300)));
  } else if (v.substr(0, 8) == "refused ") {
    return fail(fmt::format("rank 0 at {} refused this rank: {}", rank_zero_, shown(v.substr(8))));
  }
  return fail(fmt::format("rank 0 broke the protocol: '{}'", shown(v)));
}

BarrierStep BarrierMember::stop() {
  BarrierStep s;
  state_.stopping = true;
  return s;
}

BarrierStep BarrierMember::fail(std::string why) { return break_gang(state_, std::move(why)); }

}  // namespace schedlab::emu
