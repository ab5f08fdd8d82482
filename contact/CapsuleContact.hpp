#pragma once
// Exact narrow phase of capsules (issue 4 item 1: one non-spherical shape, for rockfall-like blocks). A capsule
// is the set of points within `radius` of the segment [centre − half_length a, centre + half_length a], a the
// unit axis; its distance to another shape is the distance of the segment's closest point minus the radius,
// so every pair reduces to a point–segment, segment–segment, point–plane or point–box closest point:
//   capsule–sphere   closest point of the segment to the centre (one contact);
//   capsule–capsule  closest points of the two segments (Ericson, Real-Time Collision Detection §5.1.9) and
//                    each segment end against the other segment, so that a capsule lying along another rests on
//                    a line instead of pivoting on a point;
//   capsule–plane    the segment's end points (the closest point of a segment to a plane is an end point, both
//                    when parallel): two contacts, each a sphere–plane one (contact/NarrowPhase.hpp);
//   capsule–box      both end points and, when the segment's distance to the box is smallest inside it, that
//                    point (a golden-section search: the distance to a convex set is convex along the segment);
//   capsule–cone     the same for a cone's shell.
// Conventions are those of contact/NarrowPhase.hpp (n from a to b, lever arms from each body's centre); the
// `feature` of each point tells which one it is, so that a pair's contacts keep distinct cache keys.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "contact/NarrowPhase.hpp"
#include "contact/Shapes.hpp"

