#pragma once
// The processes' regions of a partitioned model (issue 15 item 1): recursive coordinate bisection of the beads'
// centres, weighted by the work each bead brings (its contacts). The ranks are split in two halves (the lower
// half gets ⌊R/2⌋), the points by a plane across the longest side of their bounding box at the weighted quantile
// ⌊R/2⌋/R, and each side recursively. Every region is a box (unbounded at the outside), so the regions tile space
// and any point has exactly one owner.
//
// Deterministic: the points are ordered by (coordinate, id) before the quantile is taken, so every process that
// runs it on the same points gets the same planes, whatever order the points came in.
#include <Eigen/Dense>
#include <cstdint>
#include <vector>

namespace talus::distributed {

struct RankRegions {
  struct Node {
    int axis = 0;        // inner node: the cutting plane x[axis] = value; x[axis] < value goes to `low`
    double value = 0.0;
    int low = -1, high = -1;  // children (node indices); both −1 at a leaf
    int rank = 0;             // leaf: the owning process
  };
  std::vector<Node> nodes;  // nodes[0] is the root

  int owner(const Eigen::Vector3d& x) const;
  int ranks() const;
};

// The regions of `ranks` processes for n points x with weights w (> 0) and distinct ids. With no points, every
// cut is at 0 across x (each region is still a box).
RankRegions bisect(const Eigen::Vector3d* x, const double* w, const std::uint32_t* id, int n, int ranks);

}  // namespace talus::distributed
