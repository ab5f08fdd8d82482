#pragma once
// Sphere–mesh contact by features (issue 14 item 1; contact/TriangleMesh.hpp numbers the features).
// Detection (sphere_mesh_features) takes each triangle near the bead, finds its nearest point and the feature
// that point lies on (face interior, edge, vertex: Ericson, Real-Time Collision Detection §5.1.5), and keeps:
//  - every face feature (the centre projects inside that triangle: a true local minimum of the distance);
//  - an edge or vertex once, unless a triangle around it is nearer through another feature. On a flat or convex
//    stretch a bead past an edge is nearer to the next triangle's face than to the edge, so the edge is dropped
//    and the bead touches one feature, not two; on a ridge both triangles report the edge and it is kept once.
//    Distances within kMeshTieFraction of the radius count as equal, and then the feature of higher dimension
//    wins (a face over an edge, an edge over a vertex), then the lower number: a bead over the line between two
//    coplanar triangles touches one of them, not also the line. Kept features whose nearest points coincide
//    (within the same tie) are one contact, that of the feature ranked first. Should every candidate be dropped,
//    the nearest is kept: a bead within reach of the mesh always touches it.
// The contact point of a feature (sphere_mesh_feature_point) is then recomputed from the feature alone, so the
// narrow phase and the cache key agree with detection. Conventions: those of contact/NarrowPhase.hpp (a is the
// mesh, b the bead; n from the mesh to the bead's centre).
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <vector>

#include "contact/NarrowPhase.hpp"
#include "contact/TriangleMesh.hpp"

namespace talus::contact {

inline constexpr double kMeshTieFraction = 1e-9;

// The nearest point of triangle t to p and the mesh feature it lies on.
inline Eigen::Vector3d nearest_on_triangle(const TriangleMesh& m, int t, const Eigen::Vector3d& p, int& feature) {
  const auto& tri = m.triangles[t];
  const Eigen::Vector3d &a = m.vertices[tri[0]], &b = m.vertices[tri[1]], &c = m.vertices[tri[2]];
  const int T = m.faces(), E = m.edges();
  const auto vertex = [&](int k) { feature = T + E + tri[k]; return m.vertices[tri[k]]; };
  const auto edge = [&](int k) { feature = T + m.triangle_edges[t][k]; };
  const Eigen::Vector3d ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0.0 && d2 <= 0.0) return vertex(0);
  const Eigen::Vector3d bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0.0 && d4 <= d3) return vertex(1);
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) return edge(0), Eigen::Vector3d(a + d1 / (d1 - d3) * ab);
  const Eigen::Vector3d cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0.0 && d5 <= d6) return vertex(2);
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) return edge(2), Eigen::Vector3d(a + d2 / (d2 - d6) * ac);
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0)
    return edge(1), Eigen::Vector3d(b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b));
  feature = t;
  const double inv = 1.0 / (va + vb + vc);
  return a + ab * (vb * inv) + ac * (vc * inv);
}

// The contact of a bead (x, r) with one feature of the mesh; false when its centre lies on the feature.
inline bool sphere_mesh_feature_point(const TriangleMesh& m, int feature, const Eigen::Vector3d& x, double r,
                                      ContactPoint& c) {
  const int T = m.faces(), E = m.edges();
  c.feature = feature;
  if (feature < T) {
    // A face: the plane of the triangle, on the bead's side.
    const double h = m.normals[feature].dot(x - m.vertices[m.triangles[feature][0]]);
    if (h == 0.0) return false;
    c.n = h > 0.0 ? m.normals[feature] : Eigen::Vector3d(-m.normals[feature]);
    c.gap = std::abs(h) - r;
  } else {
    Eigen::Vector3d p;
    if (feature < T + E) {
      const Eigen::Vector3d& a = m.vertices[m.edge_vertices[feature - T][0]];
      const Eigen::Vector3d d = m.vertices[m.edge_vertices[feature - T][1]] - a;
      p = a + std::clamp(d.dot(x - a) / d.squaredNorm(), 0.0, 1.0) * d;
    } else {
      p = m.vertices[feature - T - E];
    }
    const Eigen::Vector3d d = x - p;
    const double dist = d.norm();
    if (!(dist > 0.0)) return false;
    c.n = d / dist;
    c.gap = dist - r;
  }
  c.pa = Eigen::Vector3d::Zero();
  c.pb = -r * c.n;
  return true;
}

