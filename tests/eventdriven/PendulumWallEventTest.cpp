// Event-driven scheme with a bilateral joint and a unilateral contact together: a point-mass pendulum in
// Cartesian coordinates (bilateral g₁ = ½(x² + y² − L²) = 0, a nonlinear relation) released at θ₀ swings
// into a wall x >= 0 placed at its lowest point. At θ = 0 the rod and the wall normal are orthogonal, so the
// impact reverses the horizontal velocity with Newton's e and keeps the joint: the amplitude obeys
// 1 − cos θ_{k+1} = e² (1 − cos θ_k), and the impact times are exactly
//   t₁ = P(θ₀)/4,  t_{k+1} = t_k + P(θ_k)/2,  P(θ) = 4 √(L/g) K(sin(θ/2)),
// K the complete elliptic integral of the first kind (by the arithmetic–geometric mean).
#include <catch2/catch.hpp>

#include <cmath>

#include "engine/eventdriven/EventDriven.hpp"

using namespace talus;
using namespace talus::eventdriven;

namespace {

constexpr double kL = 0.8, kG = 9.81, kE = 0.6, kTheta0 = 1.2;

double period(double amplitude) {
  const double k = std::sin(0.5 * amplitude);
  double a = 1.0, b = std::sqrt(1.0 - k * k);
  for (int i = 0; i < 40; ++i) {
    const double an = 0.5 * (a + b);
    b = std::sqrt(a * b);
    a = an;
  }
  const double K = M_PI / (2.0 * a);
  return 4.0 * std::sqrt(kL / kG) * K;
}

Model pendulum_against_wall() {
  Model model;
  LagrangianLti bob;
  bob.name = "bob";
  SparseMatrix M(2, 2);
  M.setIdentity();
  bob.M = 2.0 * M;
  bob.f_const = Vector(2);
  bob.f_const << 0.0, -2.0 * kG;
  bob.q = Vector(2);
  bob.q << kL * std::sin(kTheta0), -kL * std::cos(kTheta0);
  bob.v = Vector::Zero(2);
  model.lti.push_back(bob);

  Interaction rod;
  rod.name = "rod";
  rod.systems = {SystemRef{SystemFamily::Lti, 0}};
  NonlinearRelation r;
  r.rows = 1;
  r.gap = [](const Vector& q, Vector& g) { g[0] = 0.5 * (q.squaredNorm() - kL * kL); };
  r.jacobian = [](const Vector& q, Matrix& J) { J.row(0) = q.transpose(); };
  rod.relation = r;
  rod.law = EqualityLaw{1};
  model.interactions.push_back(rod);

  Interaction wall;
  wall.name = "wall";
  wall.systems = {SystemRef{SystemFamily::Lti, 0}};
  wall.relation = LinearRelation{(Matrix(1, 2) << 1.0, 0.0).finished(), Vector::Zero(1)};
  wall.law = NewtonImpactLaw{kE};
  model.interactions.push_back(wall);
  return model;
}

}  // namespace

TEST_CASE("event-driven pendulum against a wall: impact times of the exact elliptic solution",
          "[eventdriven]") {
  const auto method = GENERATE(DaeMethod::Hem5, DaeMethod::Rkf45, DaeMethod::GeneralizedAlpha);
  Model model = pendulum_against_wall();
  EventDrivenParameters p;
  p.dae.method = method;
  // Generalized-α is of order 2: at 1e-10 it would need millions of steps, so it runs at 1e-7.
  const bool alpha = method == DaeMethod::GeneralizedAlpha;
  p.dae.control.tolerance = alpha ? 1e-7 : 1e-10;
  p.dae.control.min_step = 1e-9;
  EventDriven ed(model, p);
  ed.advance_to(3.0);

  std::vector<double> exact;
  double t = 0.25 * period(kTheta0), c = 1.0 - std::cos(kTheta0);
  while (t < 3.0) {
    exact.push_back(t);
    c *= kE * kE;
    t += 0.5 * period(std::acos(1.0 - c));
  }
  std::vector<double> impacts;
  for (const EventRecord& r : ed.report().log)
    if (r.kind == EventKind::Impact) impacts.push_back(r.time);
  double worst = 0.0;
  for (size_t k = 0; k < std::min(exact.size(), impacts.size()); ++k)
    worst = std::max(worst, std::abs(impacts[k] - exact[k]));
  INFO(to_string(method) << ": worst impact-time error " << worst << ", " << impacts.size() << " impacts, " << exact.size() << " expected, "
                         << ed.report().smooth_steps << " smooth steps");
  REQUIRE(impacts.size() == exact.size());
  // Event times inherit the integrator's global error.
  const double bound = alpha ? 1e-5 : 1e-8;
  for (size_t k = 0; k < exact.size(); ++k) {
    INFO("impact " << k);
    CHECK(std::abs(impacts[k] - exact[k]) <= bound);
  }
  // The joint holds: |x² + y² − L²| / 2 stays small at the end.
  const Vector& q = model.lti[0].q;
  CHECK(std::abs(0.5 * (q.squaredNorm() - kL * kL)) < 1e-7);
  CHECK(ed.report().undetermined == 0);
}
