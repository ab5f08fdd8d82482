#include "solvers/core/FrictionContactProblem.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace talus::solvers {

void project_on_cone(double* r, int dim, double mu) {
  const double rn = r[0];
  double rt = 0.0;
  for (int k = 1; k < dim; ++k) rt += r[k] * r[k];
  rt = std::sqrt(rt);
  if (rn >= 0.0 && rt <= mu * rn) return;     // inside the cone (rn >= 0: with mu = 0, 0 <= 0 * rn for any rn)
  if (mu * rt <= -rn || rt == 0.0) {           // inside the polar cone (or on the axis, below the apex)
    for (int k = 0; k < dim; ++k) r[k] = 0.0;
    return;
  }
  const double a = (mu * rt + rn) / (mu * mu + 1.0);
  r[0] = a;
  const double s = mu * a / rt;
  for (int k = 1; k < dim; ++k) r[k] *= s;
}

double friction_residual(const FrictionContactProblem& p, const Vector& r) {
  const int d = p.dim;
  const Vector u = p.W * r + p.q;
  double s = 0.0;
  double tmp[3];
  for (Index i = 0; i < p.contacts(); ++i) {
    const double* ri = r.data() + d * i;
    const double* ui = u.data() + d * i;
    double ut = 0.0;
    for (int k = 1; k < d; ++k) ut += ui[k] * ui[k];
    ut = std::sqrt(ut);
    tmp[0] = ri[0] - (ui[0] + p.mu[i] * ut);
    for (int k = 1; k < d; ++k) tmp[k] = ri[k] - ui[k];
    project_on_cone(tmp, d, p.mu[i]);
    for (int k = 0; k < d; ++k) {
      const double e = ri[k] - tmp[k];
      s += e * e;
    }
  }
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

}  // namespace talus::solvers
