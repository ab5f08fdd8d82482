#include "contact/MeshInside.hpp"

#include <cmath>

namespace talus::contact {

namespace {

// Whether the ray x + s d (s > 0) meets triangle t (Möller–Trumbore).
bool ray_hits(const TriangleMesh& m, int t, const Eigen::Vector3d& x, const Eigen::Vector3d& d) {
  const auto& tri = m.triangles[t];
  const Eigen::Vector3d &a = m.vertices[tri[0]], &b = m.vertices[tri[1]], &c = m.vertices[tri[2]];
  const Eigen::Vector3d e1 = b - a, e2 = c - a, p = d.cross(e2);
  const double det = e1.dot(p);
  if (std::abs(det) < 1e-300) return false;  // the ray is parallel to the triangle
  const Eigen::Vector3d s = x - a;
  const double u = s.dot(p) / det;
  if (u < 0.0 || u > 1.0) return false;
  const Eigen::Vector3d q = s.cross(e1);
  const double v = d.dot(q) / det;
  if (v < 0.0 || u + v > 1.0) return false;
  return e2.dot(q) / det > 0.0;
}

// Whether the ray meets the box [lo, hi] (slabs).
bool ray_meets_box(const Eigen::Vector3d& lo, const Eigen::Vector3d& hi, const Eigen::Vector3d& x,
                   const Eigen::Vector3d& inv_d) {
  double t0 = 0.0, t1 = INFINITY;
  for (int a = 0; a < 3; ++a) {
    double s0 = (lo[a] - x[a]) * inv_d[a], s1 = (hi[a] - x[a]) * inv_d[a];
    if (s0 > s1) std::swap(s0, s1);
    t0 = std::max(t0, s0), t1 = std::min(t1, s1);
    if (t0 > t1) return false;
  }
  return true;
}

}  // namespace

bool inside_closed_mesh(const TriangleMesh& m, const Eigen::Vector3d& x) {
  if (m.boundary_edges > 0 || m.bvh.empty()) return false;
  // A direction with no simple relation to the axes, so that the ray meets no edge of a regular mesh exactly.
  const Eigen::Vector3d d = Eigen::Vector3d(0.5773502691896257, 0.6172133998483676, 0.5345224838248488).normalized();
  const Eigen::Vector3d inv_d = d.cwiseInverse();
  int crossings = 0, stack[64], top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const BvhNode& node = m.bvh[stack[--top]];
    if (!ray_meets_box(node.lo, node.hi, x, inv_d)) continue;
    if (node.count > 0) {
      for (int k = node.first; k < node.first + node.count; ++k) crossings += ray_hits(m, m.bvh_triangles[k], x, d);
    } else {
      stack[top++] = node.first + 1;
      stack[top++] = node.first;
    }
  }
  return crossings % 2 == 1;
}

double signed_volume(const TriangleMesh& m) {
  if (m.boundary_edges > 0) return 0.0;
  double v = 0.0;
  for (const auto& [a, b, c] : m.triangles) v += m.vertices[a].dot(m.vertices[b].cross(m.vertices[c]));
  return v / 6.0;
}

}  // namespace talus::contact
