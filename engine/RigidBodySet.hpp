#pragma once
// 3D rigid bodies as a structure of arrays: each field is one contiguous array over all bodies, so the hot
// kernels (velocity updates, contact Jacobians) stream only the fields they touch (STYLE.md practice 1).
// Pose: position x ∈ R³ (world) and unit quaternion (w, x, y, z) body → world.
// Velocity: linear velocity in the world frame, angular velocity ω in the BODY frame, so the mass matrix is
// diag(m, m, m, I₁, I₂, I₃) with constant principal moments; the gyroscopic term −ω × Iω is part of the force.
// A body with inv_mass = 0 is fixed (kinematic obstacle).
#include <vector>

#include "solvers/core/SparseTypes.hpp"

namespace talus {

struct RigidBodySet {
  // hot state
  Eigen::Matrix3Xd position;
  Eigen::Matrix4Xd orientation;       // rows: w, x, y, z
  Eigen::Matrix3Xd velocity;          // world frame
  Eigen::Matrix3Xd angular_velocity;  // body frame
  // constant properties
  Eigen::VectorXd mass;
  Eigen::VectorXd inv_mass;           // 0 for fixed bodies
  Eigen::Matrix3Xd inertia;           // principal moments of inertia, body frame
  Eigen::VectorXd radius;             // bounding/contact radius (spheres); shapes live in contact/
  // external loads, applied every step
  Eigen::Matrix3Xd force;             // world frame (gravity is added by the model, see Model::gravity)
  Eigen::Matrix3Xd torque;            // body frame

  Index size() const { return mass.size(); }
  // Appends a body and returns its index. Orientation is normalised.
  Index add(const Eigen::Vector3d& x, const Eigen::Vector4d& quat_wxyz, double mass, const Eigen::Vector3d& inertia,
            double radius);
  // A solid sphere of density rho: mass and inertia from the radius.
  Index add_sphere(const Eigen::Vector3d& x, double radius, double density);
};

}  // namespace talus
