#pragma once
// Capsule–mesh contact (issue 14 item 1), in the manner of capsule–box (contact/CapsuleContact.hpp): the capsule's
// two ends and its interior.
//  - Each end is a sphere of the capsule's radius against the mesh (sphere_mesh_features, contact/MeshContact.hpp):
//    its faces, edges and vertices, one contact each. A capsule lying on a floor rests on its two ends; on a
//    tessellated floor these are exactly the analytic plane's two contacts.
//  - The interior: for each triangle near the segment, the closest points of the segment and the triangle. One whose
//    segment point is inside the segment and which is nearer than both ends are to the whole mesh (by more than
//    round-off) is a contact too: a capsule lying across a ridge, a step's edge or a narrow plank, its ends in the
//    air. Points where two triangles give the same pair (a shared edge) are one contact. Where the segment lies
//    parallel over a face the ends are as near, and no interior contact is added.
// Conventions: those of contact/NarrowPhase.hpp (a is the mesh, fixed; b the capsule; n from the mesh to the
// capsule's axis).
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <vector>

#include "contact/CapsuleContact.hpp"
#include "contact/MeshContact.hpp"

namespace talus::contact {

// Closest points of segments [p0, p1] and [q0, q1]: parameters s, t in [0, 1] (Ericson §5.1.9, general segments).
inline void closest_segments(const Eigen::Vector3d& p0, const Eigen::Vector3d& p1, const Eigen::Vector3d& q0,
                             const Eigen::Vector3d& q1, double& s, double& t) {
  const Eigen::Vector3d d1 = p1 - p0, d2 = q1 - q0, r = p0 - q0;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
  const double c = d1.dot(r), b = d1.dot(d2), denom = a * e - b * b;
  s = denom > 1e-14 * a * e ? std::clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
  t = (b * s + f) / e;
  if (t < 0.0)
    t = 0.0, s = std::clamp(-c / a, 0.0, 1.0);
  else if (t > 1.0)
    t = 1.0, s = std::clamp((b - c) / a, 0.0, 1.0);
}

// The closest points of segment [p0, p1] and triangle t: the segment's parameter s, the triangle's point y and the
// mesh feature y lies on; returns the distance. Minimum over the segment's ends against the triangle and the
// segment against the triangle's edges, or 0 where the segment crosses the triangle.
inline double segment_triangle_closest(const TriangleMesh& m, int t, const Eigen::Vector3d& p0,
                                       const Eigen::Vector3d& p1, double& s, Eigen::Vector3d& y, int& feature) {
  const auto& tri = m.triangles[t];
  const Eigen::Vector3d& n = m.normals[t];
  const Eigen::Vector3d& a = m.vertices[tri[0]];
  const double h0 = n.dot(p0 - a), h1 = n.dot(p1 - a);
  if ((h0 < 0.0) != (h1 < 0.0) && h0 != h1) {
    const double u = h0 / (h0 - h1);
    const Eigen::Vector3d x = p0 + u * (p1 - p0);
    int f;
    const Eigen::Vector3d on = nearest_on_triangle(m, t, x, f);
    if (f == t && (on - x).norm() <= 1e-12 * (p1 - p0).norm()) {
      s = u, y = on, feature = t;
      return 0.0;
    }
  }
  double best = INFINITY;
  for (int e = 0; e < 2; ++e) {
    int f;
    const Eigen::Vector3d p = e == 0 ? p0 : p1;
    const Eigen::Vector3d on = nearest_on_triangle(m, t, p, f);
    const double d = (p - on).norm();
    if (d < best) best = d, s = e, y = on, feature = f;
  }
  const int T = m.faces(), E = m.edges();
  for (int k = 0; k < 3; ++k) {
    const int e = m.triangle_edges[t][k];
    const Eigen::Vector3d &q0 = m.vertices[m.edge_vertices[e][0]], &q1 = m.vertices[m.edge_vertices[e][1]];
    double sp, te;
    closest_segments(p0, p1, q0, q1, sp, te);
    const Eigen::Vector3d on = q0 + te * (q1 - q0);
    const double d = (p0 + sp * (p1 - p0) - on).norm();
    if (d < best) {
      best = d, s = sp, y = on;
      feature = te <= 0.0 ? T + E + m.edge_vertices[e][0] : te >= 1.0 ? T + E + m.edge_vertices[e][1] : T + e;
    }
  }
  return best;
}

// One interior candidate of capsule–mesh detection.
struct CapsuleMeshCandidate {
  int feature;
  double s, dist;
  Eigen::Vector3d q, y;  // the segment's point and the mesh's
};

// Calls emit(point, local, feature) for each contact of capsule c with the mesh within margin: local 0 and 1 for
// the ends (feature: the mesh feature an end touches), 2 for the interior. `scratch` and `interior` are reused.
template <class Emit>
void capsule_mesh_points(const TriangleMesh& m, const CapsuleShape& c, double margin,
                         std::vector<MeshCandidate>& scratch, std::vector<CapsuleMeshCandidate>& interior,
                         Emit&& emit) {
  const double r = c.radius, reach = r + margin;
  for (int e = 0; e < 2; ++e) {
    const Eigen::Vector3d p = c.end(e);
    sphere_mesh_features(m, p, r, margin, scratch, [&](int f) {
      ContactPoint cp;
      if (!sphere_mesh_feature_point(m, f, p, r, cp)) return;
      cp.pb += p - c.centre;
      emit(cp, e, f);
    });
  }
  const Eigen::Vector3d p0 = c.end(0), p1 = c.end(1);
  double end_dist[2] = {INFINITY, INFINITY};
  interior.clear();
  const double tol = 1e-9 * (c.half_length + r);
  for_each_triangle_near(m, c.centre, c.half_length + reach, [&](int t) {
    for (int e = 0; e < 2; ++e) {
      int f;
      const Eigen::Vector3d p = e == 0 ? p0 : p1;
      end_dist[e] = std::min(end_dist[e], (p - nearest_on_triangle(m, t, p, f)).norm());
    }
    double s;
    Eigen::Vector3d y;
    int f;
    const double d = segment_triangle_closest(m, t, p0, p1, s, y, f);
    if (d <= reach && d > 0.0 && s * (1.0 - s) * 2.0 * c.half_length > tol)
      interior.push_back({f, s, d, p0 + s * (p1 - p0), y});
  });
  const double nearest_end = std::min(end_dist[0], end_dist[1]);
  for (std::size_t k = 0; k < interior.size(); ++k) {
    const CapsuleMeshCandidate& i = interior[k];
    if (!(i.dist < nearest_end - tol)) continue;
    bool repeated = false;
    for (std::size_t j = 0; j < k && !repeated; ++j)
      repeated = interior[j].dist < nearest_end - tol && (interior[j].q - i.q).norm() <= tol &&
                 (interior[j].y - i.y).norm() <= tol;
    if (repeated) continue;
    ContactPoint cp;
    cp.n = (i.q - i.y) / i.dist;
    cp.gap = i.dist - r;
    cp.pa = Eigen::Vector3d::Zero();
    cp.pb = i.q - r * cp.n - c.centre;
    cp.feature = i.feature;
    emit(cp, 2, i.feature);
  }
}

}  // namespace talus::contact
