#pragma once
// Broad phase of the granular path (issue 4 item 2): candidate sphere pairs from the cell grid of
// contact/CellGrid.hpp. A pair is kept when the centres are closer than r_a + r_b + margin, the margin being
// how far the surfaces may approach in one step (the activation forecast of the step, see
// engine/granular/GranularStepper.cpp). Each cell is scanned against a half stencil (itself and its 13
// "forward" neighbours), so every pair is found once. The caller splits the cells into contiguous ranges, one
// per thread (cell_range), scans each into its own list, and concatenates the lists in range order: the result
// is the list a serial scan gives, for any thread count.
#include <Eigen/Dense>
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
                       long begin, long end, std::vector<BodyPair>& out);

}  // namespace talus::contact
