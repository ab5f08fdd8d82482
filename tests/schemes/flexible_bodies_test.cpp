// Flexible bodies (issue 5 item 5): the FE bar and Euler–Bernoulli beam against their analytic frequencies and
// static deflection, and the impacting elastic bar of seed 004 against its exact wave solution
// (ElasticBarImpactSolution: contact during exactly 2L/c at pressure ρ c v₀, rebound at +v₀).
#include <catch2/catch.hpp>

#include <Eigen/Eigenvalues>
#include <cmath>

#include "engine/schemes/ElasticBarImpactSolution.hpp"
#include "engine/schemes/FiniteElementBeams.hpp"
#include "engine/schemes/NonsmoothGeneralizedAlpha.hpp"
#include "engine/schemes/SchemeBenchmarkModels.hpp"

using namespace talus;

namespace {

Vector frequencies(const LagrangianLti& s) {
  const Matrix K = Matrix(s.K), M = Matrix(s.M);
  Eigen::GeneralizedSelfAdjointEigenSolver<Matrix> eig(K, M);
  REQUIRE(eig.info() == Eigen::Success);
  return eig.eigenvalues().cwiseMax(0.0).cwiseSqrt();
}

}  // namespace

TEST_CASE("FE bar: free-free frequencies n π c / L, consistent mass above and lumped mass below",
          "[schemes][flexible]") {
  ElasticBarParameters p;
  p.elements = 50;
  const double c = std::sqrt(p.young / p.density);
  const Vector wc = frequencies(make_elastic_bar(p));
  p.mass = MassMatrixKind::Lumped;
  const Vector wl = frequencies(make_elastic_bar(p));
  CHECK(std::abs(wc[0]) < 1e-6);  // rigid mode
  for (int n = 1; n <= 3; ++n) {
    const double exact = n * M_PI * c / p.length;
    INFO("mode " << n << ": exact " << exact << ", consistent " << wc[n] << ", lumped " << wl[n]);
    CHECK(wc[n] > exact);
    CHECK(wl[n] < exact);
    CHECK(std::abs(wc[n] - exact) < 2e-3 * n * n * exact);
    CHECK(std::abs(wl[n] - exact) < 2e-3 * n * n * exact);
  }
}

TEST_CASE("Euler–Bernoulli cantilever: frequencies (β_n L)² sqrt(EI/ρAL⁴) and tip deflection qL⁴/8EI",
          "[schemes][flexible]") {
  EulerBernoulliBeamParameters p;
  const Vector w = frequencies(make_euler_bernoulli_beam(p));
  const double scale = std::sqrt(p.young * p.second_moment / (p.density * p.area * std::pow(p.length, 4)));
  const double beta_l[3] = {1.8751040687, 4.6940911330, 7.8547574382};
  for (int n = 0; n < 3; ++n) {
    const double exact = beta_l[n] * beta_l[n] * scale;
    INFO("mode " << n + 1 << ": exact " << exact << ", FE " << w[n]);
    CHECK(w[n] == Approx(exact).epsilon(1e-4));
  }
  p.transverse_load = -100.0;
  const LagrangianLti beam = make_euler_bernoulli_beam(p);
  Eigen::SimplicialLDLT<SparseMatrixCol> ldlt(SparseMatrixCol(beam.K));
  const Vector q = ldlt.solve(beam.f_const);
  const double tip = q[beam_deflection_dof(p, p.elements)];
  CHECK(tip == Approx(p.transverse_load * std::pow(p.length, 4) / (8.0 * p.young * p.second_moment)).epsilon(1e-10));
  CHECK_THROWS_AS(beam_deflection_dof(p, 0), std::invalid_argument);
}

