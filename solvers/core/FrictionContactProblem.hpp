#pragma once
#include <cmath>
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
#include <vector>

#include "solvers/core/SparseTypes.hpp"

namespace talus::solvers {

struct FrictionContactProblem {
  int dim = 3;     // 2 or 3
  SparseMatrix W;  // m × m, m = dim · contacts
  Vector q;        // m
  Vector mu;       // contacts

  Index contacts() const { return mu.size(); }
};

// Projection of a dim-vector (normal first) onto the cone K_μ; in place. Inline: every local solver and
// every residual evaluation (solvers/fc, engine/granular) calls it once per contact.
inline void project_on_cone(double* r, int dim, double mu) {
  const double rn = r[0];
  double rt = 0.0;
  for (int k = 1; k < dim; ++k) rt += r[k] * r[k];
  rt = std::sqrt(rt);
  if (rn >= 0.0 && rt <= mu * rn) return;  // inside the cone (rn >= 0: with mu = 0, 0 <= 0 * rn for any rn)
  if (mu * rt <= -rn || rt == 0.0) {       // inside the polar cone (or on the axis, below the apex)
    for (int k = 0; k < dim; ++k) r[k] = 0.0;
    return;
  }
  const double a = (mu * rt + rn) / (mu * mu + 1.0);
  r[0] = a;
  const double s = mu * a / rt;
  for (int k = 1; k < dim; ++k) r[k] *= s;
}

// One contact's share of the residual below: ‖r − proj_K(r − (u + μ‖u_T‖ n))‖², for the contact's reaction r
// and local velocity u (dim entries each, normal first).
inline double contact_residual_squared(const double* r, const double* u, int dim, double mu) {
  double ut = 0.0;
  for (int k = 1; k < dim; ++k) ut += u[k] * u[k];
  ut = std::sqrt(ut);
  double t[3];
  t[0] = r[0] - (u[0] + mu * ut);
  for (int k = 1; k < dim; ++k) t[k] = r[k] - u[k];
  project_on_cone(t, dim, mu);
  double s = 0.0;
  for (int k = 0; k < dim; ++k) {
    const double e = r[k] - t[k];
    s += e * e;
  }
  return s;
}

// The common residual above; u = W r + q is recomputed here, independently of any solver.
double friction_residual(const FrictionContactProblem& problem, const Vector& r);

// Throws std::invalid_argument naming the inconsistency (sizes, dim, negative μ, NaN).
void validate(const FrictionContactProblem& problem);

// The friction-contact problem with bilateral rows (issue 11: joints and frictional contacts in one step):
//
//   u = W r + q,   u_e = 0 with r_e free for every equality block e,   contacts as above,
//
// the one-step problem of Moreau–Jean with friction (seed 004 eq 31) when some interactions are equalities
// (joints: U_{k+1} = 0, or J v + ∂g/∂t = 0 with the rheonomous term already in q). Rows are ordered equality
// blocks first (block e is rows [equality_start[e], equality_start[e + 1]), one interaction each: a joint's
// 1–5 rows, or a user equality's),
// then the contacts, `dim` rows each, from row equality_rows() on. This is Siconos' "generic mechanical" layout
// restricted to the two kinds the engine has. W is symmetric PSD, sparse, as above.
//
// Residual: the natural map of an equality block is r_e − (r_e − u_e) = u_e (the projection onto ℝⁿ is the
// identity), so the common measure extends to
//   err(r) = sqrt(Σ_e ‖u_e‖² + Σ_i ‖r_i − proj_K(r_i − û_i)‖²) / (1 + ‖q‖),
// zero iff (r, u) solves the problem; a problem with no equality block has the residual above.
struct MixedFrictionContactProblem {
  int dim = 3;                        // of the contacts: 2 or 3
  SparseMatrix W;                     // m × m, m = equality_rows() + dim · contacts
  Vector q;                           // m
  std::vector<Index> equality_start;  // empty (no equality), or 0 = s_0 < s_1 < … < s_E: block boundaries
  Vector mu;                          // contacts

  Index equality_blocks() const { return equality_start.empty() ? 0 : static_cast<Index>(equality_start.size()) - 1; }
  Index equality_rows() const { return equality_start.empty() ? 0 : equality_start.back(); }
  Index contacts() const { return mu.size(); }
  Index rows() const { return equality_rows() + dim * contacts(); }
};

// The extended residual above, u = W r + q recomputed here.
double friction_residual(const MixedFrictionContactProblem& problem, const Vector& r);

// Throws std::invalid_argument naming the inconsistency (block boundaries, empty blocks, sizes, dim, μ, NaN).
void validate(const MixedFrictionContactProblem& problem);

}  // namespace talus::solvers
