#include "solvers/core/LcpProblem.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace talus::solvers {

double lcp_residual(const LcpProblem& p, const Vector& z) {
  const Vector w = p.M * z + p.q;
  double s = 0.0;
  for (Index i = 0; i < p.size(); ++i) {
    const double r = i < p.n_equality ? w[i] : std::min(z[i], w[i]);
    s += r * r;
  }
  return std::sqrt(s) / (1.0 + p.q.norm());
}

void validate(const LcpProblem& p) {
  if (p.M.rows() != p.M.cols())
    throw std::invalid_argument("LCP: M is " + std::to_string(p.M.rows()) + "x" + std::to_string(p.M.cols()) +
                                ", not square");
  if (p.M.rows() != p.q.size())
    throw std::invalid_argument("LCP: M has " + std::to_string(p.M.rows()) + " rows but q has " +
                                std::to_string(p.q.size()) + " entries");
  if (p.n_equality < 0 || p.n_equality > p.q.size())
    throw std::invalid_argument("LCP: n_equality out of range");
  if (!p.q.allFinite()) throw std::invalid_argument("LCP: q contains NaN or Inf");
  for (Index k = 0; k < p.M.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(p.M, k); it; ++it)
      if (!std::isfinite(it.value())) throw std::invalid_argument("LCP: M contains NaN or Inf");
}

}  // namespace talus::solvers
