// Closed forms of the slider-crank and the rocking block of seed 002 section 3.1 (derivations in
// docs/mechanisms.md).
#include "engine/eventdriven/Mechanisms.hpp"

#include <cmath>

namespace talus::eventdriven {

MechanismCase make_slider_crank(const SliderCrankParameters& p) {
  MechanismCase c;
  c.name = "slider_crank";
  MechanicalSystem& s = c.system;
  s.nq = s.nv = 3;
  s.rows = 2;
  // T = ½ (m₁ l₁²/3 + m₂ l₁²) α̇₁² + k cos(α₁ − α₂) α̇₁ α̇₂ + ½ (m₂ l₂²/3) α̇₂² + ½ m₃ ẋ², k = m₂ l₁ l₂ / 2.
  const double M11 = p.m1 * p.l1 * p.l1 / 3.0 + p.m2 * p.l1 * p.l1;
  const double M22 = p.m2 * p.l2 * p.l2 / 3.0;
  const double k = 0.5 * p.m2 * p.l1 * p.l2;
  s.mass = [=](const Vector& q, Matrix& M) {
    const double c12 = k * std::cos(q[0] - q[1]);
    M << M11, c12, 0.0, c12, M22, 0.0, 0.0, 0.0, p.m3;
  };
  // Lagrange's equations: gyroscopic terms ∓ k sin(α₁ − α₂) α̇², gravity from V = g [(m₁/2 + m₂) l₁ sin α₁
  // + m₂ (l₂/2) sin α₂].
  s.force = [=](double, const Vector& q, const Vector& v, Vector& F) {
    const double s12 = k * std::sin(q[0] - q[1]);
    F[0] = -s12 * v[1] * v[1] - p.gravity * p.l1 * (0.5 * p.m1 + p.m2) * std::cos(q[0]);
    F[1] = s12 * v[0] * v[0] - p.gravity * p.m2 * 0.5 * p.l2 * std::cos(q[1]);
    F[2] = 0.0;
  };
  s.force_jacobian_v = [=](double, const Vector& q, const Vector& v, Matrix& J) {
    const double s12 = k * std::sin(q[0] - q[1]);
    J.setZero();
    J(0, 1) = -2.0 * s12 * v[1];
    J(1, 0) = 2.0 * s12 * v[0];
  };
  s.gap = [=](const Vector& q, Vector& g) {
    g[0] = p.l1 * std::sin(q[0]) + p.l2 * std::sin(q[1]);
    g[1] = q[2] - p.l1 * std::cos(q[0]) - p.l2 * std::cos(q[1]);
  };
  s.jacobian = [=](const Vector& q, Matrix& G) {
    G << p.l1 * std::cos(q[0]), p.l2 * std::cos(q[1]), 0.0, p.l1 * std::sin(q[0]), p.l2 * std::sin(q[1]), 1.0;
  };
  s.curvature = [=](const Vector& q, const Vector& v, Vector& cv) {
    const double a = p.l1 * v[0] * v[0], b = p.l2 * v[1] * v[1];
    cv[0] = -a * std::sin(q[0]) - b * std::sin(q[1]);
    cv[1] = a * std::cos(q[0]) + b * std::cos(q[1]);
  };
  c.initial.q = p.q0;
  c.initial.v = p.v0;
  c.active = {0, 1};
  c.t_end = p.t_end;
  return c;
}

MechanismCase make_rocking_block(const RockingBlockParameters& p) {
  MechanismCase c;
  c.name = "rocking_block";
  MechanicalSystem& s = c.system;
  s.nq = s.nv = 3;
  s.rows = 1;
  s.constant_mass = true;
  const double I = p.mass * (p.width * p.width + p.height * p.height) / 12.0;
  const double hw = 0.5 * p.width, hh = 0.5 * p.height;
  s.mass = [=](const Vector&, Matrix& M) { M = Eigen::Vector3d(p.mass, p.mass, I).asDiagonal(); };
  s.force = [=](double, const Vector&, const Vector&, Vector& F) { F << 0.0, -p.mass * p.gravity, 0.0; };
  s.force_jacobian_q = [](double, const Vector&, const Vector&, Matrix& J) { J.setZero(); };
  s.force_jacobian_v = [](double, const Vector&, const Vector&, Matrix& J) { J.setZero(); };
  s.gap = [=](const Vector& q, Vector& g) { g[0] = q[1] - hw * std::sin(q[2]) - hh * std::cos(q[2]); };
  s.jacobian = [=](const Vector& q, Matrix& G) {
    G << 0.0, 1.0, -hw * std::cos(q[2]) + hh * std::sin(q[2]);
  };
  s.curvature = [=](const Vector& q, const Vector& v, Vector& cv) {
    cv[0] = (hw * std::sin(q[2]) + hh * std::cos(q[2])) * v[2] * v[2];
  };
  const double th = p.theta0;
  c.initial.q = Eigen::Vector3d(hw * std::cos(th) - hh * std::sin(th), hw * std::sin(th) + hh * std::cos(th), th);
  c.initial.v = Vector::Zero(3);
  c.active = {0};
  c.t_end = p.t_end;
  return c;
}

}  // namespace talus::eventdriven
