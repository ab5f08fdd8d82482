#pragma once
// How large the common residual of a direct (pivoting / enumeration) LCP solution may be from round-off
// alone. Recomputing w_i = Σ_j M_ij z_j + q_i from a backward-stable z costs about ε (‖M‖∞ ‖z‖∞ + ‖q‖∞) per
// row, and lcp_residual divides by 1 + ‖q‖, so a direct solver accepts
//   lcp_residual(z) ≤ tolerance · (‖M‖∞ ‖z‖∞ + ‖q‖∞) / (1 + ‖q‖₂).
// The bound scales with the data: it neither rejects ill-conditioned problems whose z dwarfs q nor accepts
// a wrong z on a problem whose q is tiny (where the absolute residual alone would be small for any z).
#include <algorithm>
#include <cmath>

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
  const double q_inf = q.size() ? q.lpNorm<Eigen::Infinity>() : 0.0;
  return (M_inf_norm * z_inf + q_inf) / (1.0 + q.norm());
}

}  // namespace talus::solvers
