#pragma once
// The global ordering of every system's coordinates q and velocities v, shared by all integrators
// (Moreau–Jean, Newmark / generalized-α, event-driven) so that one global vector, one sparse Jacobian and one
// block-diagonal mass matrix describe the whole model.
//
// Order: all LTI systems (in Model::lti order), then all nonlinear systems, then all rigid bodies (every body
// of Model::bodies, engine/bodies/RigidBodies.hpp, in store order).
//  - LTI and nonlinear systems: n coordinates and n velocities each (q̇ = v).
//  - rigid body b: 7 coordinates [x (world), quaternion (w, x, y, z)] and 6 velocities
//    [v (world), ω (body)]; q̇ = T(q) v with ẋ = v and q̇uat = ½ quat ⊗ (0, ω) (see rigid_kinematics()).
// So coordinates and velocities have different sizes and offsets as soon as rigid bodies are present.
//
// Frames: the integrators keep the body-frame ω in the global velocity vector, so that the rigid mass matrix
// is the constant diag(m, m, m, I₁, I₂, I₃) and the gyroscopic term −ω × Iω is an explicit force; the store
// keeps the world-frame ω of every body (one convention for every path). Only gather/scatter convert:
// gather_velocities ω_body = Rᵀ ω_world, scatter_velocities ω_world = R ω_body, with R the orientation
// currently in the store. The velocities therefore belong to the stored orientation: when coordinates and
// velocities both change, scatter the coordinates first (scatter_state does both in that order), else the
// new ω_body would be rotated by the old orientation. The round trip R Rᵀ is exact only up to round-off.
#include <vector>

#include "engine/Model.hpp"

namespace talus {

struct DofLayout {
  std::vector<Index> lti_offset;        // coordinate offset = velocity offset of each LTI system
  std::vector<Index> nonlinear_offset;  // coordinate offset = velocity offset of each nonlinear system
  Index rigid_coord_offset = 0;         // body b: coordinates at rigid_coord_offset + 7 b
  Index rigid_vel_offset = 0;           // body b: velocities at rigid_vel_offset + 6 b
  Index bodies = 0;
  Index n_coords = 0;
  Index n_vels = 0;

  Index coord_offset(const SystemRef& s) const;
  Index vel_offset(const SystemRef& s) const;
  Index coord_size(const SystemRef& s, const Model& m) const;
  Index vel_size(const SystemRef& s, const Model& m) const;
};

// Offsets of the current model; call again whenever systems are added.
DofLayout make_dof_layout(const Model& model);

// Gather the model's state into global vectors (resized) and write global vectors back into the model.
void gather_coordinates(const Model& model, const DofLayout& layout, Vector& q);
void gather_velocities(const Model& model, const DofLayout& layout, Vector& v);
void scatter_coordinates(const DofLayout& layout, const Vector& q, Model& model);
void scatter_velocities(const DofLayout& layout, const Vector& v, Model& model);
// scatter_coordinates then scatter_velocities: the order that makes ω_world = R(q) ω_body use the new q.
void scatter_state(const DofLayout& layout, const Vector& q, const Vector& v, Model& model);

// The body-frame torque Rᵀ(quat) τ_world of rigid body k (Model::bodies.torque is world frame), R the
// orientation in the global coordinates q: the torque entry of the body's velocity-space force.
Eigen::Vector3d body_torque(const Model& model, const DofLayout& layout, const Vector& q, Index k);

// q1 = q0 + h T(q0) v for the linear parts; rigid bodies: x1 = x0 + h v and
// quat1 = normalise(quat0 ⊗ exp(½ h ω)) (exponential map of the body-frame rotation vector h ω).
// q1 may not alias q0.
void advance_coordinates(const DofLayout& layout, const Vector& q0, const Vector& v, double h, Vector& q1);
// The inverse of advance_coordinates with h = 1: d (one entry per velocity) such that q1 = q0 ∘ exp(d): q1 − q0
// on the linear parts; rigid bodies: x1 − x0 and the body-frame rotation vector of quat0⁻¹ ⊗ quat1 (the shorter
// rotation, |angle| ≤ π).
void coordinate_difference(const DofLayout& layout, const Vector& q1, const Vector& q0, Vector& d);

// The 4 × 3 block of T(q) mapping ω_body to the quaternion rate: q̇uat = G(quat) ω,
// G = ½ [ −q_vᵀ ; w I + [q_v]× ]. Relations written in coordinates use it to get Jacobians w.r.t. ω.
Eigen::Matrix<double, 4, 3> quaternion_rate_matrix(const Eigen::Vector4d& quat_wxyz);

}  // namespace talus
