#pragma once
// Global block-diagonal matrices and the smooth force of the whole model, in the ordering of DofLayout.hpp
// (rows and columns = global velocities). Integrators that work on the global system (Newmark,
// generalized-α, event-driven) build their iteration matrices from these.
//
//  - mass: LTI blocks M; nonlinear blocks M(q) (dense callback, stored sparse); rigid body b:
//    diag(m, m, m, I₁, I₂, I₃). A fixed body (inv_mass = 0) has a ZERO block: the global M is then singular,
//    and an integrator must treat fixed_velocity_dofs() as prescribed velocities (Moreau–Jean uses the
//    inverse masses directly).
//  - stiffness / damping: the LTI K and C blocks (zero elsewhere).
//  - smooth_force: the total smooth force of seed 000 eq 32 / eq 1, f(t, q, v) such that M v̇ = f + reaction:
//    LTI: F_ext(t) − K q − C v; nonlinear: the user's f(t, q, v);
//    rigid: [force + m gravity ; torque − ω × I ω] (zero for fixed bodies).
#include <vector>

#include "engine/DofLayout.hpp"

namespace talus {

SparseMatrix global_mass(const Model& model, const DofLayout& layout, const Vector& q);
SparseMatrix global_stiffness(const Model& model, const DofLayout& layout);
SparseMatrix global_damping(const Model& model, const DofLayout& layout);

void smooth_force(const Model& model, const DofLayout& layout, double t, const Vector& q, const Vector& v,
                  Vector& f);
// Rigid body k's rows of smooth_force, written into f (its six velocity rows): the applied load and gravity, and
// Euler's body-frame torque − ω × I ω at (q, v).
void rigid_body_force(const Model& model, const DofLayout& layout, const Vector& q, const Vector& v, Index k,
                      Vector& f);

// Global velocity indices of fixed rigid bodies (inv_mass = 0), 6 per body.
std::vector<Index> fixed_velocity_dofs(const Model& model, const DofLayout& layout);

}  // namespace talus
