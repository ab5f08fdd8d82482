#pragma once
// Index-3 integrator of the event-driven path: the generalized-α scheme of Arnold and Brüls (seed 002
// section 2.1, eqs 6–12) on M(q) q̈ = F(t, q, q̇) + G(q)ᵀ λ, g(q) = 0 — the constraints are kept at position
// level, so g drifts only by the Newton tolerance while G v drifts (seed 002 tables 3c, 4c).
//  - eq 8: α_m = (2ρ∞ − 1)/(ρ∞ + 1), α_f = ρ∞/(ρ∞ + 1), γ = ½ + α_f − α_m, β = ¼ (γ + ½)².
//  - eqs 6–7: q_{n+1}, q̇_{n+1} and the auxiliary acceleration a_{n+1} are affine in q̈_{n+1}.
//  - eqs 9–10: Newton on (q̈_{n+1}, λ_{n+1}) written in the increment Δq, iteration matrix
//    [β'M + γ'C_t + K_t, −Gᵀ; G, 0] with β' = (1 − α_m)/(h²β(1 − α_f)), γ' = γ/(hβ); the constraint rows
//    and the multiplier increment are scaled by β' (Δλ = β' Δμ) so the matrix stays well conditioned as
//    h → 0. K_t by finite differences of R_q, C_t from force_jacobian_v or finite differences.
//  - eq 11: the error is the distance to a first-order Newmark solution (γ_N = 1, β_N = ½) built from the same
//    accelerations; p = 2 in eq 12.
//  - variable steps: the scheme restarts from consistent accelerations (a_n = q̈_n from the index-1 solve)
//    whenever h differs from the previous step's; carrying q̈_n and a_n across a change of h turns the
//    position defect δ of the index-3 solution into acceleration errors δ/h² that drive the controller to
//    the minimum step (measured: thousands of forced steps on a pendulum at tol 1e-6 without the restart).
// Needs q̇ = v (no quaternions): the scheme is written in the coordinates' vector space.
#include "engine/eventdriven/DaeStep.hpp"

namespace talus::eventdriven {

struct GeneralizedAlphaParameters {
  double rho_infinity = 0.9;        // spectral radius at infinity, ρ∞ ∈ [0, 1]
  double newton_tolerance = 1e-10;  // on the weighted RMS of Δq (seed 002 table 1)
  int newton_max_iterations = 20;
};

class GeneralizedAlphaIndex3 {
 public:
  static constexpr int order = 2;

  GeneralizedAlphaIndex3(ConstrainedEvaluator& ev, const GeneralizedAlphaParameters& p);

  StepAttempt attempt(const DaeState& s0, double h, double tol, DaeState& s1);

  double alpha_m() const { return alpha_m_; }
  double alpha_f() const { return alpha_f_; }
  double beta() const { return beta_; }
  double gamma() const { return gamma_; }

 private:
  void residual(double t, const Vector& q, const Vector& v, const Vector& qdd, const Vector& lambda, Vector& R);
  void tangent(double t, const Vector& q, const Vector& v, const Vector& qdd, const Vector& lambda, double bp,
               double gp, Matrix& S);

  ConstrainedEvaluator& ev_;
  GeneralizedAlphaParameters p_;
  double alpha_m_, alpha_f_, beta_, gamma_;
  Vector aux_, qdd0_, qdd_, lam_, R_, Rp_, F_, g_, x_, dq_, dv_, qN_, vN_, qp_;
  Matrix M_, G_, Gp_, S_, K_, C_;
  Eigen::PartialPivLU<Matrix> lu_;
};

}  // namespace talus::eventdriven
