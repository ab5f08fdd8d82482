#pragma once
// Meshes the mesh tests build: a tessellated rectangle, a folded sheet (a ridge or a valley), a closed
// tetrahedron and a UV sphere.
#include <cmath>
#include <numbers>
#include <vector>

#include "contact/TriangleMesh.hpp"

namespace talus::test {

// The rectangle [x0, x1] × [y0, y1] in the plane z = 0, an nx × ny grid of cells, each cut in two along a diagonal
// that alternates from cell to cell (so edges and vertices of every valence occur); normals +z.
inline contact::TriangleMesh flat_grid(double x0, double x1, double y0, double y1, int nx, int ny) {
  std::vector<Eigen::Vector3d> v;
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i <= nx; ++i) v.emplace_back(x0 + (x1 - x0) * i / nx, y0 + (y1 - y0) * j / ny, 0.0);
  std::vector<std::array<int, 3>> t;
  const auto id = [&](int i, int j) { return j * (nx + 1) + i; };
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const int a = id(i, j), b = id(i + 1, j), c = id(i + 1, j + 1), d = id(i, j + 1);
      if ((i + j) % 2 == 0)
        t.push_back({a, b, c}), t.push_back({a, c, d});
      else
        t.push_back({a, b, d}), t.push_back({b, c, d});
    }
  return contact::build_triangle_mesh("grid", std::move(v), t);
}

// Two rectangles meeting along the y axis: z = slope_left · (−x) for x < 0 and z = slope_right · x for x > 0,
// over |x| <= half_width, |y| <= half_width. Positive slopes make a valley, negative a ridge.
inline contact::TriangleMesh folded_sheet(double slope_left, double slope_right, double half_width) {
  const double w = half_width;
  std::vector<Eigen::Vector3d> v = {{-w, -w, slope_left * w}, {0, -w, 0}, {w, -w, slope_right * w},
                                    {-w, w, slope_left * w},  {0, w, 0},  {w, w, slope_right * w}};
  std::vector<std::array<int, 3>> t = {{0, 1, 4}, {0, 4, 3}, {1, 2, 5}, {1, 5, 4}};
  return contact::build_triangle_mesh("fold", std::move(v), t);
}

// A UV sphere of radius R about c (closed, outward normals), n_lat × n_lon cells.
inline contact::TriangleMesh uv_sphere(const Eigen::Vector3d& c, double R, int n_lat, int n_lon) {
  std::vector<Eigen::Vector3d> v = {c + Eigen::Vector3d(0, 0, -R)};
  for (int i = 1; i < n_lat; ++i) {
    const double th = std::numbers::pi * i / n_lat - std::numbers::pi / 2;
    for (int j = 0; j < n_lon; ++j) {
      const double ph = 2 * std::numbers::pi * j / n_lon;
      v.push_back(c + R * Eigen::Vector3d(std::cos(th) * std::cos(ph), std::cos(th) * std::sin(ph), std::sin(th)));
    }
  }
  v.push_back(c + Eigen::Vector3d(0, 0, R));
  const int top = static_cast<int>(v.size()) - 1;
  const auto ring = [&](int i, int j) { return 1 + (i - 1) * n_lon + (j % n_lon); };
  std::vector<std::array<int, 3>> t;
  for (int j = 0; j < n_lon; ++j) t.push_back({0, ring(1, j + 1), ring(1, j)});
  for (int i = 1; i < n_lat - 1; ++i)
    for (int j = 0; j < n_lon; ++j) {
      t.push_back({ring(i, j), ring(i, j + 1), ring(i + 1, j + 1)});
      t.push_back({ring(i, j), ring(i + 1, j + 1), ring(i + 1, j)});
    }
  for (int j = 0; j < n_lon; ++j) t.push_back({top, ring(n_lat - 1, j), ring(n_lat - 1, j + 1)});
  return contact::build_triangle_mesh("sphere", std::move(v), t, true);
}

}  // namespace talus::test
