#pragma once
// Exact narrow phase of the granular path (issue 4 item 2): sphere–sphere, sphere–plane, sphere–orifice-rim and
// sphere–box distances, each giving one contact point with its normal and the lever arms from the bodies'
// centres.
// Conventions (those of contact/SphereContact.hpp): n points from a to b, gap = signed distance, and the
// relative velocity of b's contact point with respect to a's is u = v_b + ω_b × p_b − v_a − ω_a × p_a, so
// u·n > 0 separates. For a wall, a is the wall (fixed) and b the bead. These run once per candidate pair per
// step, so they are inline and allocation-free.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "contact/Shapes.hpp"

namespace talus::contact {

// A gap below this fraction of the contact's size (sum of the radii) counts as closed: a contact that the
// one-step law u_N + gap/h >= 0 closed exactly lands on gap = 0 ± round-off, and must then obey Newton's impact
// law (restitution), not the open-gap one again. Only restitution needs it (with e = 0 both laws agree up to
// the round-off), so steps with e = 0 use 0.
inline constexpr double kClosedGapFraction = 1e-9;

struct ContactPoint {
  double gap = 0.0;
  Eigen::Vector3d n;   // unit, from a to b
  Eigen::Vector3d pa;  // contact point minus a's centre (zero for walls)
  Eigen::Vector3d pb;  // contact point minus b's centre
  int feature = 0;     // walls: 0 plane, 1 orifice rim (part of the contact cache key)
};

// Sphere a (xa, ra) and sphere b (xb, rb); false when the centres coincide (no defined normal).
inline bool sphere_sphere_point(const Eigen::Vector3d& xa, double ra, const Eigen::Vector3d& xb, double rb,
                                ContactPoint& c) {
  const Eigen::Vector3d d = xb - xa;
  const double dist = d.norm();
  if (!(dist > 0.0)) return false;
  c.n = d / dist;
  c.gap = dist - ra - rb;
  c.pa = ra * c.n;
  c.pb = -rb * c.n;
  c.feature = 0;
  return true;
}

// Sphere (x, r) against a wall: the plane where the bead's foot is outside the orifice, the rim otherwise.
// A bead whose centre is below the plane (it went through the orifice) touches only the rim.
inline bool sphere_wall_point(const Wall& w, const Eigen::Vector3d& x, double r, ContactPoint& c) {
  const double height = w.normal.dot(x) - w.offset;
  if (w.hole_radius > 0.0) {
    const Eigen::Vector3d foot = x - height * w.normal;
    const Eigen::Vector3d radial = foot - w.hole_centre;
    const double rho = radial.norm();
    if (rho < w.hole_radius) {
      const Eigen::Vector3d dir = rho > 0.0 ? Eigen::Vector3d(radial / rho) : w.normal.unitOrthogonal();
      const Eigen::Vector3d rim = w.hole_centre + w.hole_radius * dir;
      const Eigen::Vector3d d = x - rim;
      const double dist = d.norm();
      if (!(dist > 0.0)) return false;
      c.n = d / dist;
      c.gap = dist - r;
      c.feature = 1;
      c.pa.setZero();
      c.pb = -r * c.n;
      return true;
    }
  }
  if (height < 0.0) return false;
  c.n = w.normal;
  c.gap = height - r;
  c.feature = 0;
  c.pa.setZero();
  c.pb = -r * c.n;
  return true;
}

// Sphere (x, r) against a solid box: the exact distance to the box's closest point, which lies on a face, an
// edge or a corner (the clamped local coordinates say which); n points from that point to the centre. A centre
// inside the box is pushed out through the nearest face. feature = number of clamped coordinates (1 face,
// 2 edge, 3 corner; 0 inside): informative only, cache keys do not use it, so a bead rolling over an edge
// keeps its warm start.
// A sphere inside a drum: gap = R − ρ − r (ρ: distance of the centre from the axis), n from the drum's surface
// towards the axis (into the drum), pb = −r n. False for a centre on the axis (no direction).
inline bool sphere_drum_point(const Drum& d, const Eigen::Vector3d& x, double r, ContactPoint& c) {
  const Eigen::Vector3d rel = x - d.centre;
  const Eigen::Vector3d radial = rel - d.axis.dot(rel) * d.axis;
  const double rho = radial.norm();
  if (!(rho > 0.0)) return false;
  c.n = -radial / rho;
  c.gap = d.radius - rho - r;
  c.pa = Eigen::Vector3d::Zero();
  c.pb = -r * c.n;
  c.feature = 0;
  return true;
}

// A sphere against a cone's shell (Cone): the nearest point of the meridian segment from (radius_bottom, 0) to
// (radius_top, height), in the plane of the axis and the centre. n points from that point to the centre (into
// the side the bead is on), pa is the point relative to cone.base, feature 1 on a rim, 0 on the surface. False
// for a centre on the axis (every direction is as near: a cone whose radius there exceeds the bead's cannot
// touch it, and one whose apex the bead sits on is left open).
inline bool sphere_cone_point(const Cone& k, const Eigen::Vector3d& x, double r, ContactPoint& c) {
  const Eigen::Vector3d rel = x - k.base;
  const double s = k.axis.dot(rel);
  const Eigen::Vector3d radial = rel - s * k.axis;
  const double rho = radial.norm();
  if (!(rho > 0.0)) return false;
  const Eigen::Vector3d e = radial / rho;
  const double dr = k.radius_top - k.radius_bottom, H = k.height;
  const double t = std::clamp(((rho - k.radius_bottom) * dr + s * H) / (dr * dr + H * H), 0.0, 1.0);
  const double qr = k.radius_bottom + t * dr, qs = t * H;
  const double drho = rho - qr, ds = s - qs;
  const double dist = std::hypot(drho, ds);
  if (dist > 0.0) {
    c.n = (drho / dist) * e + (ds / dist) * k.axis;
  } else {  // the centre on the surface: the inner side's normal
    const double L = std::hypot(dr, H);
    c.n = (-H / L) * e + (dr / L) * k.axis;
  }
  c.gap = dist - r;
  c.pa = qr * e + qs * k.axis;
  c.pb = -r * c.n;
  c.feature = t <= 0.0 || t >= 1.0 ? 1 : 0;
  return true;
}

inline bool sphere_box_point(const Box& box, const Eigen::Vector3d& x, double r, ContactPoint& c) {
  const Eigen::Vector3d local = box.axes.transpose() * (x - box.centre);
  const Eigen::Vector3d clamped = local.cwiseMax(-box.half_extent).cwiseMin(box.half_extent);
  const Eigen::Vector3d d = local - clamped;
  const double dist = d.norm();
  if (dist > 0.0) {
    c.n = box.axes * (d / dist);
    c.gap = dist - r;
    c.feature = (d.array() != 0.0).count();
    c.pa = box.axes * clamped;
  } else {
    int face = 0;
    const Eigen::Vector3d depth = box.half_extent - local.cwiseAbs();
    depth.minCoeff(&face);
    Eigen::Vector3d nl = Eigen::Vector3d::Zero();
    nl[face] = local[face] >= 0.0 ? 1.0 : -1.0;
    c.n = box.axes * nl;
    c.gap = -depth[face] - r;
    c.feature = 0;
    Eigen::Vector3d foot = local;
    foot[face] = nl[face] * box.half_extent[face];
    c.pa = box.axes * foot;
  }
  c.pb = -r * c.n;
  return true;
}

}  // namespace talus::contact
