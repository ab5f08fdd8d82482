#pragma once
// Obstacles of the granular path (issue 4 item 1): planes, optionally pierced by a circular orifice (silo
// floors) and optionally moving along their normal (pistons, shaken floors), and oriented boxes fixed in space
// (obstacles, hoppers). A box container is five planes (box_walls). Beads themselves are spheres stored in
// engine/bodies/RigidBodies.hpp; walls and boxes are few, so they are plain values scanned per bead rather
// than entries of the broad-phase grid.
#include <Eigen/Dense>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

namespace talus::contact {

// The half-space boundary {x : normal·x = offset}; beads live on the side normal points to. With
// hole_radius > 0 the plane has a circular orifice of that radius centred on hole_centre (a point of the
// plane): beads over it fall through and touch its rim (a circle) instead of the plane.
// A moving wall is translated along its normal by d(t) = speed t + amplitude sin(2π frequency t): the values
// above are those at t = 0. Its velocity enters the contacts' relative velocity (the free term of the
// one-step problem), so beads are carried or lifted by it.
// A gate: a wall with open_at < ∞ is removed at that time (a silo's or hopper's outlet opened after filling);
// no contact is detected with it from the first step that starts at or after open_at.
struct Wall {
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();  // unit
  double offset = 0.0;
  Eigen::Vector3d hole_centre = Eigen::Vector3d::Zero();
  double hole_radius = 0.0;
  double speed = 0.0;      // [m/s] along the normal
  double amplitude = 0.0;  // [m]
  double frequency = 0.0;  // [Hz]
  double open_at = std::numeric_limits<double>::infinity();  // [s]

  bool present(double t) const { return t < open_at; }
  bool moves() const { return speed != 0.0 || (amplitude != 0.0 && frequency != 0.0); }
  double displacement(double t) const {
    return speed * t + amplitude * std::sin(2.0 * std::numbers::pi * frequency * t);
  }
  double velocity(double t) const {
    const double w = 2.0 * std::numbers::pi * frequency;
    return speed + amplitude * w * std::cos(w * t);
  }
  // The wall where it is at time t.
  Wall at(double t) const {
    Wall w = *this;
    const double d = displacement(t);
    w.offset += d;
    w.hole_centre += d * normal;
    w.speed = w.amplitude = w.frequency = 0.0;
    return w;
  }
};

// Floor z = z0 and four side walls of the box [x0, x1] × [y0, y1], normals pointing inwards.
std::vector<Wall> box_walls(const Eigen::Vector3d& lower, const Eigen::Vector3d& upper);

// The inside of a circular cylinder turning about its own axis at a prescribed rate: a rotating drum (issue 11
// item 6). It is unbounded along its axis (scenes make that axis periodic). As a set it never moves, so its
// motion enters contacts only through the velocity of its surface, Ω a × (p − c), tangential to it.
struct Drum {
  Eigen::Vector3d centre = Eigen::Vector3d::Zero();
  Eigen::Vector3d axis = Eigen::Vector3d::UnitY();  // unit
  double radius = 1.0;                              // [m]
  double angular_velocity = 0.0;                    // [rad/s], right-handed about axis

  Eigen::Vector3d velocity_at(const Eigen::Vector3d& p) const { return angular_velocity * axis.cross(p - centre); }
};

// The lateral surface of a truncated cone as a thin fixed shell (issue 14 item 2): a hopper's wall (the radius
// grows upwards, the lower rim is the outlet), a cylindrical silo's wall (equal radii), or a cone beads flow
// around. `base` is the centre of the lower rim; `axis` (unit) points from it to the upper rim, `height` away.
// The shell has two sides: a bead touches whichever side its centre is on, and the rims are circular edges (a
// bead leaving through a hopper's outlet rolls over the rim). Its open ends are open: a floor or a lid is a plane.
struct Cone {
  Eigen::Vector3d base = Eigen::Vector3d::Zero();
  Eigen::Vector3d axis = Eigen::Vector3d::UnitZ();  // unit
  double height = 1.0;                              // [m] > 0
  double radius_bottom = 0.5, radius_top = 1.0;     // [m] >= 0 (a cone's apex: 0)

  // The surface's half-angle from the axis [rad]: 0 for a cylinder, positive when the cone widens upwards.
  double half_angle() const { return std::atan2(radius_top - radius_bottom, height); }
};

// A solid box fixed in space: centre, axes (the columns of an orthonormal matrix, world frame) and half
// extents along them. Beads stay outside.
struct Box {
  Eigen::Vector3d centre = Eigen::Vector3d::Zero();
  Eigen::Matrix3d axes = Eigen::Matrix3d::Identity();
  Eigen::Vector3d half_extent = Eigen::Vector3d::Ones();

  // Radius of the ball around the centre that contains the box.
  double bounding_radius() const { return half_extent.norm(); }
};

// A box rotated by `angle_rad` about the world axis `axis` (unit).
Box rotated_box(const Eigen::Vector3d& centre, const Eigen::Vector3d& half_extent, const Eigen::Vector3d& axis,
                double angle_rad);

}  // namespace talus::contact
