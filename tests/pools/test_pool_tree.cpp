// Which pool trees are accepted, and what the error says about the others.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "pools/pool_tree.h"

using namespace schedlab::pools;

namespace {

// The message PoolTree's constructor throws (fails the test when it accepts the pools).
std::string tree_error_of(std::vector<Pool> pools) {
  try {
    PoolTree tree(std::move(pools));
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  FAIL("expected std::invalid_argument");
  return {};
}

}  // namespace

TEST_CASE("Pools.Tree.lists_each_pools_children_in_index_order") {
  // A(0) ─ A1(1), A2(3); B(2) ─ B1(4)
  const PoolTree tree({{.name = "A"},
                       {.name = "A1", .parent = 0},
                       {.name = "B"},
                       {.name = "A2", .parent = 0},
                       {.name = "B1", .parent = 2}});
  CHECK(std::vector<std::int32_t>(tree.top_level().begin(), tree.top_level().end()) == std::vector<std::int32_t>{0, 2});
  CHECK(std::vector<std::int32_t>(tree.children(0).begin(), tree.children(0).end()) == std::vector<std::int32_t>{1, 3});
  CHECK(std::vector<std::int32_t>(tree.children(2).begin(), tree.children(2).end()) == std::vector<std::int32_t>{4});
  CHECK(tree.is_leaf(1));
  CHECK(tree.is_leaf(4));
  CHECK_FALSE(tree.is_leaf(0));
}

TEST_CASE("Pools.Tree.an_empty_tree_has_no_top_level_pools") {
  const PoolTree tree;
  CHECK(tree.size() == 0);
  CHECK(tree.top_level().empty());
}

TEST_CASE("Pools.Tree.a_limit_below_the_reservation_is_refused") {
  CHECK(tree_error_of({{.name = "train", .reservation = {30, 0, 0}, .limit = {20, kUnlimited, kUnlimited}}}) ==
        "pool 'train' (#0): limit of gpus (20) is below its reservation (30)");
}

TEST_CASE("Pools.Tree.a_parent_must_come_before_its_child") {
  CHECK(tree_error_of({{.name = "A"}, {.name = "B", .parent = 5}}) ==
        "pool 'B' (#1): parent 5 must be -1 (top-level) or an earlier pool's index (below 1)");
  // A parent after its child would allow cycles, and one pass could not go parents first.
  CHECK(tree_error_of({{.name = "A"}, {.name = "B", .parent = 2}, {.name = "C"}}) ==
        "pool 'B' (#1): parent 2 must be -1 (top-level) or an earlier pool's index (below 1)");
  CHECK(tree_error_of({{.name = "A", .parent = 0}}) ==
        "pool 'A' (#0): parent 0 must be -1: the first pool is top-level");
  CHECK(tree_error_of({{.name = "A"}, {.name = "B", .parent = -2}}) ==
        "pool 'B' (#1): parent -2 must be -1 (top-level) or an earlier pool's index (below 1)");
}

TEST_CASE("Pools.Tree.a_share_must_be_above_zero") {
  CHECK(tree_error_of({{.name = "A"}, {.name = "batch", .share = {1, 0, 1}}}) ==
        "pool 'batch' (#1): share of cpus is 0; it must be above 0");
  CHECK(tree_error_of({{.name = "batch", .share = {1, 1, kUnlimited}}}) ==
        "pool 'batch' (#0): share of mem is infinite; it must be a finite number");
}

TEST_CASE("Pools.Tree.negative_and_nan_numbers_are_refused") {
  CHECK(tree_error_of({{.name = "A", .reservation = {-1, 0, 0}}}) ==
        "pool 'A' (#0): reservation of gpus is -1; it must be at least 0");
  CHECK(tree_error_of({{.name = "A", .limit = {kUnlimited, kUnlimited, std::nan("")}}}) ==
        "pool 'A' (#0): limit of mem is not a number");
  CHECK(tree_error_of({{.name = "A", .reservation = {kUnlimited, 0, 0}}}) ==
        "pool 'A' (#0): reservation of gpus is infinite; it must be a finite number");
}

TEST_CASE("Pools.Tree.children_reserve_no_more_than_their_parent") {
  // 30 + 20 of A's 40 reserved GPUs: a child's guarantee is carved out of its parent's.
  CHECK(tree_error_of({{.name = "A", .reservation = {40, 0, 0}},
                       {.name = "A1", .parent = 0, .reservation = {30, 0, 0}},
                       {.name = "A2", .parent = 0, .reservation = {20, 0, 0}}}) ==
        "pool 'A' (#0): its children reserve 50 gpus in all, more than its own reservation (40)");
  // Exactly the parent's reservation is fine.
  CHECK_NOTHROW(PoolTree({{.name = "A", .reservation = {40, 0, 0}},
                          {.name = "A1", .parent = 0, .reservation = {30, 0, 0}},
                          {.name = "A2", .parent = 0, .reservation = {10, 0, 0}}}));
}

TEST_CASE("Pools.Tree.names_are_given_and_unique_among_siblings") {
  CHECK(tree_error_of({{.name = ""}}) == "pool '' (#0): a pool needs a name");
  CHECK(tree_error_of({{.name = "A"}, {.name = "A"}}) ==
        "pool 'A' (#1): another pool with the same parent has this name");
  // The same name under two parents is two pools (Peloton's /A/x and /B/x).
  CHECK_NOTHROW(PoolTree({{.name = "A"}, {.name = "B"}, {.name = "x", .parent = 0}, {.name = "x", .parent = 1}}));
}
