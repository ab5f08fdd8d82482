#pragma once
// The smooth constrained mechanical system that every DAE integrator of the event-driven path integrates
// between two events (seed 002 eqs 1 and 3, seed 003 eq 4):
//
//   q̇ = T(q) v,    M(q) v̇ = F(t, q, v) + G(q)ᵀ λ,    g_A(q) = 0  for the active rows A,
//
// with G = ∇gᵀ (so ġ = G v) and the curvature term c(q, v) = (d/dt G) v of the acceleration-level constraint
// G v̇ + c = 0 (seed 002 eq 5). It is plain data (callbacks over global vectors) so that the mechanisms of the
// benchmarks and a whole Model (engine/eventdriven/ModelSystem.hpp) are integrated by the same code. All
// constraint rows the scheme may ever activate are described at once; an integrator works on a subset of
// them, the active rows (bilateral joints and the closed contacts of I₂).
#include <functional>

#include "solvers/core/SparseTypes.hpp"

namespace talus::eventdriven {

struct MechanicalSystem {
  Index nq = 0;   // coordinates
  Index nv = 0;   // velocities (nq > nv with quaternions)
  Index rows = 0; // constraint rows, all of them (bilateral and unilateral)
  bool constant_mass = false;  // M factorised once

  std::function<void(const Vector& q, Matrix& M)> mass;                                // nv × nv, SPD
  std::function<void(double t, const Vector& q, const Vector& v, Vector& F)> force;    // nv
  std::function<void(const Vector& q, Vector& g)> gap;                                 // rows
  std::function<void(const Vector& q, Matrix& G)> jacobian;                            // rows × nv

  // Optional. Empty means: c by a Richardson-extrapolated central difference of G along q̇ (exact to
  // O(ε⁴) + round-off, see ConstrainedEvaluator.cpp).
  std::function<void(const Vector& q, const Vector& v, Vector& c)> curvature;          // rows
  // Optional. Empty means q̇ = v (nq = nv).
  std::function<void(const Vector& q, const Vector& v, Vector& qdot)> velocity_map;   // nq
  // Optional: brings q back onto its own manifold after a step (unit quaternions). Not a constraint projection.
  std::function<void(Vector& q)> normalize;
  // Optional Jacobians of F for the Newton iterations of generalized-α; empty means finite differences.
  std::function<void(double t, const Vector& q, const Vector& v, Matrix& dFdq)> force_jacobian_q;
  std::function<void(double t, const Vector& q, const Vector& v, Matrix& dFdv)> force_jacobian_v;

  bool identity_kinematics() const { return !velocity_map; }
};

// Throws std::invalid_argument naming what is missing or inconsistent.
void validate(const MechanicalSystem& system);

// Work counters in the categories of seed 002 table 2: evaluations of F, G (= g and its Jacobian together),
// the curvature term G_q (v, v), and linear systems solved (one per saddle-point system, however it is solved:
// the table counts HEM5 at 9 per step). work() sums them as the table's last column does.
struct DaeWork {
  long force_evaluations = 0;
  long jacobian_evaluations = 0;
  long curvature_evaluations = 0;
  long mass_evaluations = 0;
  long linear_systems = 0;
  long force_jacobian_evaluations = 0;  // K_t and C_t of generalized-α (eq 10)
  long newton_iterations = 0;
  long accepted_steps = 0;
  long rejected_steps = 0;
  long forced_steps = 0;  // accepted at the minimum step although the error test failed (reported, seed 002 table 1)
  long projections = 0;   // RKF45: projections onto the constraints when the drift guard fired

  long work() const {
    return force_evaluations + jacobian_evaluations + curvature_evaluations + linear_systems +
           force_jacobian_evaluations;
  }
  DaeWork& operator+=(const DaeWork& o);
};

}  // namespace talus::eventdriven
