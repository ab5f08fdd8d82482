#pragma once
// A dual active-set method (Goldfarb and Idnani, "A numerically stable dual method for solving strictly convex
// quadratic programs", Math. Programming 27, 1983) for the LCP of a symmetric positive SEMIdefinite matrix:
//   0 ≤ w = G z + q ⟂ z ≥ 0,   G = Gᵀ ⪰ 0,
// the one-step problems whose W is J M⁻¹ Jᵀ (seed 004 eq (12); the position and velocity blocks of nonsmooth
// generalized-α on rigid bodies, seed 004 eq 40). Why not Lemke there: G is singular whenever the contacts are
// redundant (more contact rows than the degrees of freedom they touch, as in any crystal packing: 218 rows on
// 192 translations in a four-layer box of 64 spheres, a null space of dimension 27). Such an LCP is still
// solvable when it is feasible (G is copositive-plus), and the displacement G z it gives is unique, but the
// multipliers z are not, and Lemke's pivoting runs through numerically singular bases: on those boxes it ended
// on a secondary ray on LCPs that this method, and projected Gauss–Seidel, solve to round-off.
//
// The method is the dual of the M-projection it solves (min ½‖δ‖²_M over J δ + q ≥ 0, with G = J M⁻¹ Jᵀ):
// it keeps an active set A of rows with w_A = 0, z_A ≥ 0 and G_AA positive DEFINITE (linearly independent rows),
// adds the most violated row p (w_p/√G_pp, the violation in the metric), and raises z_p while moving z_A so that
// w_A stays 0. Along that path w_p rises at the rate d = G_pp − G_pA G_AA⁻¹ G_Ap (a Schur complement, ≥ 0):
// - d > 0: the full step t = −w_p/d adds p to A, unless a multiplier of A reaches 0 first (a partial step, which
//   drops that row from A and continues with the same p);
// - d = 0: row p depends on A (a redundant contact); the step drops the first row of A whose multiplier reaches
//   0, so A never holds a dependent set and G_AA⁻¹ exists. "d = 0" is judged on the Rayleigh quotient
//   d/‖y‖² (parameters), so a nearly dependent row, whose d is all round-off, never enters A. If none can be dropped, y = (−G_AA⁻¹G_Ap, 1) ≥ 0
//   has G y = 0 and yᵀq < 0 (yᵀq = w_p < 0 on the path): a certificate that the LCP is infeasible (Farkas).
// Every full step raises the dual objective strictly, so no active set repeats and the method ends in finitely
// many steps (Goldfarb–Idnani, theorem 2). z is recomputed at the end from a fresh Cholesky factorisation of
// G_AA, so the result is backward stable whatever the path.
//
// Dense: the small-system path. G_AA⁻¹ is updated by the bordering formulas (O(|A|²) per add or drop) and
// refactorised every 64 updates.
#include <vector>

#include "solvers/core/LcpProblem.hpp"
#include "solvers/core/SolverStats.hpp"

namespace talus::solvers {

struct DualActiveSetParameters {
  int max_steps = 0;                  // adds + drops; 0: 10 · (n + 10)
  // Row p depends on A when d ≤ this · G_pp ‖y‖², y = (−G_AA⁻¹G_Ap, 1): y is then a near null vector of G
  // (a near self-stress), and d is within its round-off (about ε G_pp ‖y‖²) of 0.
  double dependence_tolerance = 1e-10;
  double acceptance_tolerance = 1e-10;  // Converged iff lcp_residual ≤ this · round-off scale (RoundoffScale.hpp)
  double symmetry_tolerance = 1e-12;    // ‖G − Gᵀ‖_max ≤ this · ‖G‖_max, else InvalidInput
  // How accurately q is known, in w's units (0: exactly). A violated row that depends on A with nonnegative
  // weights (a self-stressed set of rows, G y = 0, y ≥ 0) cannot be raised by any z; if w_p ≥ −this it is left
  // at w_p (the data cannot tell such a row from a satisfied one) instead of declaring the LCP infeasible. Such
  // rows count in the acceptance test below by this much each. See docs/lcp-solvers.md.
  double data_tolerance = 0.0;
};

// Buffers kept by a caller that solves once per time step (STYLE.md practice 9).
struct DualActiveSetWorkspace {
  Matrix G;        // dense copy of the problem's matrix
  Matrix H;        // G_AA⁻¹ in the order of `active`
  Vector w, s, g, path_z;
  std::vector<Index> active;  // rows of A
  std::vector<char> in_active;
  std::vector<char> tolerated;  // dependent rows left violated within data_tolerance
  std::vector<Index> certificate;  // after an Infeasible solve: the rows where y > 0 (the violated row first)
};

// Solves p (no equality rows); z and w are resized to p.size(). Status: Converged (lcp_residual ≤
// acceptance_tolerance · round-off scale + data_tolerance · √(tolerated rows) / (1 + ‖q‖)); Infeasible (the message
// names the rows of the certificate y); MaxIterations; InvalidInput (equality rows, a
// non-symmetric matrix, a negative diagonal entry, NaN); Diverged (the final residual check failed, or a
// negative Schur complement showed G is not positive semidefinite). iterations counts adds and drops.
SolverStats solve_dual_active_set(const LcpProblem& p, Vector& z, Vector& w, const DualActiveSetParameters& params,
                                  DualActiveSetWorkspace& workspace);
SolverStats solve_dual_active_set(const LcpProblem& p, Vector& z, Vector& w,
                                  const DualActiveSetParameters& params = {});

}  // namespace talus::solvers
