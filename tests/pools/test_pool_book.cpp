// PoolBook's job-to-pool lookup (pool_of): by dense job id, -1 before assign and after gone.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <unordered_map>

#include "pools/pool_book.h"

using namespace schedlab::pools;

namespace {
PoolsConfig two_pools() {
  PoolsConfig c;
  c.enabled = true;
  c.pools.push_back(PoolSpec{.name = "a"});
  c.pools.push_back(PoolSpec{.name = "b"});
  return c;
}
}  // namespace

TEST_CASE("Pools.PoolBook.pool_of_follows_assign_and_gone") {
  const PoolsConfig config = two_pools();
  PoolBook book(config, Amounts{16, 64, 256});
  CHECK(book.pool_of(0) == -1);
  CHECK(book.pool_of(1000) == -1);  // beyond every id seen
  book.assign(3, 1);
  book.assign(0, 0);
  CHECK(book.pool_of(0) == 0);
  CHECK(book.pool_of(3) == 1);
  CHECK(book.pool_of(2) == -1);  // an id below one assigned, never assigned itself
  book.gone(3);
  CHECK(book.pool_of(3) == -1);
  CHECK(book.assigned(3) == 1);  // results still name the pool it had
  book.gone(3);                  // twice: nothing to do
  CHECK(book.pool_of(3) == -1);
  book.assign(3, 0);  // back in the book
  CHECK(book.pool_of(3) == 0);
}

TEST_CASE("Pools.PoolBook.pool_of_matches_a_map_under_random_assigns_and_gones") {
  const PoolsConfig config = two_pools();
  PoolBook book(config, Amounts{16, 64, 256});
  std::unordered_map<schedlab::workload::JobId, std::int32_t> ref;
  std::mt19937 rng(29);
  for (int step = 0; step < 20000; ++step) {
    const auto id = static_cast<schedlab::workload::JobId>(rng() % 500);
    if (rng() % 3 == 0) {
      book.gone(id);
      ref.erase(id);
    } else {
      const auto pool = static_cast<std::int32_t>(rng() % 2);
      book.assign(id, pool);
      ref[id] = pool;
    }
    const auto probe = static_cast<schedlab::workload::JobId>(rng() % 600);
    const auto it = ref.find(probe);
    REQUIRE(book.pool_of(probe) == (it == ref.end() ? -1 : it->second));
  }
}
