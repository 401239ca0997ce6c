// The gang's barrier: rounds are released only when every rank arrived, strangers are refused,
// and a lost rank breaks the gang for everyone at once. Every server binds 127.0.0.1 on an
// ephemeral port.
#include <doctest/doctest.h>

#include <utility>  // before Boost.Asio 1.74, which uses std::exchange without it
#include <boost/asio.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <thread>

#include "emu/node/rendezvous.h"

using namespace schedlab::emu;
using namespace std::chrono_literals;

namespace {

// Polls `ok` until it holds or `limit` passes (test code: polling keeps it short and obvious).
bool eventually(const std::function<bool()>& ok, std::chrono::milliseconds limit = 3000ms) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (ok()) return true;
    std::this_thread::sleep_for(2ms);
  }
  return ok();
}

RendezvousConfig member(std::uint32_t rank, std::uint32_t world, std::uint16_t port, std::string job = "j7") {
  RendezvousConfig c;
  c.rank = rank;
  c.world_size = world;
  c.address = "127.0.0.1";
  c.port = port;
  c.emulation = "emu-a";
  c.job_id = std::move(job);
  c.plan = "work=100";
  c.announce = "0 10 -";
  c.connect_timeout = 3000ms;
  return c;
}

// A gang of `world` on an ephemeral port: rank 0 first, then the others.
struct Gang {
  std::vector<std::unique_ptr<Rendezvous>> ranks;
  explicit Gang(std::uint32_t world) {
    ranks.push_back(std::make_unique<Rendezvous>(member(0, world, 0), nullptr));
    const std::uint16_t port = ranks[0]->port();
    for (std::uint32_t r = 1; r < world; ++r) ranks.push_back(std::make_unique<Rendezvous>(member(r, world, port), nullptr));
  }
  bool all(const std::function<bool(Rendezvous&)>& f) {
    for (auto& r : ranks)
      if (r && !f(*r)) return false;
    return true;
  }
};

}  // namespace

TEST_CASE("Emu.Rendezvous.solo_a_gang_of_one_starts_at_once_and_each_round_is_released_on_arrival") {
  Rendezvous r(member(0, 1, 0), nullptr);
  CHECK(r.started());
  CHECK(r.announce() == "0 10 -");
  CHECK(r.released() == -1);
  r.arrive(0);
  CHECK(r.released() == 0);
  r.arrive(1);
  CHECK(r.released() == 1);
  CHECK_FALSE(r.broken());
}

TEST_CASE("Emu.Rendezvous.lockstep_a_round_is_released_only_when_every_rank_has_arrived") {
  Gang g(3);
  REQUIRE(g.ranks[0]->port() != 0);
  REQUIRE(eventually([&] { return g.all([](Rendezvous& r) { return r.started(); }); }));
  CHECK(g.all([](Rendezvous& r) { return r.announce() == "0 10 -"; }));
  for (std::uint64_t round = 0; round < 5; ++round) {
    g.ranks[0]->arrive(round);
    g.ranks[2]->arrive(round);
    // Rank 1 is late: nobody may pass the round without it.
    std::this_thread::sleep_for(30ms);
    CHECK(g.all([&](Rendezvous& r) { return r.released() == static_cast<std::int64_t>(round) - 1; }));
    g.ranks[1]->arrive(round);
    CHECK(eventually([&] { return g.all([&](Rendezvous& r) { return r.released() == static_cast<std::int64_t>(round); }); }));
  }
  g.ranks[1]->leave();
  g.ranks[2]->leave();
  CHECK(g.all([](Rendezvous& r) { return !r.broken(); }));
}

TEST_CASE("Emu.Rendezvous.last_go_is_delivered_rank_0_leaving_right_after_the_last_round_loses_no_release") {
  for (int trial = 0; trial < 20; ++trial) {
    Gang g(2);
    REQUIRE(eventually([&] { return g.all([](Rendezvous& r) { return r.started(); }); }));
    g.ranks[1]->arrive(0);
    g.ranks[0]->arrive(0);
    REQUIRE(eventually([&] { return g.ranks[0]->released() == 0; }));
    g.ranks[0].reset();  // rank 0 is done and goes away at once
    CHECK(eventually([&] { return g.ranks[1]->released() == 0; }));
  }
}

