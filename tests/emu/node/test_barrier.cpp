// The gang barrier's rules without a network (emu/node/barrier.h): what rank 0 answers to each
// line, when a round is released, what breaks the gang, and what a rank makes of rank 0's lines.
// The same rules over TCP: test_rendezvous.cpp.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "emu/node/barrier.h"

using namespace schedlab::emu;

namespace {

BarrierIdentity gang(std::uint32_t world) { return BarrierIdentity{world, "emu-a", "j7", "work=100", "0 10 -"}; }

using Sends = std::vector<std::pair<std::uint32_t, std::string>>;

// Rank 0 with ranks 1 .. world-1 joined.
BarrierHost started_host(std::uint32_t world) {
  BarrierHost h(gang(world));
  for (std::uint32_t r = 1; r < world; ++r) {
    std::optional<std::uint32_t> rank;
    const BarrierStep s = h.hello("hello emu-a j7 " + std::to_string(world) + " " + std::to_string(r) + " work=100", &rank);
    REQUIRE(rank == r);
    REQUIRE_FALSE(s.refused);
  }
  REQUIRE(h.state().started);
  return h;
}

}  // namespace

TEST_CASE("Emu.Barrier.hello_every_rank_joins_once_and_the_last_one_starts_the_gang") {
  BarrierHost h(gang(3));
  std::optional<std::uint32_t> rank;
  BarrierStep s = h.hello("hello emu-a j7 3 2 work=100", &rank);
  CHECK(rank == 2u);
  CHECK(s.sends.empty());
  CHECK_FALSE(s.changed);
  CHECK_FALSE(h.state().started);
  rank.reset();
  s = h.hello("hello emu-a j7 3 1 work=100", &rank);
  CHECK(rank == 1u);
  CHECK(s.sends == Sends{{1, "start 0 10 -"}, {2, "start 0 10 -"}});
  CHECK(s.changed);
  CHECK(h.state().started);
  CHECK(h.state().announce == "0 10 -");
}

TEST_CASE("Emu.Barrier.refused_a_bad_hello_is_refused_saying_nothing_of_the_gang_to_a_stranger") {
  const struct {
    const char* line;
    const char* why;
  } cases[] = {
      {"hi", "expected 'hello EMU JOB WORLD RANK PLAN', got 'hi'"},
      {"hello emu-a j7 3 1", "expected 'hello EMU JOB WORLD RANK PLAN', got 'hello emu-a j7 3 1'"},
      {"hello emu-b j7 3 1 work=100", "this rank 0 serves another emulation (SCHEDLAB_EMULATION_ID differs)"},
      {"hello emu-a j8 3 1 work=100", "this is job j7, not j8"},
      {"hello emu-a j7 4 1 work=100", "the gang has 3 ranks, not 4"},
      {"hello emu-a j7 x 1 work=100", "the gang has 3 ranks, not x"},
      {"hello emu-a j7 3 0 work=100", "rank 0 is not one of 1 to 2"},
      {"hello emu-a j7 3 3 work=100", "rank 3 is not one of 1 to 2"},
      {"hello emu-a j7 3 1 work=200", "rank 0's plan is work=100, not work=200"},
      {"hello emu-a j7 3 1 work=100\x01", "rank 0's plan is work=100, not work=100?"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.line);
    BarrierHost h(gang(3));
    std::optional<std::uint32_t> rank;
    const BarrierStep s = h.hello(c.line, &rank);
    CHECK_FALSE(rank);
    CHECK(s.refused == std::optional<std::string>(c.why));
    CHECK_FALSE(s.broke);  // a stranger does not break the gang
    CHECK_FALSE(h.state().broken);
  }
  BarrierHost h(gang(3));
  std::optional<std::uint32_t> rank;
  h.hello("hello emu-a j7 3 1 work=100", &rank);
  rank.reset();
  CHECK(h.hello("hello emu-a j7 3 1 work=100", &rank).refused == std::optional<std::string>("rank 1 has already joined"));
  CHECK_FALSE(rank);
}

TEST_CASE("Emu.Barrier.rounds_a_round_is_released_when_every_rank_arrived_to_the_ranks_still_there") {
  BarrierHost h = started_host(3);
  CHECK(h.state().released == -1);
  BarrierStep s = h.line(1, "arrive 0");
  CHECK(s.sends.empty());
  CHECK_FALSE(s.changed);
  s = h.arrive(0, 0);
  CHECK(s.sends.empty());
  s = h.line(2, "arrive 0");
  CHECK(s.sends == Sends{{1, "go 0"}, {2, "go 0"}});
  CHECK(s.changed);
  CHECK(h.state().released == 0);
  // Rank 2 arrives at round 1 and leaves before it is released: it is not told.
  h.line(2, "arrive 1");
  CHECK(h.line(2, "leave").sends.empty());
  CHECK(h.left(2));
  h.arrive(0, 1);
  s = h.line(1, "arrive 1");
  CHECK(s.sends == Sends{{1, "go 1"}});
  CHECK(h.state().released == 1);
}

