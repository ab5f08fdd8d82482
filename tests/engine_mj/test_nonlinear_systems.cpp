// Moreau–Jean on nonlinear Lagrangian systems given by callbacks (Newton iterations on the θ-scheme residual):
// a pendulum hitting a wall with a nonlinear gap (Newton's law at the impact, impact speed and rebound angle
// from energy), the same run with finite-difference Jacobians, and the linear impacting oscillator written
// with callbacks, which must follow the LTI path step by step.
#include <catch2/catch.hpp>
#include <cmath>

#include "engine/MoreauJean.hpp"
#include "MjTestModels.hpp"

using namespace talus;

namespace {

constexpr double kG = 9.81;

// Angle φ from the downward vertical, m = 1, l = 1: φ̈ = −g sin φ; wall at x = sin φ >= 0.
Model pendulum_against_wall(double phi0, double e, bool jacobians) {
  Model model;
  LagrangianNonlinear s;
  s.name = "pendulum";
  s.n = 1;
  s.mass = [](const Vector&, Matrix& M) { M(0, 0) = 1.0; };
  s.force = [](double, const Vector& q, const Vector&, Vector& f) { f[0] = -kG * std::sin(q[0]); };
  if (jacobians) {
    s.force_jacobian_q = [](double, const Vector& q, const Vector&, Matrix& J) { J(0, 0) = -kG * std::cos(q[0]); };
    s.force_jacobian_v = [](double, const Vector&, const Vector&, Matrix& J) { J(0, 0) = 0.0; };
  }
  s.potential = [](const Vector& q) { return kG * (1.0 - std::cos(q[0])); };
  s.q = Vector::Constant(1, phi0);
  s.v = Vector::Zero(1);
  model.nonlinear.push_back(s);
  Interaction in;
  in.name = "wall";
  in.systems = {SystemRef{SystemFamily::Nonlinear, 0}};
  NonlinearRelation rel;
  rel.gap = [](const Vector& q, Vector& g) { g[0] = std::sin(q[0]); };
  rel.jacobian = [](const Vector& q, Matrix& J) { J(0, 0) = std::cos(q[0]); };
  in.relation = rel;
  in.law = NewtonImpactLaw{e};
  model.interactions.push_back(in);
  return model;
}

struct PendulumRun {
  double impact_velocity = 0.0, max_angle_after = 0.0;
  int impacts = 0, max_newton = 0;
  std::vector<double> phi;
};

PendulumRun run_pendulum(double e, bool jacobians) {
  const double phi0 = 1.0, h = 1e-3;
  Model model = pendulum_against_wall(phi0, e, jacobians);
  MoreauJeanParameters params;
  params.h = h;
  MoreauJean mj(model, params);
  PendulumRun r;
  bool bounced = false;
  for (int k = 0; k < 1200; ++k) {
    const double w0 = model.nonlinear[0].v[0];
    const StepReport& rep = mj.step();
    const double w1 = model.nonlinear[0].v[0];
    r.max_newton = std::max(r.max_newton, rep.newton_iterations);
    r.phi.push_back(model.nonlinear[0].q[0]);
    if (model.interactions[0].impulse[0] > 0.0) {
      ++r.impacts;
      // Newton's law on U = cos φ_k φ̇: the same Jacobian multiplies both velocities.
      CHECK(std::abs(w1 + e * w0) <= 1e-9 * std::abs(w0));
      if (!bounced) r.impact_velocity = w0;
      bounced = true;
    } else if (bounced) {
      r.max_angle_after = std::max(r.max_angle_after, model.nonlinear[0].q[0]);
    }
  }
  return r;
}

}  // namespace

TEST_CASE("a pendulum hits a wall and bounces with restitution e", "[mj][nonlinear]") {
  const double e = 0.6, phi0 = 1.0;
  const PendulumRun r = run_pendulum(e, true);
  CHECK(r.impacts >= 1);
  CHECK(r.max_newton >= 1);
  CHECK(r.max_newton <= 5);
  const double w_exact = -std::sqrt(2.0 * kG * (1.0 - std::cos(phi0)));  // energy from φ0 down to φ = 0
  CHECK(std::abs(r.impact_velocity - w_exact) <= 0.02 * std::abs(w_exact));
  const double rebound_exact = std::acos(1.0 - e * e * (1.0 - std::cos(phi0)));
  CHECK(std::abs(r.max_angle_after - rebound_exact) <= 0.02 * rebound_exact);
}

TEST_CASE("finite-difference force Jacobians give the same pendulum run", "[mj][nonlinear]") {
  const PendulumRun exact = run_pendulum(0.6, true), fd = run_pendulum(0.6, false);
  REQUIRE(exact.phi.size() == fd.phi.size());
  double d = 0.0;
  for (size_t k = 0; k < fd.phi.size(); ++k) d = std::max(d, std::abs(exact.phi[k] - fd.phi[k]));
  CHECK(d <= 1e-8);
}

TEST_CASE("the linear oscillator written with callbacks follows the LTI path", "[mj][nonlinear]") {
  const double m = 1.5, k = 4.0, e = 0.5;
  Model lti = mjtest::oscillator_on_stop(m, k, 0.0, 2.0, -0.3, e);
  Model nl;
  LagrangianNonlinear s;
  s.name = "oscillator-callbacks";
  s.n = 1;
  s.mass = [m](const Vector&, Matrix& M) { M(0, 0) = m; };
  s.force = [k](double t, const Vector& q, const Vector&, Vector& f) { f[0] = -k * q[0] + 0.5 * std::cos(1.3 * t); };
  s.q = Vector::Zero(1);
  s.v = Vector::Constant(1, 2.0);
  nl.nonlinear.push_back(s);
  Interaction in = lti.interactions[0];
  in.systems = {SystemRef{SystemFamily::Nonlinear, 0}};
  nl.interactions.push_back(in);
  lti.lti[0].f_time = [](double t, Eigen::Ref<Vector> f) { f[0] += 0.5 * std::cos(1.3 * t); };

  for (auto variant : {MoreauJeanVariant::Standard, MoreauJeanVariant::Dissipative, MoreauJeanVariant::Paoli}) {
    INFO("variant " << to_string(variant));
    Model a = lti, b = nl;
    MoreauJeanParameters params;
    params.h = 2e-3;
    params.theta = 0.7;
    params.variant = variant;
    MoreauJean mja(a, params), mjb(b, params);
    double d = 0.0;
    int impacts = 0;
    for (int i = 0; i < 3000; ++i) {
      mja.step();
      const StepReport& rb = mjb.step();
      CHECK(rb.newton_iterations == 1);  // linear in v: one solve, converged at the check
      d = std::max(d, std::abs(a.lti[0].q[0] - b.nonlinear[0].q[0]) + std::abs(a.lti[0].v[0] - b.nonlinear[0].v[0]));
      if (a.interactions[0].impulse[0] > 0.0) ++impacts;
    }
    CHECK(impacts > 0);
    CHECK(d <= 1e-9);
  }
}