TEST_CASE("Emu.Rendezvous.lost_rank_a_rank_that_goes_away_before_leaving_breaks_the_gang_for_all_saying_which") {
  Gang g(3);
  REQUIRE(eventually([&] { return g.all([](Rendezvous& r) { return r.started(); }); }));
  g.ranks[1].reset();  // as if killed: its connection closes without `leave`
  REQUIRE(eventually([&] { return g.all([](Rendezvous& r) { return r.broken().has_value(); }); }, 2000ms));
  CHECK(g.ranks[0]->broken()->find("rank 1 disconnected") != std::string::npos);
  CHECK(g.ranks[2]->broken()->find("rank 1 disconnected") != std::string::npos);
  // Arrivals after that change nothing.
  g.ranks[0]->arrive(0);
  g.ranks[2]->arrive(0);
  std::this_thread::sleep_for(20ms);
  CHECK(g.ranks[0]->released() == -1);
}

TEST_CASE("Emu.Rendezvous.lost_rank_zero_the_other_ranks_learn_that_rank_0_is_gone") {
  Gang g(2);
  REQUIRE(eventually([&] { return g.all([](Rendezvous& r) { return r.started(); }); }));
  g.ranks[0].reset();
  REQUIRE(eventually([&] { return g.ranks[1]->broken().has_value(); }));
  CHECK(g.ranks[1]->broken()->find("lost the connection to rank 0") != std::string::npos);
}

TEST_CASE("Emu.Rendezvous.refused_a_rank_of_another_job_gang_size_plan_or_a_taken_rank_is_turned_away") {
  Rendezvous zero(member(0, 3, 0), nullptr);
  const std::uint16_t port = zero.port();
  struct Case {
    RendezvousConfig config;
    const char* says;
  };
  std::vector<Case> cases;
  cases.push_back({member(1, 3, port, "j8"), "this is job j7, not j8"});
  cases.push_back({member(1, 4, port), "the gang has 3 ranks, not 4"});
  auto plan = member(1, 3, port);
  plan.plan = "work=200";
  cases.push_back({plan, "rank 0's plan is work=100, not work=200"});
  for (auto& c : cases) {
    CAPTURE(c.says);
    Rendezvous r(c.config, nullptr);
    REQUIRE(eventually([&] { return r.broken().has_value(); }));
    CHECK(r.broken()->find("refused this rank") != std::string::npos);
    CHECK(r.broken()->find(c.says) != std::string::npos);
  }
  Rendezvous first(member(1, 3, port), nullptr);
  std::this_thread::sleep_for(50ms);
  Rendezvous twin(member(1, 3, port), nullptr);
  REQUIRE(eventually([&] { return twin.broken().has_value(); }));
  CHECK(twin.broken()->find("rank 1 has already joined") != std::string::npos);
  // None of this broke the gang being formed: rank 2 still completes it.
  Rendezvous two(member(2, 3, port), nullptr);
  CHECK(eventually([&] { return zero.started() && first.started() && two.started(); }));
  CHECK_FALSE(zero.broken());
}

TEST_CASE("Emu.Rendezvous.other_emulation_a_rank_of_another_emulation_is_refused_learns_nothing_harms_nothing") {
  // Two emulations on one machine whose gangs were given the same port (job 7, rank 1 of 2 in
  // both): the stranger must not join, and must not learn which job this gang runs.
  Rendezvous zero(member(0, 2, 0), nullptr);
  auto stranger = member(1, 2, zero.port());
  stranger.emulation = "emu-b";
  {
    Rendezvous r(stranger, nullptr);
    REQUIRE(eventually([&] { return r.broken().has_value(); }));
    CHECK(r.broken()->find("refused this rank: this rank 0 serves another emulation") != std::string::npos);
    CHECK(r.broken()->find("j7") == std::string::npos);
    CHECK(r.broken()->find("emu-a") == std::string::npos);
    CHECK_FALSE(r.started());
  }
  // An old-style hello (no identity) is refused too.
  {
    boost::asio::io_context io;
    boost::asio::ip::tcp::socket s(io);
    s.connect({boost::asio::ip::make_address("127.0.0.1"), zero.port()});
    boost::system::error_code ec;
    boost::asio::write(s, boost::asio::buffer(std::string("hello j7 2 1 work=100\n")), ec);
    std::string reply(256, '\0');
    const std::size_t n = s.read_some(boost::asio::buffer(reply), ec);
    CHECK(reply.substr(0, n).find("refused expected 'hello EMU JOB WORLD RANK PLAN'") == 0);
  }
  // The gang's own rank 1 still joins.
  Rendezvous one(member(1, 2, zero.port()), nullptr);
  CHECK(eventually([&] { return zero.started() && one.started(); }));
  CHECK_FALSE(zero.broken());
}