// A triangle's nearest point to a bead, as detection sees it.
struct MeshCandidate {
  int feature, triangle;
  double dist;
  Eigen::Vector3d point;
  bool kept;
};

// Calls emit(feature) once for each feature of the mesh that the bead (x, r) touches or comes within `margin` of
// (header). `scratch` holds the candidates (reused between calls: no allocation once grown).
template <class Emit>
void sphere_mesh_features(const TriangleMesh& m, const Eigen::Vector3d& x, double r, double margin,
                          std::vector<MeshCandidate>& scratch, Emit&& emit) {
  const double reach = r + margin;
  scratch.clear();
  for_each_triangle_near(m, x, reach, [&](int t) {
    int f;
    const Eigen::Vector3d p = nearest_on_triangle(m, t, x, f);
    const double dist = (x - p).norm();
    if (dist <= reach) scratch.push_back({f, t, dist, p, false});
  });
  if (scratch.empty()) return;
  std::sort(scratch.begin(), scratch.end(), [](const MeshCandidate& a, const MeshCandidate& b) {
    return a.feature < b.feature || (a.feature == b.feature && a.triangle < b.triangle);
  });
  const int T = m.faces(), E = m.edges();
  const double tie = kMeshTieFraction * r;
  // Features by dimension: vertex 0, edge 1, face 2; at a tie the higher dimension, then the lower number, wins.
  const auto dimension = [&](int f) { return f < T ? 2 : f < T + E ? 1 : 0; };
  const auto ranks_above = [&](int g, int f) {
    return dimension(g) > dimension(f) || (dimension(g) == dimension(f) && g < f);
  };
  // Whether feature g, at distance dg, beats feature f at distance df: strictly nearer, or as near (within the tie)
  // and ranked above.
  const auto beats = [&](int g, double dg, int f, double df) {
    if (dg < df - tie) return true;
    if (dg > df + tie) return false;
    return ranks_above(g, f);
  };
  // First pass: faces, and the edges and vertices no triangle around them beats. One entry per kept feature.
  for (std::size_t s = 0; s < scratch.size();) {
    std::size_t e = s + 1;
    while (e < scratch.size() && scratch[e].feature == scratch[s].feature) ++e;
    const int f = scratch[s].feature;
    const double dist = scratch[s].dist;
    bool keep = true;
    if (f >= T) {
      const auto beaten_by = [&](int t) {
        for (const MeshCandidate& c : scratch)
          if (c.triangle == t) return c.feature != f && beats(c.feature, c.dist, f, dist);
        return false;
      };
      if (f >= T + E) {
        const int v = f - T - E;
        for (int k = m.vertex_triangle_start[v]; keep && k < m.vertex_triangle_start[v + 1]; ++k)
          keep = !beaten_by(m.vertex_triangles[k]);
      } else {
        for (int t : m.edge_triangles[f - T])
          if (keep && t >= 0) keep = !beaten_by(t);
      }
    }
    scratch[s].kept = keep;
    s = e;
  }
  // Second pass: kept features at the same point (within the tie) are one contact, that of the highest ranked:
  // the line between two coplanar triangles claimed by both through round-off, or a vertex reached through two
  // of its edges.
  bool any = false;
  for (const MeshCandidate& c : scratch) {
    if (!c.kept) continue;
    bool unique = true;
    for (const MeshCandidate& o : scratch)
      if (o.kept && o.feature != c.feature && ranks_above(o.feature, c.feature) && (o.point - c.point).norm() <= tie)
        unique = false;
    if (unique) emit(c.feature), any = true;
  }
  // Never none (should round-off ever make every candidate beat another): the nearest.
  if (!any) {
    const MeshCandidate* best = &scratch[0];
    for (const MeshCandidate& c : scratch)
      if (c.dist < best->dist) best = &c;
    emit(best->feature);
  }
}

}  // namespace talus::contact