namespace talus::contact {

struct CapsuleShape {
  Eigen::Vector3d centre;
  Eigen::Vector3d axis;  // unit
  double half_length = 0.0;
  double radius = 0.0;
  Eigen::Vector3d end(int k) const { return centre + (k == 0 ? -half_length : half_length) * axis; }
};

// Parameter s ∈ [−half_length, half_length] of the segment point closest to p.
inline double closest_on_segment(const CapsuleShape& c, const Eigen::Vector3d& p) {
  return std::clamp(c.axis.dot(p - c.centre), -c.half_length, c.half_length);
}

// Closest points of segments a and b: parameters sa, sb (from the centres, along the axes). Ericson §5.1.9.
inline void closest_segment_segment(const CapsuleShape& a, const CapsuleShape& b, double& sa, double& sb) {
  const Eigen::Vector3d r = a.centre - b.centre;
  const double d = a.axis.dot(b.axis), e = a.axis.dot(r), f = b.axis.dot(r);
  const double denom = 1.0 - d * d;
  sa = denom > 1e-12 ? std::clamp((d * f - e) / denom, -a.half_length, a.half_length) : 0.0;
  sb = sa * d + f;
  if (sb < -b.half_length || sb > b.half_length) {
    sb = std::clamp(sb, -b.half_length, b.half_length);
    sa = std::clamp(sb * d - e, -a.half_length, a.half_length);
  }
}

// Contact between point pa_world of a's axis (radius ra, a's centre ca) and point pb_world of b's axis.
inline bool axis_points_contact(const Eigen::Vector3d& qa, double ra, const Eigen::Vector3d& ca,
                                const Eigen::Vector3d& qb, double rb, const Eigen::Vector3d& cb, int feature,
                                ContactPoint& c) {
  const Eigen::Vector3d d = qb - qa;
  const double dist = d.norm();
  if (!(dist > 0.0)) return false;
  c.n = d / dist;
  c.gap = dist - ra - rb;
  c.pa = qa + ra * c.n - ca;
  c.pb = qb - rb * c.n - cb;
  c.feature = feature;
  return true;
}

// Capsule a against sphere b (xb, rb).
inline bool capsule_sphere_point(const CapsuleShape& a, const Eigen::Vector3d& xb, double rb, ContactPoint& c) {
  const Eigen::Vector3d q = a.centre + closest_on_segment(a, xb) * a.axis;
  return axis_points_contact(q, a.radius, a.centre, xb, rb, xb, 0, c);
}

// Capsule a against capsule b: up to 5 points (returns how many, written to out[0..]): the closest points of
// the two axes when they are inside both segments and the axes are not parallel (feature 0), and each end of
// one axis against the other segment (features 1, 2: a's ends; 3, 4: b's ends), without repeating a pair of
// points. Every one is a valid non-penetration constraint (an end's sphere lies inside its capsule); the ends
// make a capsule resting along another bear on a line, and keep a nearly parallel pair from pivoting into each
// other on its single closest point when one of them turns (measured: a tenth of a radius in one step).
// The caller keeps the points within its margin.
inline int capsule_capsule_points(const CapsuleShape& a, const CapsuleShape& b, ContactPoint out[5]) {
  int k = 0;
  Eigen::Vector3d qa_done[5], qb_done[5];
  auto add = [&](const Eigen::Vector3d& qa, const Eigen::Vector3d& qb, int feature) {
    const double tol = 1e-9 * (a.half_length + a.radius + b.half_length + b.radius);
    for (int j = 0; j < k; ++j)
      if ((qa - qa_done[j]).norm() <= tol && (qb - qb_done[j]).norm() <= tol) return;
    if (axis_points_contact(qa, a.radius, a.centre, qb, b.radius, b.centre, feature, out[k]))
      qa_done[k] = qa, qb_done[k] = qb, ++k;
  };
  double sa, sb;
  closest_segment_segment(a, b, sa, sb);
  if (a.axis.cross(b.axis).norm() > 1e-3 && std::abs(sa) < a.half_length && std::abs(sb) < b.half_length)
    add(a.centre + sa * a.axis, b.centre + sb * b.axis, 0);
  for (int e = 0; e < 2; ++e) {
    const Eigen::Vector3d qa = a.end(e);
    add(qa, b.centre + closest_on_segment(b, qa) * b.axis, 1 + e);
  }
  for (int e = 0; e < 2; ++e) {
    const Eigen::Vector3d qb = b.end(e);
    add(a.centre + closest_on_segment(a, qb) * a.axis, qb, 3 + e);
  }
  return k;
}

// Capsule (body b) against a wall (a): the two end points; feature = 2 × end + the wall feature (rim).
inline int capsule_wall_points(const Wall& w, const CapsuleShape& b, ContactPoint out[2]) {
  int k = 0;
  for (int e = 0; e < 2; ++e) {
    const Eigen::Vector3d p = b.end(e);
    if (!sphere_wall_point(w, p, b.radius, out[k])) continue;
    out[k].pb += p - b.centre;
    out[k].feature = 2 * e + out[k].feature;
    ++k;
  }
  return k;
}

// The parameter s ∈ [−half_length, half_length] where f(s) is least, for f unimodal along the segment (a
// distance to a convex set): a golden-section search down to 1e-12 of the half length.
template <class F>
double interior_minimum(const CapsuleShape& b, F&& f) {
  constexpr double phi = 0.6180339887498949;
  double lo = -b.half_length, hi = b.half_length;
  double x1 = hi - phi * (hi - lo), x2 = lo + phi * (hi - lo);
  double f1 = f(x1), f2 = f(x2);
  for (int it = 0; it < 60 && hi - lo > 1e-12 * b.half_length; ++it) {
    if (f1 <= f2) {
      hi = x2, x2 = x1, f2 = f1, x1 = hi - phi * (hi - lo), f1 = f(x1);
    } else {
      lo = x1, x1 = x2, f1 = f2, x2 = lo + phi * (hi - lo), f2 = f(x2);
    }
  }
  return 0.5 * (lo + hi);
}

// Distance from the box to the segment point at parameter s (for the search below).
inline double box_distance(const Box& box, const CapsuleShape& c, double s) {
  const Eigen::Vector3d local = box.axes.transpose() * (c.centre + s * c.axis - box.centre);
  return (local - local.cwiseMax(-box.half_extent).cwiseMin(box.half_extent)).norm();
}

// Capsule (body b) against a box (a, fixed): end points (features 0, 1) and an interior minimum (feature 2).
inline int capsule_box_points(const Box& box, const CapsuleShape& b, ContactPoint out[3]) {
  int k = 0;
  auto add = [&](double s, int feature) {
    const Eigen::Vector3d p = b.centre + s * b.axis;
    if (!sphere_box_point(box, p, b.radius, out[k])) return;
    out[k].pb += p - b.centre;
    out[k].feature = feature;
    ++k;
  };
  add(-b.half_length, 0);
  add(b.half_length, 1);
  // The smallest distance along the segment; kept when it is inside the segment and closer than both ends by
  // more than round-off.
  const double s = interior_minimum(b, [&](double x) { return box_distance(box, b, x); });
  const double fs = box_distance(box, b, s);
  const double ends = std::min(box_distance(box, b, -b.half_length), box_distance(box, b, b.half_length));
  const double tol = 1e-9 * (b.half_length + b.radius);
  if (fs > 0.0 && fs < ends - tol && std::abs(s) < b.half_length * (1.0 - 1e-6)) add(s, 2);
  return k;
}

// Capsule (body b) against a cone's shell (a, fixed; contact/Shapes.hpp Cone): the end points (features 0, 1; a
// rim adds 2 to an end's feature) and, when the segment's distance to the shell is smallest inside it, that point
// (feature 4): a capsule lying across the outside of a cylinder rests on its middle. Inside a shell (a hopper) the
// distance along a chord is least at an end. The interior minimum is found by a golden-section search, as for
// boxes (unimodal along a segment outside the shell).
inline int capsule_cone_points(const Cone& cone, const CapsuleShape& b, ContactPoint out[3]) {
  int k = 0;
  ContactPoint cp;
  auto distance = [&](double s) {
    return sphere_cone_point(cone, b.centre + s * b.axis, 0.0, cp) ? cp.gap : INFINITY;
  };
  auto add = [&](double s, int feature) {
    const Eigen::Vector3d p = b.centre + s * b.axis;
    if (!sphere_cone_point(cone, p, b.radius, out[k])) return;
    out[k].pb += p - b.centre;
    out[k].feature = feature + (feature < 4 ? 2 * out[k].feature : 0);
    ++k;
  };
  add(-b.half_length, 0);
  add(b.half_length, 1);
  const double s = interior_minimum(b, distance), fs = distance(s);
  const double ends = std::min(distance(-b.half_length), distance(b.half_length));
  const double tol = 1e-9 * (b.half_length + b.radius);
  if (std::isfinite(fs) && fs < ends - tol && std::abs(s) < b.half_length * (1.0 - 1e-6)) add(s, 4);
  return k;
}

}  // namespace talus::contact