TEST_CASE("Emu.Barrier.out_of_turn_an_arrival_at_the_wrong_round_twice_or_before_the_start_breaks_the_gang") {
  {
    BarrierHost h = started_host(3);
    const BarrierStep s = h.line(1, "arrive 1");
    CHECK(s.broke == std::optional<std::string>("rank 1 arrived at round 1 while the gang is at round 0"));
    CHECK(s.changed);
    CHECK(h.state().broken == s.broke);
    // Only the first reason counts.
    const BarrierStep again = h.line(2, "arrive 7");
    CHECK_FALSE(again.broke);
    CHECK_FALSE(again.changed);
    CHECK(h.state().broken == s.broke);
  }
  {
    BarrierHost h = started_host(3);
    h.line(1, "arrive 0");
    CHECK(h.line(1, "arrive 0").broke == std::optional<std::string>("rank 1 arrived at round 0 while the gang is at round 0"));
  }
  {
    BarrierHost h(gang(3));
    std::optional<std::uint32_t> rank;
    h.hello("hello emu-a j7 3 1 work=100", &rank);
    CHECK(h.line(1, "arrive 0").broke == std::optional<std::string>("rank 1 arrived at round 0 while the gang is at round 0"));
  }
}

TEST_CASE("Emu.Barrier.protocol_a_line_that_is_not_one_of_the_wires_breaks_the_gang_quoted") {
  for (const char* line : {"arrive", "arrive -1", "arrive x", "leave now", "go 0", ""}) {
    CAPTURE(line);
    BarrierHost h = started_host(2);
    CHECK(h.line(1, line).broke == std::optional<std::string>("rank 1 broke the protocol: '" + std::string(line) + "'"));
  }
  BarrierHost h = started_host(2);
  CHECK(h.line(1, std::string(100, 'x')).broke ==
        std::optional<std::string>("rank 1 broke the protocol: '" + std::string(80, 'x') + "...'"));
}

TEST_CASE("Emu.Barrier.stop_a_graceful_stop_is_the_gangs_told_once_to_every_other_rank_still_there") {
  BarrierHost h = started_host(4);
  h.line(3, "leave");
  BarrierStep s = h.line(1, "stop");
  CHECK(s.sends == Sends{{2, "stop"}});
  CHECK(s.changed);
  CHECK(h.state().stopping);
  CHECK(h.left(1));
  s = h.stop_from(0);
  CHECK(s.sends.empty());
  CHECK_FALSE(s.changed);
  // Rank 0 first: every rank is told.
  BarrierHost h0 = started_host(3);
  CHECK(h0.stop_from(0).sends == Sends{{1, "stop"}, {2, "stop"}});
}

TEST_CASE("Emu.Barrier.closed_a_rank_that_closes_before_it_left_breaks_the_gang_after_it_does_not") {
  BarrierHost h = started_host(3);
  h.line(2, "leave");
  CHECK_FALSE(h.closed(2, "connection closed").broke);
  const BarrierStep s = h.closed(1, "connection closed");
  CHECK(s.broke == std::optional<std::string>("rank 1 disconnected (connection closed)"));
  CHECK(h.state().broken == s.broke);
}

TEST_CASE("Emu.Barrier.alone_a_gang_of_one_has_started_and_releases_each_next_round_at_once") {
  BarrierHost h(gang(1));
  CHECK(h.state().started);
  CHECK(h.state().announce == "0 10 -");
  CHECK(h.arrive(0, 0).sends.empty());
  CHECK(h.state().released == 0);
  h.arrive(0, 5);  // not the next: ignored, never a failure
  CHECK(h.state().released == 0);
  CHECK_FALSE(h.state().broken);
  h.arrive(0, 1);
  CHECK(h.state().released == 1);
}

TEST_CASE("Emu.Barrier.member_a_ranks_lines_and_what_it_makes_of_rank_0s") {
  BarrierMember m(gang(3), 2, "127.0.0.1:29500");
  CHECK(m.hello_line() == "hello emu-a j7 3 2 work=100");
  CHECK(BarrierMember::arrive_line(4) == "arrive 4");

  // A go before the start breaks the gang.
  BarrierMember early(gang(3), 2, "127.0.0.1:29500");
  CHECK(early.line("go 0").broke == std::optional<std::string>("rank 0 broke the protocol: 'go 0'"));

  BarrierStep s = m.line("start 0 10 -");
  CHECK(s.changed);
  CHECK(m.state().started);
  CHECK(m.state().announce == "0 10 -");
  CHECK(m.line("go 0").changed);
  CHECK(m.state().released == 0);
  // Out of turn: rank 0 broke the protocol.
  BarrierMember skip = m;
  CHECK(skip.line("go 2").broke == std::optional<std::string>("rank 0 broke the protocol: 'go 2'"));
  // A second start, too (its announce is taken, as before).
  BarrierMember twice = m;
  CHECK(twice.line("start other").broke == std::optional<std::string>("rank 0 broke the protocol: 'start other'"));
  CHECK(twice.state().announce == "other");

  CHECK(m.line("stop").changed);
  CHECK(m.state().stopping);
  CHECK_FALSE(m.line("stop").changed);  // told once is enough
  CHECK_FALSE(m.state().broken);

  BarrierMember b(gang(3), 1, "127.0.0.1:29500");
  CHECK(b.line("broken rank 2 disconnected (connection closed)").broke ==
        std::optional<std::string>("rank 0 reports: rank 2 disconnected (connection closed)"));
  BarrierMember r(gang(3), 1, "127.0.0.1:29500");
  CHECK(r.line("refused this is job j7, not j8").broke ==
        std::optional<std::string>("rank 0 at 127.0.0.1:29500 refused this rank: this is job j7, not j8"));
  BarrierMember own(gang(3), 1, "127.0.0.1:29500");
  own.stop();
  CHECK(own.state().stopping);
  CHECK_FALSE(own.line("stop").changed);  // it knew already
}
