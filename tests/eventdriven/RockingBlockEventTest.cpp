// Event-driven scheme on the 2-D rocking block of seed 002 §3.1.2 with its four corners as unilateral
// contacts (engine/PlanarBlock.hpp, frictionless): released at θ₀ = π/3 with corner A on the ground and zero
// velocity, the block pivots and slides on A (x of the centre stays fixed, no horizontal force) and falls
// back onto its base; corner B hits the ground when θ = 0. Energy conservation on the constrained motion
// gives θ̇² = 2g (z(θ₀) − z(θ)) / (z'(θ)² + I/m), z(θ) = (L/2) sin θ + (l/2) cos θ, so the impact time is the
// quadrature t_B = ∫₀^θ₀ dθ / |θ̇| (computed here with the substitution θ = θ₀ − s² that removes the
// endpoint singularity). Checked: A closes at t = 0 (acceleration LCP) and stays closed, B's impact time
// matches t_B, the mechanical energy is conserved up to the impact and decreases at it. (A, closed, takes part
// in the impact LCP and may receive an impulse too: it is logged as an impact of interaction 0.)
#include <catch2/catch.hpp>

#include <cmath>

#include "engine/PlanarBlock.hpp"
#include "engine/eventdriven/EventDriven.hpp"

using namespace talus;
using namespace talus::eventdriven;

namespace {

constexpr double kW = 1.0, kH = 0.5, kM = 1.0, kG = 9.81, kTheta0 = M_PI / 3.0;

double height(double th) { return 0.5 * kW * std::sin(th) + 0.5 * kH * std::cos(th); }

double impact_time() {
  const double I = kM * (kW * kW + kH * kH) / 12.0;
  auto rate2 = [&](double th) {
    const double dz = 0.5 * kW * std::cos(th) - 0.5 * kH * std::sin(th);
    return 2.0 * kG * (height(kTheta0) - height(th)) / (dz * dz + I / kM);
  };
  // ∫₀^√θ₀ 2 s / √rate2(θ₀ − s²) ds by composite 5-point Gauss–Legendre.
  const double x[5] = {-0.9061798459386640, -0.5384693101056831, 0.0, 0.5384693101056831, 0.9061798459386640};
  const double w[5] = {0.2369268850561891, 0.4786286704993665, 0.5688888888888889, 0.4786286704993665,
                       0.2369268850561891};
  const int n = 400;
  const double S = std::sqrt(kTheta0), d = S / n;
  double t = 0.0;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 5; ++k) {
      const double s = (i + 0.5) * d + 0.5 * d * x[k];
      t += 0.5 * d * w[k] * 2.0 * s / std::sqrt(rate2(kTheta0 - s * s));
    }
  return t;
}

double energy(const Model& m) {
  const LagrangianNonlinear& b = m.nonlinear[0];
  const double I = kM * (kW * kW + kH * kH) / 12.0;
  return 0.5 * kM * (b.v[0] * b.v[0] + b.v[1] * b.v[1]) + 0.5 * I * b.v[2] * b.v[2] + kM * kG * b.q[1];
}

}  // namespace

TEST_CASE("event-driven rocking block falls back on its base at the exact time", "[eventdriven]") {
  Model model;
  PlanarBlock block;
  block.name = "block";
  block.width = kW;
  block.height = kH;
  block.mass = kM;
  block.gravity = Eigen::Vector2d(0.0, -kG);
  block.q0 = Eigen::Vector3d(0.5 * kW * std::cos(kTheta0) - 0.5 * kH * std::sin(kTheta0), height(kTheta0), kTheta0);
  add_planar_block(model, block, NewtonImpactLaw{0.5});
  const double E0 = energy(model), tB = impact_time();

  EventDrivenParameters p;
  p.dae.control.tolerance = 1e-10;
  EventDriven ed(model, p);
  ed.advance_to(0.999 * tB);
  CHECK(ed.closed_interactions() == std::vector<int>{0});  // corner A, closed since t = 0
  CHECK(std::abs(energy(model) - E0) < 1e-8 * std::abs(E0));
  CHECK(model.nonlinear[0].q[0] == Approx(block.q0[0]).margin(1e-12));  // frictionless: x fixed

  ed.advance_to(tB + 0.01);
  const EventRecord* impact = nullptr;
  for (const EventRecord& r : ed.report().log) {
    if (r.kind == EventKind::Release && r.time < tB) FAIL("corner " << r.interaction << " released at " << r.time);
    if (r.kind == EventKind::Impact && r.interaction == 1 && !impact) impact = &r;
  }
  REQUIRE(impact != nullptr);
  INFO("impact at " << impact->time << ", exact " << tB);
  CHECK(std::abs(impact->time - tB) < 1e-8);
  CHECK(impact->U_plus == Approx(-0.5 * impact->U_minus).margin(1e-9));  // Newton's law on B (A stays closed)
  CHECK(energy(model) < E0 - 1e-3);
  CHECK(ed.report().undetermined == 0);
}
