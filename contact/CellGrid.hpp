#pragma once
// A uniform grid of cells over the beads' bounding box, rebuilt every step by a counting sort (issue 4
// item 2: cell lists suit many similar-size bodies). Cells are at least one bead diameter plus the contact
// margin wide, so every pair closer than the margin lies in the same or in adjacent cells. The cell count is
// capped relative to the bead count (cells grow when beads spread out, e.g. a silo's outflow), so memory stays
// O(N). Buffers are kept between rebuilds: after the first steps no rebuild allocates.
// Along a periodic axis (contact/Periodicity.hpp) the grid spans exactly one period, split into a whole number
// of cells (at least 3, so that a cell's forward and backward neighbours are distinct cells and the half
// stencil of BroadPhase.hpp still visits every pair once), and neighbour indices wrap.
#include <Eigen/Dense>
#include <cstdint>
#include <vector>

#include "contact/Periodicity.hpp"

namespace talus::contact {

struct CellGrid {
  Eigen::Vector3d origin = Eigen::Vector3d::Zero();
  double cell_size = 1.0;                     // along the open axes
  Eigen::Vector3d inverse_width = Eigen::Vector3d::Ones();  // 1 / cell width, per axis
  bool wraps[3] = {false, false, false};
  int dims[3] = {1, 1, 1};
  std::vector<std::int32_t> cell_start;   // cells + 1 offsets into `sorted`
  std::vector<std::int32_t> sorted;       // body indices, grouped by cell, ascending inside a cell
  std::vector<std::int32_t> body_cell;    // cell of each body

  long cells() const { return static_cast<long>(dims[0]) * dims[1] * dims[2]; }
  long cell_index(int i, int j, int k) const { return (static_cast<long>(k) * dims[1] + j) * dims[0] + i; }
  // Neighbour coordinate c along axis a: wrapped on a periodic axis; −1 when outside an open one.
  int neighbour(int a, int c) const {
    if (wraps[a]) return c < 0 ? c + dims[a] : (c >= dims[a] ? c - dims[a] : c);
    return c < 0 || c >= dims[a] ? -1 : c;
  }
};

// Rebuilding is split in three so that the caller can run the middle stage in parallel with its own thread
// pool (contact/ holds no threading of its own): (1) size the grid for n bodies at x, cells no smaller than
// min_cell_size (positions along periodic axes must already be wrapped; throws std::invalid_argument when a
// period is shorter than 3 cells); (2) assign the bodies [begin, end) to cells (independent per body);
// (3) counting sort.
void size_cell_grid(CellGrid& grid, const Eigen::Vector3d* x, int n, double min_cell_size,
                    const Periodicity& periodic = Periodicity{});
void assign_cells(CellGrid& grid, const Eigen::Vector3d* x, int begin, int end);
void sort_into_cells(CellGrid& grid);

// Integer cell coordinates of a point (clamped into the grid, wrapped along periodic axes).
void cell_coordinates(const CellGrid& grid, const Eigen::Vector3d& p, int ijk[3]);

}  // namespace talus::contact
