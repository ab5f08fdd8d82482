#pragma once
// The prescribed rigid motion of a mesh wall (issue 14 item 1): a turn at a constant rate about an axis through
// `centre`, and a translation at a constant velocity, both from the mesh as built at t = 0:
//   x(t) = R(ω t) (X − centre) + centre + velocity t.
// A mixer's blade, a drum with lifters, a conveyor's belt. The surface's velocity at a world point enters the
// contacts (normal and tangential), as a drum's does (engine/granular/GeneralDetection.cpp).
#include <Eigen/Geometry>

namespace talus::contact {

struct MeshMotion {
  Eigen::Vector3d centre = Eigen::Vector3d::Zero();
  Eigen::Vector3d axis = Eigen::Vector3d::UnitZ();  // unit
  double angular_velocity = 0.0;                    // [rad/s], right-handed about axis
  Eigen::Vector3d velocity = Eigen::Vector3d::Zero();  // [m/s]

  bool moves() const { return angular_velocity != 0.0 || velocity != Eigen::Vector3d::Zero(); }
  Eigen::Matrix3d rotation(double t) const { return Eigen::AngleAxisd(angular_velocity * t, axis).toRotationMatrix(); }
  Eigen::Vector3d centre_at(double t) const { return centre + velocity * t; }
  // A world point at time t in the mesh's own coordinates (those of t = 0), and back.
  Eigen::Vector3d to_mesh(const Eigen::Vector3d& x, double t) const {
    return rotation(t).transpose() * (x - centre_at(t)) + centre;
  }
  Eigen::Vector3d to_world(const Eigen::Vector3d& X, double t) const { return rotation(t) * (X - centre) + centre_at(t); }
  // The velocity of the surface point at world position x, time t.
  Eigen::Vector3d velocity_at(const Eigen::Vector3d& x, double t) const {
    return velocity + angular_velocity * axis.cross(x - centre_at(t));
  }
};

}  // namespace talus::contact
