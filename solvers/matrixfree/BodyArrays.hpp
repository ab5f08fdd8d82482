#pragma once
// The bodies as the matrix-free friction-contact solvers see them (issue 10 item 3; ARCHITECTURE.md: solvers/
// knows only plain problem data): pointers into structure-of-arrays storage, world frame, no shape or id. The
// operator W = H M⁻¹ Hᵀ is never formed; the solvers keep u = W r + q in the bodies' velocities, so what they need
// of a body is its velocity and angular velocity (read and written), its inverse mass and its inverse inertia:
// a scalar for the leading `spheres` bodies (isotropic inertia: no rotation work), a world 3×3 tensor for the
// bodies after them. Positions, masses and radii are read only by the multilevel solver's aggregation.
//
// The view is cheap to copy and does not own anything: it is valid while the arrays it points to are neither
// resized nor moved (the engine takes a fresh view at every stage that solves; engine/bodies/RigidBodies.hpp's
// body_arrays). A const view still writes through `v` and `w`: constness is that of the view, not of the state.
#include <Eigen/Dense>

namespace talus::matrixfree {

struct BodyArrays {
  Eigen::Vector3d* v = nullptr;  // velocity [m/s], written by the sweeps
  Eigen::Vector3d* w = nullptr;  // angular velocity [rad/s], written by the sweeps
  const double* inv_mass = nullptr;     // [1/kg]; 0: fixed
  const double* inv_inertia = nullptr;  // scalar 1/I of the leading `spheres` bodies
  const Eigen::Matrix3d* inv_inertia_world = nullptr;  // entry i − spheres: world inverse inertia of body i
  const Eigen::Vector3d* x = nullptr;   // centre of mass [m] (aggregation)
  const double* mass = nullptr;         // [kg] (aggregation)
  const double* radius = nullptr;       // [m] (aggregation)
  int count = 0;    // bodies
  int spheres = 0;  // leading bodies with a scalar inverse inertia

  const Eigen::Matrix3d& inv_inertia_world_of(int i) const { return inv_inertia_world[i - spheres]; }
};

}  // namespace talus::matrixfree
