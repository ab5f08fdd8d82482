#pragma once
// Lemke's complementary pivoting algorithm for the (mixed) LCP of solvers/core/LcpProblem.hpp: the direct
// solver of the small-system path (issue 2 item 4; seed 004 eq (12), the one-step LCP of seed 000 eq (40)).
//
// Augmented system  w = M z + q + d z0,  d = (1, ..., 1): start from the basis {w}, let z0 enter, then always
// let enter the complement of the variable that just left, until z0 leaves (a solution) or the entering
// column has no positive entry (a secondary ray: the LCP may be infeasible, or M is not copositive-plus).
// Degeneracy is handled by the lexicographic minimum-ratio test on the rows of [B⁻¹q | B⁻¹], which makes
// every pivot unique and excludes cycling. Equality rows (MLCP) are eliminated first by a dense Schur
// complement (solvers/lcp/MlcpReduction.hpp). Details, tolerances and status codes: docs/lcp-solvers.md.
#include <Eigen/LU>
#include <vector>

#include "solvers/core/LcpProblem.hpp"
#include "solvers/core/SolverStats.hpp"
#include "solvers/lcp/MlcpReduction.hpp"

namespace talus::solvers {

struct LemkeParameters {
  int max_pivots = 0;              // 0: 100 · (n + 1)
  double pivot_tolerance = 1e-12;  // column entries ≤ this · max(1, ‖column‖∞) are zeros (normalised)
  double acceptance_tolerance = 1e-10;  // Converged iff lcp_residual ≤ this · round-off scale (see docs)
};

// Every buffer of a solve. A caller that solves one problem per time step keeps one workspace alive, and
// solves of unchanged sizes then allocate nothing (STYLE.md practice 9). Contents are internal.
struct LemkeWorkspace {
  Matrix M_dense;
  Matrix M_normalised;  // M / max|M_ij|, what the pivoting sees
  Vector q_normalised;  // q / max|q_i|
  MlcpReduction reduction;
  Vector z_inequality;
  Matrix inverse_basis;  // B⁻¹
  Matrix basis_matrix;   // B, assembled for re-factorisations
  Eigen::PartialPivLU<Matrix> basis_lu;
  Vector basic_values;  // B⁻¹ q
  Vector column;        // B⁻¹ a_entering
  Vector pivot_row;
  std::vector<Index> basis, row_of, candidates, kept;
};

// Solves p; z and w are resized to p.size(). On success w = M z + q recomputed from z (w_E ≈ 0 for equality
// rows). Status: Converged, RayTermination, MaxIterations, InvalidInput (bad sizes/NaN, singular equality
// block), Diverged (the final residual check failed, i.e. round-off ruined the pivoting).
SolverStats solve_lemke(const LcpProblem& p, Vector& z, Vector& w, const LemkeParameters& params,
                        LemkeWorkspace& workspace);
SolverStats solve_lemke(const LcpProblem& p, Vector& z, Vector& w, const LemkeParameters& params = {});

// The dense kernel on a pure LCP (no equality rows), for callers that already hold a dense M.
// Returns the pivots done and the status; z receives the solution, recomputed from a fresh LU of the final
// basis when Converged, but not residual-checked (solve_lemke does that).
SolverStats solve_lemke_dense(const Matrix& M, const Vector& q, Vector& z, const LemkeParameters& params,
                              LemkeWorkspace& workspace);

}  // namespace talus::solvers
