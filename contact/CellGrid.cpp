#include "contact/CellGrid.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <stdexcept>
#include <string>

namespace talus::contact {

void cell_coordinates(const CellGrid& g, const Eigen::Vector3d& p, int ijk[3]) {
  for (int a = 0; a < 3; ++a) {
    const int c = static_cast<int>(std::floor((p[a] - g.origin[a]) * g.inverse_width[a]));
    if (g.wraps[a]) {
      const int m = c % g.dims[a];
      ijk[a] = m < 0 ? m + g.dims[a] : m;
    } else {
      ijk[a] = std::clamp(c, 0, g.dims[a] - 1);
    }
  }
}

void size_cell_grid(CellGrid& g, const Eigen::Vector3d* x, int n, double min_cell_size, const Periodicity& per) {
  assert(min_cell_size > 0.0);
  Eigen::Vector3d lo = Eigen::Vector3d::Constant(0.0), hi = lo;
  if (n > 0) lo = hi = x[0];
  for (int i = 1; i < n; ++i) lo = lo.cwiseMin(x[i]), hi = hi.cwiseMax(x[i]);
  for (int a = 0; a < 3; ++a)
    if (per.axis[a]) lo[a] = per.lower[a], hi[a] = per.lower[a] + per.length[a];
  const Eigen::Vector3d extent = (hi - lo).cwiseMax(min_cell_size);
  // At most ~2 cells per body (and 64 at least): beyond that empty cells only cost memory and scan time.
  const double max_cells = std::max(64.0, 2.0 * n);
  double size = min_cell_size;
  const double volume_cells = (extent.array() / size + 1.0).prod();
  if (volume_cells > max_cells) size *= std::cbrt(volume_cells / max_cells) * 1.0001;
  g.cell_size = size;
  g.origin = lo;
  for (int a = 0; a < 3; ++a) {
    g.wraps[a] = per.axis[a];
    if (per.axis[a]) {
      int d = static_cast<int>(std::floor(per.length[a] / size));
      if (d < 3) d = std::min(3, static_cast<int>(std::floor(per.length[a] / min_cell_size)));
      if (d < 3)
        throw std::invalid_argument("periodic boundary: the period along axis " + std::to_string(a) + " (" +
                                    std::to_string(per.length[a]) + " m) must be at least 3 contact cells (" +
                                    std::to_string(3.0 * min_cell_size) + " m: 3 × (largest diameter + margin))");
      g.dims[a] = d;
      g.inverse_width[a] = d / per.length[a];
    } else {
      g.dims[a] = std::max(1, static_cast<int>(std::floor(extent[a] / size)) + 1);
      g.inverse_width[a] = 1.0 / size;
    }
  }
  const long cells = g.cells();
  g.body_cell.resize(n);
  g.sorted.resize(n);
  g.cell_start.assign(cells + 1, 0);
}

void assign_cells(CellGrid& g, const Eigen::Vector3d* x, int begin, int end) {
  for (int i = begin; i < end; ++i) {
    int c[3];
    cell_coordinates(g, x[i], c);
    g.body_cell[i] = static_cast<std::int32_t>(g.cell_index(c[0], c[1], c[2]));
  }
}

void sort_into_cells(CellGrid& g) {
  const long cells = g.cells();
  const int n = static_cast<int>(g.body_cell.size());
  for (int i = 0; i < n; ++i) ++g.cell_start[g.body_cell[i] + 1];
  for (long c = 0; c < cells; ++c) g.cell_start[c + 1] += g.cell_start[c];
  // A moving cursor per cell (stable: ascending body index inside a cell), then shift the offsets back.
  for (int i = 0; i < n; ++i) g.sorted[g.cell_start[g.body_cell[i]]++] = i;
  for (long c = cells; c > 0; --c) g.cell_start[c] = g.cell_start[c - 1];
  g.cell_start[0] = 0;
}

}  // namespace talus::contact
