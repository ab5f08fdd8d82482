#pragma once
// Broad phase of the granular path (issue 4 item 2): candidate sphere pairs from the cell grid of
// contact/CellGrid.hpp. A pair is kept when the centres are closer than r_a + r_b + margin, the margin being
// how far the surfaces may approach in one step (the activation forecast of the step, see
// engine/granular/GranularStepper.cpp). Each cell is scanned against a half stencil (itself and its 13
// "forward" neighbours), so every pair is found once. The caller splits the cells into contiguous ranges, one
// per thread (cell_range), scans each into its own list, and concatenates the lists in range order: the result
// is the list a serial scan gives, for any thread count. On a periodic grid neighbour cells wrap and distances
// are minimum-image ones (contact/Periodicity.hpp).
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "contact/CellGrid.hpp"

namespace talus::contact {

struct BodyPair {
  std::int32_t a, b;  // body indices, a < b
};

// Cells [begin, end) of part `part` out of `parts`, balanced by the number of bodies they hold.
void cell_range(const CellGrid& grid, int part, int parts, long& begin, long& end);

// Appends the candidate pairs whose first body lies in cells [begin, end) to `out` (not cleared).
void find_sphere_pairs(const CellGrid& grid, const Eigen::Vector3d* x, const double* radius, double margin,
                       long begin, long end, std::vector<BodyPair>& out,
                       const Periodicity& periodic = Periodicity{});

// Calls visit(i) for every body i in the cells overlapping the axis-aligned box [centre − reach, centre + reach]
// (wrapped along periodic axes; a cell is visited once even when the box spans a whole period). For bodies
// larger than the cells (capsules) against the grid of beads.
template <class Visit>
void for_bodies_near(const CellGrid& g, const Eigen::Vector3d& centre, double reach, Visit&& visit) {
  int lo[3], hi[3];
  for (int a = 0; a < 3; ++a) {
    lo[a] = static_cast<int>(std::floor((centre[a] - reach - g.origin[a]) * g.inverse_width[a]));
    hi[a] = static_cast<int>(std::floor((centre[a] + reach - g.origin[a]) * g.inverse_width[a]));
    if (g.wraps[a]) {
      if (hi[a] - lo[a] >= g.dims[a] - 1) lo[a] = 0, hi[a] = g.dims[a] - 1;
    } else {
      lo[a] = std::max(lo[a], 0), hi[a] = std::min(hi[a], g.dims[a] - 1);
    }
  }
  auto wrapped = [&](int a, int c) {
    if (!g.wraps[a]) return c;
    const int m = c % g.dims[a];
    return m < 0 ? m + g.dims[a] : m;
  };
  for (int k = lo[2]; k <= hi[2]; ++k)
    for (int j = lo[1]; j <= hi[1]; ++j)
      for (int i = lo[0]; i <= hi[0]; ++i) {
        const long c = g.cell_index(wrapped(0, i), wrapped(1, j), wrapped(2, k));
        for (std::int32_t p = g.cell_start[c]; p < g.cell_start[c + 1]; ++p) visit(g.sorted[p]);
      }
}

}  // namespace talus::contact
