// Gang ports: two emulations on one machine claim different blocks and never lend the same port;
// a port lent is not lent again until every holder gave it back; a port something else holds is
// skipped; a full block leads to the next one, and no block left is an error that says so.
// Blocks lie from port 31337 on (tests only), away from the emulator's default 29500.
#include <doctest/doctest.h>

#include <utility>  // before Boost.Asio 1.74, which uses std::exchange without it
#include <boost/asio.hpp>
#include <set>

#include "emu/controller/gang_ports.h"
#include "util/error.h"

using namespace schedlab;
using namespace schedlab::emu;

namespace {
GangPortsConfig small(std::uint16_t blocks = 3) { return GangPortsConfig{31337, 4, blocks}; }
}  // namespace

TEST_CASE("Emulation.GangPorts.two_emulations_claim_different_blocks_and_lend_different_ports") {
  GangPorts a(small()), b(small());
  std::set<std::uint16_t> lent;
  for (int i = 0; i < 3; ++i) {
    const auto pa = a.lend(2), pb = b.lend(2);
    CHECK(lent.insert(pa).second);
    CHECK(lent.insert(pb).second);
  }
  REQUIRE(a.claimed().size() == 1);
  REQUIRE(b.claimed().size() == 1);
  CHECK(a.claimed()[0] != b.claimed()[0]);
  // Never the claim itself: the block's other ports only.
  for (auto p : lent) CHECK((p != 31337 && p != 31341));
}

TEST_CASE("Emulation.GangPorts.a_port_returns_only_when_every_holder_gave_it_back") {
  GangPorts g(small(1));
  const auto p = g.lend(2);  // a gang of two tasks
  const auto q = g.lend(1);
  const auto r = g.lend(1);
  CHECK(std::set<std::uint16_t>{p, q, r}.size() == 3);
  g.give_back(p);  // one task of p's gang is gone, the other still runs
  g.give_back(q);
  CHECK(g.lend(1) == q);  // the only one free
  g.give_back(p);
  CHECK(g.lend(1) == p);
  // All three lent again and the range holds no other block.
  CHECK_THROWS_WITH_AS(g.lend(1), doctest::Contains("no free rendezvous port for a gang"), util::EnvironmentError);
}

TEST_CASE("Emulation.GangPorts.a_port_another_program_holds_is_skipped") {
  boost::asio::io_context io;
  // Something else listens on the block's first lendable port (torchrun's rank 0, say).
  boost::asio::ip::tcp::acceptor squatter(io, {boost::asio::ip::make_address("127.0.0.1"), 31338});
  GangPorts g(small(1));
  const auto p = g.lend(1);
  CHECK(p != 31338);
  CHECK(p > 31337);
  CHECK(p < 31341);
}

TEST_CASE("Emulation.GangPorts.a_full_block_leads_to_the_next_and_no_block_left_is_an_error") {
  {
    GangPorts g(small(2));
    std::set<std::uint16_t> lent;
    for (int i = 0; i < 6; ++i) lent.insert(g.lend(1));
    CHECK(lent.size() == 6);
    CHECK(g.claimed() == std::vector<std::uint16_t>{31337, 31341});
    CHECK_THROWS_AS(g.lend(1), util::EnvironmentError);
  }
  // Its blocks are free again once it is gone; a block another emulation holds is passed over.
  GangPorts first(small(2)), second(small(2)), third(small(2));
  CHECK(first.lend(1) < 31341);
  CHECK(second.lend(1) > 31341);
  CHECK(second.claimed() == std::vector<std::uint16_t>{31341});
  CHECK_THROWS_WITH_AS(third.lend(1), doctest::Contains("ports 31337 to 31344"), util::EnvironmentError);
}
