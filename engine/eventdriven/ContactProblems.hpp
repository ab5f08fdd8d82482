#pragma once
// The two complementarity problems solved at an event of the event-driven scheme (seed 000 slides 21–24),
// reduced on the local unknowns with W = G M⁻¹ Gᵀ over the rows involved — bilateral rows first, as the
// equality rows of a mixed LCP (solvers/core/LcpProblem.hpp), then unilateral rows:
//  - impact (eq 27): U⁺ = U⁻ + W P, 0 <= U⁺ + e U⁻ ⟂ P >= 0 (unilateral), U⁺ = 0 (bilateral), and
//    v⁺ = v⁻ + M⁻¹Gᵀ P;
//  - accelerations (eq 28): Γ = W λ + (G M⁻¹ F + c), 0 <= Γ ⟂ λ >= 0 (unilateral), Γ = 0 (bilateral).
// Both are solved by Lemke through solvers/lcp/LcpSolver.hpp; a failed solve is returned, not hidden.
#include "solvers/core/SolverStats.hpp"
#include "solvers/lcp/LcpSolver.hpp"

namespace talus::eventdriven {

struct ContactOperator {
  int n_equality = 0;  // leading bilateral rows
  Matrix G;            // rows × nv
  Matrix MinvGt;       // M⁻¹ Gᵀ, nv × rows
  Matrix W;            // G M⁻¹ Gᵀ
};

// restitution: per row (ignored on equality rows). On return P, U_plus, v_plus are filled.
solvers::SolverStats solve_impact(const ContactOperator& op, const Vector& U_minus, const Vector& restitution,
                                  const Vector& v_minus, const solvers::LcpSolverOptions& options, Vector& P,
                                  Vector& U_plus, Vector& v_plus);

// free_acceleration: G M⁻¹ F + c. On return lambda and Gamma (= W λ + free_acceleration) are filled.
solvers::SolverStats solve_acceleration_lcp(const ContactOperator& op, const Vector& free_acceleration,
                                            const solvers::LcpSolverOptions& options, Vector& lambda,
                                            Vector& Gamma);

}  // namespace talus::eventdriven
