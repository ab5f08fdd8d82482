#pragma once
// How large the common residual of a direct (pivoting / enumeration) LCP solution may be from round-off alone.
// lcp_residual divides by 1 + ‖q‖, but recomputing w = M z + q from an exact-in-exact-arithmetic z costs
// about ε ‖M‖∞ ‖z‖∞ per row, which can dwarf ‖q‖ when M is ill-conditioned. A direct solver therefore accepts
//   lcp_residual(z) ≤ tolerance · max(1, ‖M‖∞ ‖z‖∞ / (1 + ‖q‖₂)).
#include <algorithm>

#include "solvers/core/SparseTypes.hpp"

namespace talus::solvers {

inline double max_row_abs_sum(const SparseMatrix& M) {
  double norm = 0.0;
  for (Index i = 0; i < M.outerSize(); ++i) {
    double s = 0.0;
    for (SparseMatrix::InnerIterator it(M, i); it; ++it) s += std::abs(it.value());
    norm = std::max(norm, s);
  }
  return norm;
}

inline double roundoff_scale(double M_inf_norm, const Vector& z, const Vector& q) {
  const double z_inf = z.size() ? z.lpNorm<Eigen::Infinity>() : 0.0;
  return std::max(1.0, M_inf_norm * z_inf / (1.0 + q.norm()));
}

}  // namespace talus::solvers
