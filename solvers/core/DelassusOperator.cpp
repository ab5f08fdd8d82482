// The assembled Delassus operator and the operator form of the common residual (see the header).
#include "solvers/core/DelassusOperator.hpp"

#include <cmath>

namespace talus::solvers {

AssembledDelassus::AssembledDelassus(const FrictionContactProblem& problem) : problem_(problem) {
  validate(problem);
  dim_ = problem.dim;
  q_ = problem.q;
  mu_ = problem.mu;
}

void AssembledDelassus::multiply(const Vector& x, Vector& y) const { y.noalias() = problem_.W * x; }

void AssembledDelassus::diagonal_block(Index i, double* out) const {
  const int d = dim_;
  for (int a = 0; a < d; ++a)
    for (int b = 0; b < d; ++b) out[a * d + b] = problem_.W.coeff(i * d + a, i * d + b);
}

double friction_residual(const DelassusOperator& op, const Vector& r) {
  Vector u;
  op.multiply(r, u);
  u += op.q();
  const int d = op.dim();
  double s = 0.0;
  for (Index c = 0; c < op.contacts(); ++c)
    s += contact_residual_squared(r.data() + c * d, u.data() + c * d, d, op.mu()[c]);
  return std::sqrt(s) / (1.0 + op.q().norm());
}

}  // namespace talus::solvers
