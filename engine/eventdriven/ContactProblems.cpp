// Impact and acceleration LCPs of the event-driven scheme (see ContactProblems.hpp).
#include "engine/eventdriven/ContactProblems.hpp"

namespace talus::eventdriven {

namespace {

solvers::LcpProblem make_problem(const ContactOperator& op, const Vector& q) {
  solvers::LcpProblem p;
  p.M = op.W.sparseView();
  p.q = q;
  p.n_equality = op.n_equality;
  return p;
}

}  // namespace

solvers::SolverStats solve_impact(const ContactOperator& op, const Vector& U_minus, const Vector& restitution,
                                  const Vector& v_minus, const solvers::LcpSolverOptions& options, Vector& P,
                                  Vector& U_plus, Vector& v_plus) {
  // w = U⁺ + e U⁻ = W P + (1 + e) U⁻ on unilateral rows; w = U⁺ = W P + U⁻ on bilateral rows.
  Vector q = U_minus;
  for (Index i = op.n_equality; i < q.size(); ++i) q[i] *= 1.0 + restitution[i];
  Vector w;
  solvers::SolverStats st = solvers::solve_lcp(make_problem(op, q), P, w, options);
  U_plus = U_minus + op.W * P;
  v_plus = v_minus + op.MinvGt * P;
  return st;
}

solvers::SolverStats solve_acceleration_lcp(const ContactOperator& op, const Vector& free_acceleration,
                                            const solvers::LcpSolverOptions& options, Vector& lambda,
                                            Vector& Gamma) {
  solvers::SolverStats st = solvers::solve_lcp(make_problem(op, free_acceleration), lambda, Gamma, options);
  Gamma = op.W * lambda + free_acceleration;
  return st;
}

}  // namespace talus::eventdriven
