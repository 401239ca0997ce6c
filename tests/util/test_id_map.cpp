// IdMap against std::unordered_map: the same contents after any mix of inserts, takes and
// erases, including the probe runs that wrap around the table's end and deletions that
// shift entries back.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "util/id_map.h"

using schedlab::util::IdMap;

namespace {
std::vector<std::pair<std::uint64_t, std::string>> sorted_contents(const IdMap<std::string>& m) {
  std::vector<std::pair<std::uint64_t, std::string>> out;
  m.for_each([&](std::uint64_t id, const std::string& v) { out.emplace_back(id, v); });
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

TEST_CASE("Util.IdMap.insert_find_take_erase") {
  IdMap<std::string> m;
  CHECK(m.empty());
  CHECK(m.find(3) == nullptr);
  CHECK_FALSE(m.contains(0));
  m.insert(3, "three");
  m.insert(0, "zero");
  CHECK(m.size() == 2);
  CHECK(*m.find(3) == "three");
  CHECK(m.at(0) == "zero");
  CHECK_THROWS_AS(m.at(7), std::out_of_range);
  CHECK(m.take(3) == "three");
  CHECK_FALSE(m.contains(3));
  CHECK_FALSE(m.erase(3));
  CHECK(m.erase(0));
  CHECK(m.empty());
  CHECK_THROWS_AS(m.take(0), std::out_of_range);
}

TEST_CASE("Util.IdMap.random_operations_match_unordered_map") {
  // Ids drawn from a small range (many collisions and reinserts) and from a growing counter
  // (as run ids are), with the table growing and emptying again.
  for (const std::uint64_t range : {std::uint64_t{40}, std::uint64_t{5000}}) {
    std::mt19937_64 rng(range);
    IdMap<std::string> m;
    std::unordered_map<std::uint64_t, std::string> ref;
    std::uint64_t counter = 0;
    for (int step = 0; step < 60000; ++step) {
      const auto op = rng() % 10;
      const std::uint64_t id = op < 2 ? counter++ : rng() % range + (step / 20000) * range;
      if (op < 5) {
        if (!ref.count(id)) {
          const std::string v = "v" + std::to_string(step);
          m.insert(id, v);
          ref.emplace(id, v);
        }
      } else if (op < 7) {
        const auto it = ref.find(id);
        if (it != ref.end()) {
          REQUIRE(m.take(id) == it->second);
          ref.erase(it);
        }
      } else if (op < 8) {
        CHECK(m.erase(id) == (ref.erase(id) > 0));
      } else {
        const auto it = ref.find(id);
        const std::string* found = m.find(id);
        REQUIRE((found != nullptr) == (it != ref.end()));
        if (found) CHECK(*found == it->second);
      }
      REQUIRE(m.size() == ref.size());
    }
    std::vector<std::pair<std::uint64_t, std::string>> expected(ref.begin(), ref.end());
    std::sort(expected.begin(), expected.end());
    CHECK(sorted_contents(m) == expected);
  }
}
