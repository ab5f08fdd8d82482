#pragma once
// Re-sorting beads along a Morton (Z-order) curve (issue 4 item 2: periodic re-sorting for locality). Beads
// drift away from their neighbours in memory as they move; sorting them by the Morton code of their grid cell
// puts neighbours in space close in memory again, so the broad phase and the sweeps touch fewer cache lines.
#include <cstdint>
#include <utility>
#include <vector>

#include <Eigen/Dense>

namespace talus::granular {

// order[k] = the bead that goes to index k: the n beads at x sorted by the Morton code of their cell (cells of
// size `cell`, 21 bits per axis), ties kept in index order, or with `ties` (one distinct key a bead, e.g. its
// id) in the order of those keys: then the order depends on the beads alone, not on the order they came in.
// `scratch` is reused storage.
void morton_order(const Eigen::Vector3d* x, int n, double cell, std::vector<std::int32_t>& order,
                  std::vector<std::pair<std::uint64_t, std::int32_t>>& scratch, const std::uint32_t* ties = nullptr);

}  // namespace talus::granular
