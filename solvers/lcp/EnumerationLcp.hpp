#pragma once
// Exhaustive reference solver for tiny (mixed) LCPs, used as an oracle in tests (issue 2 item 4): every
// complementary choice of the active set A ⊆ {inequality rows} (z_i free for i ∈ E ∪ A, w_i = 0 there; z_i =
// 0 elsewhere) is solved densely and accepted when z_A ≥ 0 and w ≥ 0 elsewhere. 2^(n − n_equality) dense
// solves: only for n ≤ 20, never in a simulation.
#include "solvers/core/LcpProblem.hpp"
#include "solvers/core/SolverStats.hpp"

namespace talus::solvers {

inline constexpr int kEnumerationMaxSize = 20;

// Status: Converged (a complementary solution found and re-checked with lcp_residual), Infeasible (no active
// set gives a solution: a certificate of infeasibility up to round-off), InvalidInput (bad data, n > 20).
// iterations = active sets tried.
SolverStats solve_lcp_by_enumeration(const LcpProblem& p, Vector& z, Vector& w);

}  // namespace talus::solvers
