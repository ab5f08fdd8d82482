// The Morton order of beads (engine/granular/SpaceFillingCurve.hpp): what it cannot fake: beads sorted by the
// Z-order of their cells (a 2 × 2 × 2 block in the curve's order), ties kept in index order, and with `ties` (the
// beads' ids) in id order whatever order the beads are given in (the partitioned model's beads arrive by migration
// in an order that must not matter).
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/granular/SpaceFillingCurve.hpp"

using talus::granular::morton_order;

TEST_CASE("Morton order: cells in Z order, ties by index or by the keys given") {
  // One bead per cell of a 2 × 2 × 2 block, given in reverse Z order; the Z order interleaves x fastest.
  std::vector<Eigen::Vector3d> x;
  for (int c = 7; c >= 0; --c) x.emplace_back(0.5 + (c & 1), 0.5 + ((c >> 1) & 1), 0.5 + ((c >> 2) & 1));
  std::vector<std::int32_t> order;
  std::vector<std::pair<std::uint64_t, std::int32_t>> scratch;
  morton_order(x.data(), 8, 1.0, order, scratch);
  for (int k = 0; k < 8; ++k) CHECK(order[k] == 7 - k);

  // Two beads in each of two cells, in two arrival orders: by index, the arrival order decides within a cell; by
  // id, the same beads come out in the same order either way.
  const std::vector<Eigen::Vector3d> a = {{0.2, 0.2, 0.2}, {1.7, 0.2, 0.2}, {0.8, 0.8, 0.8}, {1.2, 0.5, 0.5}};
  const std::vector<std::uint32_t> ids_a = {10, 11, 5, 3};
  std::vector<Eigen::Vector3d> b(a.rbegin(), a.rend());
  std::vector<std::uint32_t> ids_b(ids_a.rbegin(), ids_a.rend());
  auto sorted_ids = [&](const std::vector<Eigen::Vector3d>& p, const std::vector<std::uint32_t>& ids, bool by_id) {
    morton_order(p.data(), 4, 1.0, order, scratch, by_id ? ids.data() : nullptr);
    std::vector<std::uint32_t> out;
    for (int k = 0; k < 4; ++k) out.push_back(ids[order[k]]);
    return out;
  };
  CHECK(sorted_ids(a, ids_a, true) == std::vector<std::uint32_t>{5, 10, 3, 11});
  CHECK(sorted_ids(b, ids_b, true) == std::vector<std::uint32_t>{5, 10, 3, 11});
  CHECK(sorted_ids(a, ids_a, false) == std::vector<std::uint32_t>{10, 5, 11, 3});
  CHECK(sorted_ids(b, ids_b, false) == std::vector<std::uint32_t>{5, 10, 3, 11});
}
