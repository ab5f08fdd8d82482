// Runge–Kutta–Fehlberg 4(5) on the index-1 formulation (see Rkf45.hpp). The tableau is Fehlberg's (1969), as
// printed in Hairer, Nørsett, Wanner, "Solving ODEs I", table II.5.1.
#include "engine/eventdriven/Rkf45.hpp"

#include <cmath>

namespace talus::eventdriven {

namespace {

constexpr double kC[6] = {0.0, 1.0 / 4.0, 3.0 / 8.0, 12.0 / 13.0, 1.0, 1.0 / 2.0};
constexpr double kA[6][5] = {
    {0, 0, 0, 0, 0},
    {1.0 / 4.0, 0, 0, 0, 0},
    {3.0 / 32.0, 9.0 / 32.0, 0, 0, 0},
    {1932.0 / 2197.0, -7200.0 / 2197.0, 7296.0 / 2197.0, 0, 0},
    {439.0 / 216.0, -8.0, 3680.0 / 513.0, -845.0 / 4104.0, 0},
    {-8.0 / 27.0, 2.0, -3544.0 / 2565.0, 1859.0 / 4104.0, -11.0 / 40.0},
};
constexpr double kB4[6] = {25.0 / 216.0, 0.0, 1408.0 / 2565.0, 2197.0 / 4104.0, -1.0 / 5.0, 0.0};
constexpr double kB5[6] = {16.0 / 135.0, 0.0, 6656.0 / 12825.0, 28561.0 / 56430.0, -9.0 / 50.0, 2.0 / 55.0};

}  // namespace

StepAttempt Rkf45::attempt(const DaeState& s0, double h, double tol, DaeState& s1) {
  StepAttempt out;
  ev_.coordinate_rate(s0.q, s0.v, kq_[0]);
  kv_[0] = s0.a;
  for (int i = 1; i < 6; ++i) {
    Q_ = s0.q;
    V_ = s0.v;
    for (int j = 0; j < i; ++j) {
      if (kA[i][j] == 0.0) continue;
      Q_ += (h * kA[i][j]) * kq_[j];
      V_ += (h * kA[i][j]) * kv_[j];
    }
    ev_.coordinate_rate(Q_, V_, kq_[i]);
    out.status = ev_.accelerations(s0.t + kC[i] * h, Q_, V_, kv_[i], lam_);
    if (out.status != SaddleStatus::Ok) return out;
  }
  s1.t = s0.t + h;
  s1.q = s0.q;
  s1.v = s0.v;
  dq_.setZero(s0.q.size());
  dv_.setZero(s0.v.size());
  for (int i = 0; i < 6; ++i) {
    s1.q += (h * kB4[i]) * kq_[i];
    s1.v += (h * kB4[i]) * kv_[i];
    dq_ += (h * (kB5[i] - kB4[i])) * kq_[i];
    dv_ += (h * (kB5[i] - kB4[i])) * kv_[i];
  }
  if (ev_.system().normalize) ev_.system().normalize(s1.q);
  out.error = weighted_rms(dq_, dv_, s0, s1, tol);
  if (project && !project_state(s1)) {
    out.status = SaddleStatus::SingularConstraints;
    return out;
  }
  out.status = ev_.accelerations(s1.t, s1.q, s1.v, s1.a, s1.lambda);
  s1.alpha_acceleration.resize(0);
  return out;
}

bool Rkf45::project_onto_constraints(DaeState& s) {
  if (!project_state(s)) return false;
  return ev_.accelerations(s.t, s.q, s.v, s.a, s.lambda) == SaddleStatus::Ok;
}

// Projection onto g_A(q) = 0 then G_A(q) v = 0 in the metric of M: q ← q + T(q) δ with
// δ = −M⁻¹Gᵀ (G M⁻¹ Gᵀ)⁻¹ g (simplified Newton), then v ← v − M⁻¹Gᵀ (G M⁻¹ Gᵀ)⁻¹ G v.
bool Rkf45::project_state(DaeState& s) {
  if (ev_.active_rows() == 0) return true;
  DaeWork& w = ev_.work();
  if (!ev_.factor_mass(s.q)) return false;
  ev_.jacobian(s.q, G_);
  Y_ = G_.transpose();
  ev_.solve_mass(Y_);
  Eigen::PartialPivLU<Matrix> lu(G_ * Y_);
  if (!(lu.rcond() > ev_.singular_tolerance)) return false;
  const double scale = 1.0 + s.q.lpNorm<Eigen::Infinity>();
  for (int k = 0; k < projection_iterations; ++k) {
    ev_.gap(s.q, g_);
    if (g_.lpNorm<Eigen::Infinity>() <= projection_tolerance * scale) break;
    ++w.linear_systems;
    mu_ = lu.solve(g_);
    dx_ = -(Y_ * mu_);
    ev_.coordinate_rate(s.q, dx_, Q_);
    s.q += Q_;
    if (ev_.system().normalize) ev_.system().normalize(s.q);
  }
  ev_.jacobian(s.q, G_);
  Y_ = G_.transpose();
  ev_.solve_mass(Y_);
  lu.compute(G_ * Y_);
  if (!(lu.rcond() > ev_.singular_tolerance)) return false;
  ++w.linear_systems;
  mu_ = lu.solve(G_ * s.v);
  s.v -= Y_ * mu_;
  return true;
}

}  // namespace talus::eventdriven
