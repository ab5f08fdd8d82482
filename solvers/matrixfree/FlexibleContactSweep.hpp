#pragma once
// Contacts between a rigid body (a bead, or a point of a capsule) and a flexible body in the matrix-free sweeps (issue 11: FE bodies on the
// large path). A flexible body (a finite-element beam) has many generalized velocities and a coupled iteration
// matrix M̂ (Moreau–Jean's M + hθC + h²θ²K, seed 000 eq 37), so its part of a contact's block of W is
// J M̂⁻¹ Jᵀ with J the contact's rows on the body's unknowns. The sweeps still keep u = W r + q in the
// velocities: a contact update reads the rigid body's velocity and the few beam unknowns under the contact
// (J has four non-zero columns: the element's nodal deflections and slopes), solves its local problem and
// writes the rigid body back and the whole beam velocity back through the response M̂⁻¹ Jᵀ (n × 3, formed once per
// step by the caller from M̂⁻¹, which is constant for a fixed step; any constant response serves, e.g. each of
// generalized-α's two problems has its own, engine/granular/BeamContacts.hpp).
//
// Every contact of a flexible body writes all of its unknowns, so contacts on one body can never be swept side
// by side. They are few (the beads lying on a beam) beside thousands of bead contacts, so one thread sweeps them
// one after the other (`omp single`) after the bead and general contacts of every sweep, like the joints
// (JointSweep.hpp): the result does not depend on the thread count and nothing is allocated.
//
// u is the velocity of the rigid body's contact point relative to the flexible body's material point, in the
// frame (n from the flexible body to the rigid one, t1, t2): u = F (v_s + ω_s × p) + J v_f[dofs] + (extra, 0, 0),
// p the rigid body's lever arm (world), ω_s world. A sphere's inverse inertia is its scalar, any other body's its
// world tensor (BodyArrays). The local problem and its residual are those of the general contacts
// (solvers/fc/LocalContactSolvers.hpp, the natural-map error of FrictionContactProblem.hpp).
#include <Eigen/Dense>
#include <array>
#include <cstdint>
#include <vector>

#include "solvers/fc/LocalContactSolvers.hpp"
#include "solvers/matrixfree/BodyArrays.hpp"

namespace talus::matrixfree {

// A flexible body's generalized velocity as the sweeps see it (not owned; refreshed by the caller before a solve).
struct FlexibleBody {
  double* v = nullptr;
  int dofs = 0;
};

struct FlexibleContact {
  std::int32_t rigid = -1;   // the rigid body's index in BodyArrays (a sphere, or a body with a world inertia tensor)
  std::int32_t body = -1;    // index into FlexibleContactSweep::bodies
  Eigen::Vector3d n = Eigen::Vector3d::UnitZ(), t1 = Eigen::Vector3d::UnitX(), t2 = Eigen::Vector3d::UnitY();
  Eigen::Vector3d p = Eigen::Vector3d::Zero();  // the rigid body's lever arm (contact point − centre), world
  std::array<std::int32_t, 4> dof{-1, -1, -1, -1};  // the body's unknowns under the contact (−1: none)
  Eigen::Matrix<double, 3, 4> J = Eigen::Matrix<double, 3, 4>::Zero();  // u's rows on them
  std::int32_t response = 0;  // offset in FlexibleContactSweep::response of M̂⁻¹ Jᵀ (dofs × 3, column-major)
  double extra = 0.0;         // normal target: u_N + extra >= 0
  solvers::LocalContact<3> local;
  Eigen::Vector3d r = Eigen::Vector3d::Zero();  // impulse in the frame
};

struct FlexibleContactSweep {
  std::vector<FlexibleContact> contacts;
  std::vector<FlexibleBody> bodies;
  std::vector<double> response;
  double squared_error = 0.0;  // the contacts' part of the residual, set by flexible_residual
  bool empty() const { return contacts.empty(); }
};

// Sets c's frame and lever arm, and its block W = F (m⁻¹ 1 − [p]× I⁻¹ [p]×) Fᵀ + J M̂⁻¹ Jᵀ and μ; c.rigid,
// c.body, c.dof, c.J and c.response must be set, and the response columns filled (M̂⁻¹ Jᵀ e_k over the body's
// `dofs` unknowns, k = n, t1, t2) in `response`.
void prepare_flexible_contact(FlexibleContact& c, const Eigen::Vector3d& n, const Eigen::Vector3d& t1,
                              const Eigen::Vector3d& t2, const Eigen::Vector3d& p, double mu, const BodyArrays& bodies,
                              const std::vector<double>& response, int dofs);

// u of a contact at the current velocities (its frame, extra included).
Eigen::Vector3d flexible_contact_velocity(const FlexibleContact& c, const FlexibleContactSweep& set,
                                          const BodyArrays& bodies);

// Adds the contacts' impulses to the velocities (the warm start); inside (one thread does it) or outside a
// parallel region.
void apply_flexible_impulses(FlexibleContactSweep& set, const BodyArrays& bodies);

// One Gauss–Seidel pass over the contacts in their order (one thread, inside or outside a parallel region).
void sweep_flexible_contacts(FlexibleContactSweep& set, const BodyArrays& bodies);

// set.squared_error = Σ of the contacts' natural-map errors (one thread, inside or outside a parallel region).
void flexible_residual(FlexibleContactSweep& set, const BodyArrays& bodies);

// Σ ‖u‖² of the contacts at the current velocities (‖q‖² when called on the free velocities with r = 0). Sequential.
double flexible_squared_velocity(const FlexibleContactSweep& set, const BodyArrays& bodies);

}  // namespace talus::matrixfree
