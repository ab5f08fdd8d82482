#pragma once
// The common LCP residual of solvers/core/LcpProblem.hpp, evaluated into a caller-owned w so that solvers
// can check it inside their loops without allocating. Same arithmetic as lcp_residual, so the values agree
// to the last bit; lcp_residual stays the independent definition the tests compare against.
#include <algorithm>
#include <cmath>

#include "solvers/core/LcpProblem.hpp"

namespace talus::solvers {

// w ← M z + q; returns sqrt(‖w_E‖² + ‖min(z_I, w_I)‖²) / (1 + ‖q‖).
inline double lcp_residual_into(const LcpProblem& p, const Vector& z, Vector& w) {
  w.noalias() = p.M * z;
  w += p.q;
  double s = 0.0;
  for (Index i = 0; i < p.size(); ++i) {
    const double r = i < p.n_equality ? w[i] : std::min(z[i], w[i]);
    s += r * r;
  }
  return std::sqrt(s) / (1.0 + p.q.norm());
}

}  // namespace talus::solvers
