#pragma once
// Index-2 integrator of the event-driven path: HEM5, the 8-stage half-explicit Runge–Kutta method of order 5
// of Brasey and Hairer (seed 002 section 2.2, eqs 13–17; seed 003 eqs 14–15). Stage i computes
// Q_{i+1} = q_n + h Σ_{j<=i} a_{i+1,j} Q̇_j explicitly, then (V̇_i, Λ_i) from the saddle system
//   M(Q_i) V̇_i = F(T_i, Q_i, V_i) + G(Q_i)ᵀ Λ_i,   G(Q_{i+1}) (v_n + h Σ_{j<=i} a_{i+1,j} V̇_j) = 0,
// so the velocity constraint holds exactly at every stage and at the end of the step: G(q_{n+1}) v_{n+1} = 0
// to round-off (seed 002 table 3a/4a, ġ ≈ 1e-16). The error estimate is eq 17 built from eq 16, p = 5 in
// eq 12. One more index-1 solve at the end (eq 15) gives v̇_{n+1} and λ_{n+1} for dense output and events.
#include "engine/eventdriven/DaeStep.hpp"

namespace talus::eventdriven {

class Hem5 {
 public:
  static constexpr int order = 5;

  explicit Hem5(ConstrainedEvaluator& ev) : ev_(ev) {}

  StepAttempt attempt(const DaeState& s0, double h, double tol, DaeState& s1);
  // Forget cached Jacobians (after the active set or the state changed outside the integrator).
  void reset() { cache_valid_ = false; }

 private:
  ConstrainedEvaluator& ev_;
  Vector Q_[9], Qd_[8], V_[9], Vd_[8];
  Matrix G_[9];
  Vector tmp_, r_, Lam_, eq1_, ev1_, eq2_, ev2_;
  // G(q_n) is G(q_{n+1}) of the previous accepted step: reused as in Brasey's code (seed 002 table 2: 8 G).
  bool cache_valid_ = false;
  Vector cached_q_;
  Matrix cached_G_;
};

}  // namespace talus::eventdriven
