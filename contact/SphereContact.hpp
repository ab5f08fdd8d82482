#pragma once
// Narrow-phase geometry of rigid spheres: sphere–plane and sphere–sphere. For each pair it gives the normal
// gap and the rows of the contact Jacobian with respect to each body's velocity [v_world, ω_body] (the
// velocity layout of engine/DofLayout.hpp), so that U = J v is the relative velocity of the contact points
// in the frame (n, t1, t2) of contact/ContactFrame.hpp (seed 004 eq 27: U = Gᵀ(q) v).
//
// Conventions:
//  - sphere–plane: the plane is {x : n·x = offset}, n its unit normal towards the free side;
//    gap = n·x − offset − r; U is the velocity of the sphere's contact point (the plane is fixed).
//  - sphere–sphere (a, b): n = (x_b − x_a)/‖x_b − x_a‖, gap = ‖x_b − x_a‖ − r_a − r_b;
//    U is the velocity of b's contact point relative to a's, so U_N > 0 means separating.
// Rows 0, 1, 2 = n, t1, t2; callers that need fewer tangential rows (2-D friction, frictionless) keep the
// first ones.
#include <Eigen/Dense>

#include "contact/ContactFrame.hpp"

namespace talus::contact {

// One body's pose as the contact kernels need it: position, orientation (unit quaternion w, x, y, z), radius.
struct SpherePose {
  Eigen::Vector3d x;
  Eigen::Vector4d quat_wxyz;
  double radius = 0.0;
};

using JacobianBlock = Eigen::Matrix<double, 3, 6>;  // rows n, t1, t2; columns [v_world, ω_body]

struct SpherePlaneContact {
  double gap = 0.0;
  ContactFrame frame;
  JacobianBlock J;  // w.r.t. the sphere's velocity
};

struct SphereSphereContact {
  double gap = 0.0;
  ContactFrame frame;
  JacobianBlock Ja, Jb;  // w.r.t. the velocities of a and b
};

SpherePlaneContact sphere_plane(const SpherePose& s, const Eigen::Vector3d& plane_normal, double plane_offset);

// Throws std::invalid_argument when the centres coincide (the normal is undefined).
SphereSphereContact sphere_sphere(const SpherePose& a, const SpherePose& b);

// Rotation matrix body → world of a unit quaternion (w, x, y, z).
Eigen::Matrix3d rotation_matrix(const Eigen::Vector4d& quat_wxyz);

}  // namespace talus::contact
