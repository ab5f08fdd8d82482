#pragma once
// Index-1 integrator of the event-driven path (seed 002 section 2.3, seed 003 eqs 11–13): the embedded
// Runge–Kutta–Fehlberg 4(5) pair on y = (q, v) with ẏ = (T(q) v, a(t, q, v)), where a is the acceleration of
// the index-1 solve M a = F + Gᵀλ, G a + c = 0. The order-4 solution is propagated, the order-5 one only
// measures the error (p = 4 in eq 12). The constraints g = 0 and G v = 0 are not enforced and drift (seed 002
// tables 3b, 4b); `project` optionally projects (q, v) back onto them after each step (seed 002 conclusion),
// in the metric of M. Without it, AdaptiveDae projects only when the drift exceeds the guard of seed 002
// table 1 — the drift of an index-1 solution accumulates, so rejecting steps could never bring it back.
#include "engine/eventdriven/DaeStep.hpp"

namespace talus::eventdriven {

class Rkf45 {
 public:
  static constexpr int order = 4;

  explicit Rkf45(ConstrainedEvaluator& ev) : ev_(ev) {}

  bool project = false;
  double projection_tolerance = 1e-12;  // on |g_A|∞ relative to 1 + |q|∞
  int projection_iterations = 5;

  // One step of size h from s0 (a, lambda consistent) to s1 (a, lambda recomputed at the end).
  StepAttempt attempt(const DaeState& s0, double h, double tol, DaeState& s1);

  // Projects (q, v) onto g_A = 0, G_A v = 0 and recomputes a, λ; false if the constraints are singular.
  bool project_onto_constraints(DaeState& s);

 private:
  bool project_state(DaeState& s);

  ConstrainedEvaluator& ev_;
  Vector kq_[6], kv_[6];
  Vector Q_, V_, lam_, dq_, dv_, g_, dx_, mu_;
  Matrix G_, Y_;
};

}  // namespace talus::eventdriven
