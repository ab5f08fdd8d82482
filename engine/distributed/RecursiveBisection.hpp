#pragma once
// The processes' regions of a partitioned model (issue 15 item 1): recursive coordinate bisection of the beads'
// centres, weighted by the work each bead brings (its contacts). The ranks are split in two halves (the lower
// half gets ⌊R/2⌋), the points by a plane across the longest side of their bounding box, placed so that the lower
// side holds the weighted share ⌊R/2⌋/R, and each side recursively. Every region is a box (unbounded at the
// outside), so the regions tile space and any point has exactly one owner.
//
// The points stay where they are (docs/distributed.md, "Rebalancing"): each process holds its own and the planes
// are found from reductions over the processes, never from the points gathered. Level by level, for every node at
// once: the bounding boxes (a min-reduction) give each node's axis; then a bisection over the ordered doubles of
// that axis finds the lowest plane v with at least the target weight strictly below it (each trial a sum over the
// processes of the weight below, one value per node; at most 65 trials); a last min-reduction finds the nearest
// points on both sides, and the plane moves midway between them. That is log₂ R levels of about 68 reductions
// of a few values per node, whatever the number of beads; gathering the centres instead would cost every process
// O(N) memory and traffic (4 × 10⁸ × 40 B at 10⁸ beads).
//
// Deterministic: reductions give the same bits on every process, so every process derives the same regions. With
// integer weights (1 + contacts) every sum is exact, so the regions depend only on the points, not on how they are
// spread over the processes: one process holding every point gets the same regions (what the domain's
// construction does, before any message).
#include <Eigen/Dense>
#include <cstdint>
#include <vector>

#include "engine/analysis/SpreadReductions.hpp"

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
  bool operator==(const RankRegions& o) const;
};

// The regions of `ranks` processes for the points x with weights w (> 0) that this process holds (n of them; the
// other processes call it with theirs; WholeReductions when this process holds them all). With no points at all,
// every cut is at 0 across x.
RankRegions bisect(const Eigen::Vector3d* x, const double* w, int n, int ranks, SpreadReductions& reduce);

}  // namespace talus::distributed
