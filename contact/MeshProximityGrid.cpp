#include "contact/MeshProximityGrid.hpp"

#include <algorithm>
#include <cmath>

#include "contact/MeshContact.hpp"

namespace talus::contact {

MeshProximityGrid build_proximity_grid(const TriangleMesh& mesh, double pad, std::size_t max_cells) {
  MeshProximityGrid g;
  if (mesh.bvh.empty() || !(pad > 0.0)) return g;
  const Eigen::Vector3d lo = mesh.bvh[0].lo.array() - pad, hi = mesh.bvh[0].hi.array() + pad;
  double cells = 1.0;
  // Cells of half the pad: a marked cell reaches pad + 0.87 cell = 1.43 pad from the surface.
  const double side = 0.5 * pad;
  for (int a = 0; a < 3; ++a) cells *= std::ceil((hi[a] - lo[a]) / side);
  if (!(cells <= static_cast<double>(max_cells))) return g;
  g.origin = lo, g.cell = side, g.pad = pad;
  for (int a = 0; a < 3; ++a) g.dims[a] = std::max(1L, static_cast<long>(std::ceil((hi[a] - lo[a]) / side)));
  g.near.assign(static_cast<std::size_t>(g.dims[0] * g.dims[1] * g.dims[2]), 0);
  // A cell is near when its centre is within pad + its half diagonal of the triangle: then no point of an
  // unmarked cell is within pad of any triangle.
  const double reach = pad + 0.5 * std::sqrt(3.0) * g.cell;
  for (int t = 0; t < mesh.faces(); ++t) {
    const auto& tri = mesh.triangles[t];
    const Eigen::Vector3d tlo = mesh.vertices[tri[0]].cwiseMin(mesh.vertices[tri[1]]).cwiseMin(mesh.vertices[tri[2]]);
    const Eigen::Vector3d thi = mesh.vertices[tri[0]].cwiseMax(mesh.vertices[tri[1]]).cwiseMax(mesh.vertices[tri[2]]);
    long c0[3], c1[3];
    for (int a = 0; a < 3; ++a) {
      c0[a] = std::clamp(static_cast<long>(std::floor((tlo[a] - reach - g.origin[a]) / g.cell)), 0L, g.dims[a] - 1);
      c1[a] = std::clamp(static_cast<long>(std::floor((thi[a] + reach - g.origin[a]) / g.cell)), 0L, g.dims[a] - 1);
    }
    for (long k = c0[2]; k <= c1[2]; ++k)
      for (long j = c0[1]; j <= c1[1]; ++j)
        for (long i = c0[0]; i <= c1[0]; ++i) {
          std::uint8_t& mark = g.near[static_cast<std::size_t>((k * g.dims[1] + j) * g.dims[0] + i)];
          if (mark) continue;
          const Eigen::Vector3d centre = g.origin + g.cell * Eigen::Vector3d(i + 0.5, j + 0.5, k + 0.5);
          int f;
          if ((centre - nearest_on_triangle(mesh, t, centre, f)).norm() <= reach) mark = 1;
        }
  }
  return g;
}

}  // namespace talus::contact
