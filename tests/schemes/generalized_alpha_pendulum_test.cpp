// Nonsmooth generalized-α on the bouncing rigid pendulum of seed 004 (nonlinear bilateral constraints + a
// unilateral stop): the GGL position correction keeps the bilateral constraints at position AND velocity level
// (drift bounds), and the trajectory agrees with the same pendulum written as a one-coordinate nonlinear system
// (LagrangianNonlinear, nonlinear unilateral relation) — an independent formulation exercising the Newton path.
#include <catch2/catch.hpp>

#include <cmath>

#include "engine/schemes/NonsmoothGeneralizedAlpha.hpp"
#include "engine/schemes/SchemeBenchmarkModels.hpp"

using namespace talus;

namespace {

// θ as the only coordinate: (m l² + I) θ̈ = −m g l cos θ, stop l cos θ ≥ stop.
Model reduced_pendulum(const BouncingPendulumParameters& p) {
  LagrangianNonlinear s;
  s.name = "pendulum angle";
  s.n = 1;
  const double J = p.mass * p.length * p.length + p.inertia, mgl = p.mass * p.gravity * p.length;
  s.mass = [J](const Vector&, Matrix& M) { M(0, 0) = J; };
  s.force = [mgl](double, const Vector& q, const Vector&, Vector& f) { f[0] = -mgl * std::cos(q[0]); };
  s.potential = [mgl](const Vector& q) { return mgl * std::sin(q[0]); };
  s.q = Vector::Constant(1, p.theta0);
  s.v = Vector::Constant(1, p.omega0);
  Model model;
  model.nonlinear.push_back(std::move(s));
  Interaction stop;
  stop.name = "stop";
  stop.systems = {SystemRef{SystemFamily::Nonlinear, 0}};
  NonlinearRelation rel;
  rel.rows = 1;
  const double l = p.length, x0 = p.stop;
  rel.gap = [l, x0](const Vector& q, Vector& g) { g[0] = l * std::cos(q[0]) - x0; };
  rel.jacobian = [l](const Vector& q, Matrix& Jq) { Jq(0, 0) = -l * std::sin(q[0]); };
  stop.relation = std::move(rel);
  stop.law = NewtonImpactLaw{p.restitution};
  model.interactions.push_back(std::move(stop));
  return model;
}

NonsmoothGeneralizedAlphaParameters pendulum_params(double h) {
  NonsmoothGeneralizedAlphaParameters p;
  p.h = h;
  p.coefficients = generalized_alpha_coefficients(0.8);
  p.newton_tolerance = 1e-12;
  return p;
}

}  // namespace

TEST_CASE("generalized-α bouncing pendulum: no drift of the bilateral constraints, stop respected, impacts obey e",
          "[schemes][generalized-alpha][pendulum]") {
  const BouncingPendulumParameters pp;
  Model model = make_bouncing_pendulum(pp);
  NonsmoothGeneralizedAlpha scheme(model, pendulum_params(2e-3));
  double drift_q = 0.0, drift_v = 0.0, min_gap = 1.0;
  int impacts = 0, max_newton = 0;
  for (int i = 0; i < 2500; ++i) {  // 5 s: the pendulum bounces on the stop and comes to rest on it
    const double xdot_before = model.lti[0].v[0];
    const StepReport& r = scheme.step();
    max_newton = std::max(max_newton, r.newton_iterations);
    const Interaction& hinge = model.interactions[0];
    const Interaction& stop = model.interactions[1];
    drift_q = std::max(drift_q, hinge.gap.lpNorm<Eigen::Infinity>());
    drift_v = std::max(drift_v, hinge.velocity.lpNorm<Eigen::Infinity>());
    min_gap = std::min(min_gap, stop.gap[0]);
    if (stop.impulse[0] > 0.0 && xdot_before < -0.1) {
      ++impacts;
      // Newton's law on U = ẋ with U_n = ẋ_n evaluated at q_n.
      CHECK(stop.velocity[0] == Approx(-pp.restitution * xdot_before).margin(1e-9));
    }
  }
  INFO("drift q " << drift_q << ", drift v " << drift_v << ", min gap " << min_gap << ", Newton max " << max_newton);
  CHECK(drift_q < 1e-10);
  CHECK(drift_v < 1e-10);
  CHECK(min_gap > -1e-10);
  CHECK(impacts >= 3);
  CHECK(max_newton <= 10);
  // At rest on the stop: θ = −45°.
  CHECK(model.lti[0].q[2] == Approx(-M_PI / 4).margin(1e-6));
}

TEST_CASE("generalized-α: constrained pendulum and one-coordinate nonlinear pendulum agree",
          "[schemes][generalized-alpha][pendulum]") {
  const BouncingPendulumParameters pp;
  const double h = 1e-3;
  Model full = make_bouncing_pendulum(pp);
  Model reduced = reduced_pendulum(pp);
  NonsmoothGeneralizedAlpha a(full, pendulum_params(h)), b(reduced, pendulum_params(h));
  double max_before_impact = 0.0, max_diff = 0.0;
  // The first impact happens near t = 0.5 s; compare before it (both second order) and over 2 s (both first
  // order through impacts, with the same event sequence).
  for (int i = 0; i < 2000; ++i) {
    a.step();
    b.step();
    const double d = std::abs(full.lti[0].q[2] - reduced.nonlinear[0].q[0]);
    if (i < 400) max_before_impact = std::max(max_before_impact, d);
    max_diff = std::max(max_diff, d);
    REQUIRE(b.last_report().newton_iterations <= 10);
  }
  INFO("max |Δθ| before impact " << max_before_impact << ", over 2 s " << max_diff);
  CHECK(max_before_impact < 1e-5);
  CHECK(max_diff < 2e-2);
}
