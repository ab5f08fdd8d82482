#pragma once
// The (mixed) linear complementarity problem, as plain data so it can be dumped, replayed and benchmarked:
//
//   w = M z + q,   w_E = 0 for the first n_equality rows (z_E free),
//                  0 <= w_I  ⟂  z_I >= 0 for the remaining rows.
//
// With n_equality = 0 this is the LCP(M, q) of seed 000 eq (9) / the one-step LCP after eq (40).
// Common residual measure (every LCP solver reports it, so results compare across solvers):
//   r(z) = sqrt(‖w_E‖² + ‖min(z_I, w_I)‖²) / (1 + ‖q‖)
// (the natural-map / min-function residual, zero iff z solves the MLCP).
#include "solvers/core/SparseTypes.hpp"

namespace talus::solvers {

struct LcpProblem {
  SparseMatrix M;      // square, n × n
  Vector q;            // n
  int n_equality = 0;  // leading rows that are equalities (bilateral constraints)

  Index size() const { return q.size(); }
};

// Residual of the common measure above; w = M z + q is recomputed here, independently of any solver.
double lcp_residual(const LcpProblem& problem, const Vector& z);

// Throws std::invalid_argument naming the inconsistency (non-square M, size mismatch, NaN in data).
void validate(const LcpProblem& problem);

}  // namespace talus::solvers
