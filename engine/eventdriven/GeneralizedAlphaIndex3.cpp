// Generalized-α of Arnold and Brüls on the index-3 formulation (see GeneralizedAlphaIndex3.hpp).
#include "engine/eventdriven/GeneralizedAlphaIndex3.hpp"

#include <cmath>
#include <algorithm>
#include <limits>
#include <stdexcept>

namespace talus::eventdriven {

GeneralizedAlphaIndex3::GeneralizedAlphaIndex3(ConstrainedEvaluator& ev, const GeneralizedAlphaParameters& p)
    : ev_(ev), p_(p) {
  if (!ev.system().identity_kinematics())
    throw std::invalid_argument("generalized-α index 3 needs q̇ = v (no velocity_map / quaternions)");
  if (!(p.rho_infinity >= 0.0 && p.rho_infinity <= 1.0))
    throw std::invalid_argument("generalized-α: rho_infinity must lie in [0, 1]");
  const double r = p.rho_infinity;
  alpha_m_ = (2.0 * r - 1.0) / (r + 1.0);
  alpha_f_ = r / (r + 1.0);
  gamma_ = 0.5 + alpha_f_ - alpha_m_;
  beta_ = 0.25 * (gamma_ + 0.5) * (gamma_ + 0.5);
}

// R_q = M(q) q̈ − F(t, q, v) − G(q)ᵀ λ (seed 002 eq 9), from the callbacks directly: the caller counts work.
void GeneralizedAlphaIndex3::residual(double t, const Vector& q, const Vector& v, const Vector& qdd,
                                      const Vector& lambda, Vector& R) {
  const MechanicalSystem& s = ev_.system();
  M_.setZero(s.nv, s.nv);
  s.mass(q, M_);
  F_.setZero(s.nv);
  s.force(t, q, v, F_);
  R = M_ * qdd - F_;
  if (ev_.active_rows()) {
    ev_.jacobian(q, G_);
    --ev_.work().jacobian_evaluations;
    R.noalias() -= G_.transpose() * lambda;
  }
}

void GeneralizedAlphaIndex3::tangent(double t, const Vector& q, const Vector& v, const Vector& qdd,
                                     const Vector& lambda, double bp, double gp, Matrix& S) {
  const MechanicalSystem& s = ev_.system();
  const Index n = s.nv, m = ev_.active_rows();
  DaeWork& w = ev_.work();
  w.force_jacobian_evaluations += 2;  // K_t and C_t (seed 002 table 2)
  // K_t = ∂R_q/∂q by forward differences of the whole residual (mass, force and constraint-force terms
  // together, so no term is forgotten); C_t = −∂F/∂v from the system's callback when it has one.
  residual(t, q, v, qdd, lambda, R_);
  K_.resize(n, n);
  qp_ = q;
  for (Index j = 0; j < n; ++j) {
    const double d = std::sqrt(std::numeric_limits<double>::epsilon()) * (1.0 + std::abs(q[j]));
    qp_[j] = q[j] + d;
    residual(t, qp_, v, qdd, lambda, Rp_);
    K_.col(j) = (Rp_ - R_) / d;
    qp_[j] = q[j];
  }
  C_.resize(n, n);
  if (s.force_jacobian_v) {
    C_.setZero();
    s.force_jacobian_v(t, q, v, C_);
    C_ = -C_;
  } else {
    Vector vp = v, F0(n), F1(n);
    F0.setZero();
    s.force(t, q, v, F0);
    for (Index j = 0; j < n; ++j) {
      const double d = std::sqrt(std::numeric_limits<double>::epsilon()) * (1.0 + std::abs(v[j]));
      vp[j] = v[j] + d;
      F1.setZero();
      s.force(t, q, vp, F1);
      C_.col(j) = -(F1 - F0) / d;
      vp[j] = v[j];
    }
  }
  M_.setZero(n, n);
  s.mass(q, M_);
  S.setZero(n + m, n + m);
  S.topLeftCorner(n, n) = bp * M_ + gp * C_ + K_;
  if (m) {
    ev_.jacobian(q, G_);
    --w.jacobian_evaluations;
    S.topRightCorner(n, m) = -bp * G_.transpose();
    S.bottomLeftCorner(m, n) = bp * G_;
  }
}

StepAttempt GeneralizedAlphaIndex3::attempt(const DaeState& s0, double h, double tol, DaeState& s1) {
  StepAttempt out;
  DaeWork& w = ev_.work();
  const Index n = s0.v.size(), m = ev_.active_rows();
  const double am = alpha_m_, af = alpha_f_, be = beta_, ga = gamma_;
  const double bp = (1.0 - am) / (h * h * be * (1.0 - af));
  const double gp = ga / (h * be);
  // Restart from consistent accelerations (index-1 solve, a_0 = q̈_0) at the first step and whenever the step
  // shrinks: the index-3 scheme turns a position defect δ into an acceleration error δ/h², so carrying q̈ and
  // a across a step-size reduction feeds the error estimate with errors that grow as h falls, and the
  // controller would then shrink h down to the minimum step.
  const bool restart = s0.alpha_acceleration.size() != n || std::abs(h - s0.alpha_step) > 1e-12 * h;
  if (restart) {
    out.status = ev_.accelerations(s0.t, s0.q, s0.v, qdd0_, lam_);
    if (out.status != SaddleStatus::Ok) return out;
    aux_ = qdd0_;
  } else {
    qdd0_ = s0.a;
    aux_ = s0.alpha_acceleration;
    lam_ = s0.lambda.size() == m ? s0.lambda : Vector::Zero(m);
  }
  const Vector& a0 = qdd0_;

  // Predictor: q̈_{n+1} = q̈_n, λ_{n+1} = λ_n; then q, v and a from eqs 6–7.
  qdd_ = a0;
  Vector a1 = ((1.0 - af) * qdd_ + af * a0 - am * aux_) / (1.0 - am);
  s1.t = s0.t + h;
  s1.q = s0.q + h * s0.v + (h * h * (0.5 - be)) * aux_ + (h * h * be) * a1;
  s1.v = s0.v + (h * (1.0 - ga)) * aux_ + (h * ga) * a1;

  out.newton_converged = false;
  for (int k = 0; k < p_.newton_max_iterations; ++k) {
    ++w.newton_iterations;
    ++w.force_evaluations;
    ++w.jacobian_evaluations;
    ++w.linear_systems;
    residual(s1.t, s1.q, s1.v, qdd_, lam_, R_);
    x_.resize(n + m);
    x_.head(n) = -R_;
    if (m) {
      ev_.gap(s1.q, g_);
      x_.tail(m) = -bp * g_;
    }
    tangent(s1.t, s1.q, s1.v, qdd_, lam_, bp, gp, S_);
    lu_.compute(S_);
    if (!(lu_.rcond() > ev_.singular_tolerance)) {
      out.status = SaddleStatus::SingularConstraints;
      return out;
    }
    x_ = lu_.solve(x_);
    if (!x_.allFinite()) {
      out.status = SaddleStatus::NotFinite;
      return out;
    }
    dq_ = x_.head(n);
    s1.q += dq_;
    s1.v += gp * dq_;
    qdd_ += bp * dq_;
    if (m) lam_ += bp * x_.tail(m);
    // Converged when the position increment is below the Newton tolerance and the velocity increment it
    // implies (γ' Δq, amplified by 1/h) is negligible against the step's error tolerance, down to the
    // round-off floor of q (without the second test small steps carry a velocity error ~ newton_tol / h).
    double sq = 0.0, sv = 0.0, qscale = 0.0;
    for (Index i = 0; i < n; ++i) {
      const double rq = dq_[i] / (1.0 + std::abs(s1.q[i]));
      const double rv = gp * dq_[i] / (1.0 + std::abs(s1.v[i]));
      sq += rq * rq;
      sv += rv * rv;
      qscale = std::max(qscale, 1.0 + std::abs(s1.q[i]));
    }
    const double nn = static_cast<double>(n);
    const double v_floor = 10.0 * std::numeric_limits<double>::epsilon() * gp * qscale;
    if (std::sqrt(sq / nn) <= p_.newton_tolerance &&
        std::sqrt(sv / nn) <= std::max({p_.newton_tolerance, 1e-2 * tol, v_floor})) {
      out.newton_converged = true;
      break;
    }
  }
  if (!out.newton_converged) return out;
  s1.a = qdd_;
  s1.lambda = lam_;
  s1.alpha_acceleration = ((1.0 - af) * qdd_ + af * a0 - am * aux_) / (1.0 - am);
  s1.alpha_step = h;

  // eq 11: first-order Newmark (γ_N = 1, β_N = ½) from the same accelerations.
  qN_ = s0.q + h * s0.v + (0.5 * h * h) * qdd_;  // β_N = ½: the q̈_n term vanishes
  vN_ = s0.v + h * qdd_;
  dq_ = s1.q - qN_;
  dv_ = s1.v - vN_;
  out.error = weighted_rms(dq_, dv_, s0, s1, tol);
  return out;
}

}  // namespace talus::eventdriven
