#pragma once
// The local friction-contact problem (FCLIB "local" form), plain data:
//
//   u = W r + q,  r_i ∈ K_{μ_i},  û_i = u_i + μ_i ‖u_{T,i}‖ n  ∈ K*_{μ_i},  r_i ⟂ û_i   (De Saxcé)
//
// for contacts i = 0..n-1, each a block of `dim` rows (dim = 3: normal then two tangents; dim = 2: normal then
// one tangent). K_μ = { r : ‖r_T‖ <= μ r_N }. A frictionless unilateral contact is μ = 0.
// W is symmetric positive semidefinite (possibly singular), stored as a sparse matrix whose non-zeros come in
// dim × dim blocks. Seed 004 (Coulomb friction, Moreau–Jean with friction) is the spec.
//
// Common residual measure (documented in docs/friction-solvers.md, reported by every friction solver):
//   err(r) = ‖ r − proj_K(r − ρ û(r)) ‖ / (1 + ‖q‖),  ρ = 1,
// the natural map of the De Saxcé formulation, zero iff (r, u) solves the problem.
#include "solvers/core/SparseTypes.hpp"

namespace talus::solvers {

struct FrictionContactProblem {
  int dim = 3;     // 2 or 3
  SparseMatrix W;  // m × m, m = dim · contacts
  Vector q;        // m
  Vector mu;       // contacts

  Index contacts() const { return mu.size(); }
};

// Projection of a dim-vector (normal first) onto the cone K_μ; in place.
void project_on_cone(double* r, int dim, double mu);

// The common residual above; u = W r + q is recomputed here, independently of any solver.
double friction_residual(const FrictionContactProblem& problem, const Vector& r);

// Throws std::invalid_argument naming the inconsistency (sizes, dim, negative μ, NaN).
void validate(const FrictionContactProblem& problem);

}  // namespace talus::solvers