TEST_CASE("Emu.Rendezvous.garbage_a_strangers_bytes_are_refused_without_harming_the_gang") {
  Rendezvous zero(member(0, 2, 0), nullptr);
  {
    boost::asio::io_context io;
    boost::asio::ip::tcp::socket s(io);
    s.connect({boost::asio::ip::make_address("127.0.0.1"), zero.port()});
    const std::string junk = "GET / HTTP/1.1\r\n" + std::string(3000, 'x') + "\n";
    boost::system::error_code ec;
    boost::asio::write(s, boost::asio::buffer(junk), ec);
    std::string reply(256, '\0');
    const std::size_t n = s.read_some(boost::asio::buffer(reply), ec);
    CHECK(reply.substr(0, std::min<std::size_t>(n, 8)) == "refused ");
  }
  Rendezvous one(member(1, 2, zero.port()), nullptr);
  CHECK(eventually([&] { return zero.started() && one.started(); }));
  CHECK_FALSE(zero.broken());
}

TEST_CASE("Emu.Rendezvous.unreachable_a_rank_that_cannot_reach_rank_0_gives_up_after_its_timeout") {
  // A port nobody listens on: bind one, learn its number, close it.
  std::uint16_t port;
  {
    boost::asio::io_context io;
    boost::asio::ip::tcp::acceptor a(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
    port = a.local_endpoint().port();
  }
  auto c = member(1, 2, port);
  c.connect_timeout = 300ms;
  const auto t0 = std::chrono::steady_clock::now();
  Rendezvous r(c, nullptr);
  REQUIRE(eventually([&] { return r.broken().has_value(); }, 3000ms));
  const auto took = std::chrono::steady_clock::now() - t0;
  CHECK(took >= 290ms);
  CHECK(took < 2000ms);
  CHECK(r.broken()->find("cannot reach rank 0 at 127.0.0.1:") != std::string::npos);
}

TEST_CASE("Emu.Rendezvous.listen_failure_a_port_already_served_is_reported_not_thrown") {
  Rendezvous zero(member(0, 2, 0), nullptr);
  Rendezvous clash(member(0, 2, zero.port()), nullptr);
  REQUIRE(clash.broken().has_value());
  CHECK(clash.broken()->find("cannot listen on 127.0.0.1:") != std::string::npos);
  CHECK_FALSE(zero.broken());
}

TEST_CASE("Emu.Rendezvous.on_change_the_callback_fires_when_the_gang_starts_and_when_a_round_is_released") {
  std::atomic<int> calls{0};
  auto c0 = member(0, 2, 0);
  Rendezvous zero(c0, [&] { ++calls; });
  Rendezvous one(member(1, 2, zero.port()), nullptr);
  // The state changes first, then the callback runs: wait for the callback itself.
  REQUIRE(eventually([&] { return zero.started() && calls >= 1; }));
  const int after_start = calls;
  zero.arrive(0);
  one.arrive(0);
  REQUIRE(eventually([&] { return zero.released() == 0; }));
  CHECK(eventually([&] { return calls > after_start; }));
  one.leave();
}

TEST_CASE("Emu.Rendezvous.stop_one_ranks_graceful_stop_reaches_every_rank_and_its_leaving_is_no_failure") {
  Gang g(3);
  REQUIRE(eventually([&] { return g.all([](Rendezvous& r) { return r.started(); }); }));
  g.ranks[2]->stop();
  g.ranks[2].reset();  // it saves in no time and exits
  CHECK(eventually([&] { return g.ranks[0]->stopping() && g.ranks[1]->stopping(); }));
  std::this_thread::sleep_for(50ms);
  CHECK_FALSE(g.ranks[0]->broken());
  CHECK_FALSE(g.ranks[1]->broken());
  g.ranks[1]->stop();
  g.ranks[1].reset();
  std::this_thread::sleep_for(50ms);
  CHECK_FALSE(g.ranks[0]->broken());
}