TEST_CASE("impacting elastic bar (seed 004, generalized-α ρ∞ = 0.6, h = 2e−3, 200 elements) vs the exact solution",
          "[schemes][flexible][bar]") {
  const ImpactingBarParameters bp;
  const ElasticBarImpactSolution exact({bp.bar.young, bp.bar.density, bp.bar.area, bp.bar.length, bp.height, bp.velocity});
  Model model = make_impacting_bar(bp);
  NonsmoothGeneralizedAlphaParameters p;
  p.h = 2e-3;
  p.coefficients = generalized_alpha_coefficients(0.6);
  NonsmoothGeneralizedAlpha scheme(model, p);
  double first = -1.0, last = -1.0, impulse_sum = 0.0, position_error = 0.0;
  const int steps = 750;  // 1.5 s: flight, contact [0.5, 1.1667], lift-off
  for (int i = 0; i < steps; ++i) {
    scheme.step();
    const double t = model.time, P = model.interactions[0].impulse[0];
    if (P > 0.0) {
      if (first < 0.0) first = t;
      last = t;
      impulse_sum += P;
    }
    position_error += p.h * std::abs(bp.height + model.lti[0].q[0] - exact.bottom_position(t));
    REQUIRE(bp.height + model.lti[0].q[0] >= -1e-12);
  }
  const LagrangianLti& bar = model.lti[0];
  const double mass = bp.bar.density * bp.bar.area * bp.bar.length;
  const double v_centre = bar.M.toDense().colwise().sum().dot(bar.v) / mass;
  const double energy = 0.5 * bar.v.dot(bar.M * bar.v) + 0.5 * bar.q.dot(bar.K * bar.q);
  const double exact_impulse = exact.contact_pressure(0.8) * bp.bar.area * (exact.contact_end() - exact.contact_start());
  INFO("contact [" << first << ", " << last << "] vs [" << exact.contact_start() << ", " << exact.contact_end()
                   << "], impulse " << impulse_sum << " vs " << exact_impulse << ", rebound " << v_centre
                   << ", energy " << energy << " vs " << exact.energy() << ", L1 bottom position error "
                   << position_error);
  CHECK(std::abs(first - exact.contact_start()) <= 2 * p.h);
  CHECK(std::abs(last - exact.contact_end()) <= 0.05);
  // Total impulse = momentum change 2 m v₀, reached when the bar has lifted off.
  CHECK(impulse_sum == Approx(exact_impulse).epsilon(0.02));
  CHECK(v_centre == Approx(bp.velocity).epsilon(0.02));
  CHECK(energy > 0.9 * exact.energy());
  CHECK(position_error < 0.05);
}

TEST_CASE("cantilever beam striking a stop: the tip never passes the stop and e = 0 contact does no work",
          "[schemes][flexible][beam]") {
  const BeamStopParameters bp;
  Model model = make_beam_against_stop(bp);
  const LagrangianLti& beam = model.lti[0];
  auto energy = [&] { return 0.5 * beam.v.dot(beam.M * beam.v) + 0.5 * beam.q.dot(beam.K * beam.q); };
  const double e0 = energy();
  NonsmoothGeneralizedAlphaParameters p;
  p.h = 1e-4;
  p.coefficients = generalized_alpha_coefficients(0.8);
  NonsmoothGeneralizedAlpha scheme(model, p);
  const Index tip = beam_deflection_dof(bp.beam, bp.beam.elements);
  int contact_steps = 0;
  double worst_work = 0.0;
  for (int i = 0; i < 2000; ++i) {  // 0.2 s: about two periods of the first mode (9.7 Hz)
    const StepReport& r = scheme.step();
    REQUIRE(bp.gap + beam.q[tip] >= -1e-12);
    if (model.interactions[0].impulse[0] > 0.0) ++contact_steps;
    worst_work = std::max(worst_work, r.energy.contact_work);
  }
  INFO("contact steps " << contact_steps << ", energy " << e0 << " → " << energy());
  CHECK(contact_steps >= 1);
  CHECK(worst_work <= 1e-12 * e0);
  CHECK(energy() < e0);
}
