// StringPool: one label per distinct string, views that outlive later interning and a move.
#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "workload/string_pool.h"

using namespace schedlab::workload;

TEST_CASE("Workload.StringPool.the_same_text_gets_the_same_label_entry_0_is_the_empty_string") {
  StringPool pool;
  CHECK(pool.intern("") == kNoLabel);
  const Label alice = pool.intern("alice");
  const Label bob = pool.intern("bob");
  CHECK(alice != bob);
  CHECK(pool.intern(std::string("ali") + "ce") == alice);
  CHECK(pool.str(alice) == "alice");
  CHECK(pool.str(kNoLabel).empty());
  CHECK(pool.size() == 3);
}

TEST_CASE("Workload.StringPool.a_million_job_traces_ids_keep_their_labels_and_their_text") {
  StringPool pool;
  std::vector<std::string> ids;
  for (int i = 0; i < 300000; ++i) ids.push_back("application_1506638472019_" + std::to_string(i));
  ids.push_back(std::string(100000, 'x'));  // longer than a block of the pool
  std::vector<Label> labels;
  for (const auto& id : ids) labels.push_back(pool.intern(id));
  const std::string_view first = pool.str(labels[0]);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    REQUIRE(pool.intern(ids[i]) == labels[i]);
    REQUIRE(pool.str(labels[i]) == ids[i]);
  }
  CHECK(first == ids[0]);  // a view taken early is still valid
  CHECK(pool.size() == ids.size() + 1);
}

TEST_CASE("Workload.StringPool.a_move_keeps_every_view_and_the_moved_from_pool_starts_over") {
  StringPool a;
  const Label l = a.intern("vc-research");
  const std::string_view view = a.str(l);
  StringPool b = std::move(a);
  CHECK(view == "vc-research");
  CHECK(b.str(l) == "vc-research");
  CHECK(b.intern("vc-research") == l);
  // NOLINTNEXTLINE(bugprone-use-after-move): the moved-from state is specified
  CHECK(a.size() == 1);
  CHECK(a.intern("other") == 1);
  CHECK(view == "vc-research");  // the moved-from pool writes into blocks of its own
}
