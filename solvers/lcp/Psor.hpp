#pragma once
// Projected successive over-relaxation (projected Gauss–Seidel for ω = 1) for the (mixed) LCP of
// solvers/core/LcpProblem.hpp (issue 2 item 4; "projected over-relaxation" of seed 004 slide 8). One sweep:
//   for i = 0..n-1:  w_i = (M z)_i + q_i,   z_i ← z_i − ω w_i / M_ii,   then z_i ← max(0, z_i) unless row i
//   is an equality row.
// Works on the row-major sparse M as stored (Gauss–Seidel walks rows). Converges for symmetric positive
// definite M with 0 < ω < 2 and for (block) diagonally dominant M; the common residual lcp_residual decides.
#include "solvers/core/LcpProblem.hpp"
#include "solvers/core/SolverParameters.hpp"
#include "solvers/core/SolverStats.hpp"

namespace talus::solvers {

struct PsorParameters : SolverParameters {
  double relaxation = 1.0;  // ω ∈ (0, 2)
  int residual_check_interval =
      1;  // sweeps between two evaluations of the common residual (each costs a M z)
};

// Buffers reused across solves (STYLE.md practice 9): with a kept workspace and unchanged sizes a solve
// allocates nothing (except residual_history when asked for).
struct PsorWorkspace {
  Vector inverse_diagonal;
};

// z is the warm start on input (an empty z starts from 0); z and w are resized to p.size().
// Status: Converged (lcp_residual ≤ tolerance), MaxIterations (also when time_cap_seconds is exceeded),
// Diverged (NaN/Inf), InvalidInput (bad sizes, zero or negative diagonal, ω outside (0, 2)).
SolverStats solve_psor(const LcpProblem& p, Vector& z, Vector& w, const PsorParameters& params,
                       PsorWorkspace& workspace);
SolverStats solve_psor(const LcpProblem& p, Vector& z, Vector& w, const PsorParameters& params);

}  // namespace talus::solvers
