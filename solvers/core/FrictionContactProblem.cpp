#include "solvers/core/FrictionContactProblem.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace talus::solvers {

double friction_residual(const FrictionContactProblem& p, const Vector& r) {
  const int d = p.dim;
  const Vector u = p.W * r + p.q;
  double s = 0.0;
  for (Index i = 0; i < p.contacts(); ++i) s += contact_residual_squared(r.data() + d * i, u.data() + d * i, d, p.mu[i]);
  return std::sqrt(s) / (1.0 + p.q.norm());
}

void validate(const FrictionContactProblem& p) {
  if (p.dim != 2 && p.dim != 3) throw std::invalid_argument("friction problem: dim must be 2 or 3");
  const Index m = p.dim * p.mu.size();
  if (p.q.size() != m)
    throw std::invalid_argument("friction problem: q has " + std::to_string(p.q.size()) + " entries, expected " +
                                std::to_string(m) + " (dim x contacts)");
  if (p.W.rows() != m || p.W.cols() != m)
    throw std::invalid_argument("friction problem: W is " + std::to_string(p.W.rows()) + "x" +
                                std::to_string(p.W.cols()) + ", expected " + std::to_string(m) + "x" +
                                std::to_string(m));
  for (Index i = 0; i < p.mu.size(); ++i)
    if (!(p.mu[i] >= 0.0) || !std::isfinite(p.mu[i]))
      throw std::invalid_argument("friction problem: mu[" + std::to_string(i) + "] is negative or not finite");
  if (!p.q.allFinite()) throw std::invalid_argument("friction problem: q contains NaN or Inf");
}

double friction_residual(const MixedFrictionContactProblem& p, const Vector& r) {
  const int d = p.dim;
  const Index me = p.equality_rows();
  const Vector u = p.W * r + p.q;
  double s = u.head(me).squaredNorm();
  for (Index i = 0; i < p.contacts(); ++i)
    s += contact_residual_squared(r.data() + me + d * i, u.data() + me + d * i, d, p.mu[i]);
  return std::sqrt(s) / (1.0 + p.q.norm());
}

void validate(const MixedFrictionContactProblem& p) {
  if (p.dim != 2 && p.dim != 3) throw std::invalid_argument("mixed friction problem: dim must be 2 or 3");
  if (!p.equality_start.empty()) {
    if (p.equality_start.front() != 0)
      throw std::invalid_argument("mixed friction problem: equality_start must begin at 0");
    for (size_t e = 0; e + 1 < p.equality_start.size(); ++e) {
      const Index n = p.equality_start[e + 1] - p.equality_start[e];
      if (n < 1)
        throw std::invalid_argument("mixed friction problem: equality block " + std::to_string(e) + " has " +
                                    std::to_string(n) + " rows, expected at least 1");
    }
  }
  const Index m = p.rows();
  if (p.q.size() != m)
    throw std::invalid_argument("mixed friction problem: q has " + std::to_string(p.q.size()) + " entries, expected " +
                                std::to_string(m) + " (equality rows + dim x contacts)");
  if (p.W.rows() != m || p.W.cols() != m)
    throw std::invalid_argument("mixed friction problem: W is " + std::to_string(p.W.rows()) + "x" +
                                std::to_string(p.W.cols()) + ", expected " + std::to_string(m) + "x" +
                                std::to_string(m));
  for (Index i = 0; i < p.mu.size(); ++i)
    if (!(p.mu[i] >= 0.0) || !std::isfinite(p.mu[i]))
      throw std::invalid_argument("mixed friction problem: mu[" + std::to_string(i) + "] is negative or not finite");
  if (!p.q.allFinite()) throw std::invalid_argument("mixed friction problem: q contains NaN or Inf");
  if (!p.W.coeffs().allFinite()) throw std::invalid_argument("mixed friction problem: W contains NaN or Inf");
}

}  // namespace talus::solvers
