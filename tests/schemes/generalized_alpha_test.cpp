// Nonsmooth generalized-α (seed 004 eqs 34–42) against exact solutions: the impact law holds exactly at the
// impact step (post-impact velocity −e v⁻, not the thousands of a scheme that lets the impulse into the
// acceleration), gaps hold at position level, free flight is second order, impacting motion converges.
#include <catch2/catch.hpp>

#include <cmath>

#include "engine/AnalyticSolutions.hpp"
#include "engine/BenchmarkModels.hpp"
#include "engine/BenchmarkModels.hpp"
#include "engine/schemes/NonsmoothGeneralizedAlpha.hpp"

using namespace talus;

namespace {

NonsmoothGeneralizedAlphaParameters alpha_params(double h, double rho) {
  NonsmoothGeneralizedAlphaParameters p;
  p.h = h;
  p.coefficients = generalized_alpha_coefficients(rho);
  return p;
}

}  // namespace

TEST_CASE("ρ∞ maps to the Chung–Hulbert coefficients of seed 004 eq 42", "[schemes][generalized-alpha]") {
  const GeneralizedAlphaCoefficients c = generalized_alpha_coefficients(1.0);
  CHECK(c.alpha_m == Approx(0.5));
  CHECK(c.alpha_f == Approx(0.5));
  CHECK(c.gamma == Approx(0.5));
  CHECK(c.beta == Approx(0.25));
  const GeneralizedAlphaCoefficients d = generalized_alpha_coefficients(0.0);
  CHECK(d.alpha_m == Approx(-1.0));
  CHECK(d.alpha_f == Approx(0.0));
  CHECK(d.gamma == Approx(1.5));
  CHECK(d.beta == Approx(1.0));
  CHECK_THROWS_AS(generalized_alpha_coefficients(1.5), std::invalid_argument);
}

TEST_CASE("generalized-α bouncing ball: post-impact velocity is exactly −e v⁻ and the gap stays >= 0",
          "[schemes][generalized-alpha]") {
  for (double rho : {0.0, 0.5, 0.8, 1.0}) {
    BouncingBallParameters bp;
    bp.force = -9.81;
    bp.restitution = 0.8;
    Model model = make_bouncing_ball(bp);
    NonsmoothGeneralizedAlpha scheme(model, alpha_params(1e-3, rho));
    int impacts = 0;
    for (int i = 0; i < 3000; ++i) {  // 3 s: several bounces
      const double v_before = model.lti[0].v[0];
      const StepReport& r = scheme.step();
      const double q = model.lti[0].q[0], v = model.lti[0].v[0];
      REQUIRE(q >= -1e-12);
      if (model.interactions[0].impulse[0] > 0.0 && v_before < -1.0) {
        ++impacts;
        // The impact law of eq 40h in one step: U_{n+1} = −e U_n exactly, and q lands on the ground.
        CHECK(v == Approx(-bp.restitution * v_before).epsilon(1e-12));
        CHECK(std::abs(q) < 1e-12);
        CHECK(r.newton_iterations == 1);
      }
    }
    INFO("rho_inf = " << rho);
    CHECK(impacts >= 3);
  }
}

TEST_CASE("generalized-α bouncing ball: first post-impact velocity within O(h) of e·sqrt(2 g q0)",
          "[schemes][generalized-alpha]") {
  BouncingBallParameters bp;
  bp.force = -9.81;
  bp.restitution = 0.8;
  Model model = make_bouncing_ball(bp);
  NonsmoothGeneralizedAlpha scheme(model, alpha_params(1e-3, 0.8));
  double v_max_after = 0.0;
  for (int i = 0; i < 800; ++i) {
    scheme.step();
    v_max_after = std::max(v_max_after, model.lti[0].v[0]);
  }
  const double exact = bp.restitution * std::sqrt(2.0 * 9.81 * bp.q0);
  CHECK(std::abs(v_max_after - exact) < 2.0 * 9.81 * 1e-3);
}

TEST_CASE("generalized-α is second order in free flight (forced oscillator before its first impact)",
          "[schemes][generalized-alpha]") {
  const LinearOscillatorParameters lp;
  const double horizon = 0.25;  // before the first impact of the default oscillator
  const LinearOscillatorSolution exact(lp, horizon);
  REQUIRE((exact.impact_times().empty() || exact.impact_times().front() > horizon));
  for (double rho : {0.5, 0.8, 1.0}) {
    std::vector<double> hs, eq, ev;
    for (double h : {1e-2, 5e-3, 2.5e-3, 1.25e-3}) {
      Model model = make_linear_oscillator(lp);
      const GridTrajectory g =
          integrate_scheme_on_grid<NonsmoothGeneralizedAlpha>(model, alpha_params(h, rho), horizon);
      const GridError e = l1_grid_error(g, exact);
      hs.push_back(h);
      eq.push_back(e.q);
      ev.push_back(e.v);
    }
    INFO("rho_inf = " << rho << ", errors q: " << eq[0] << " … " << eq.back());
    CHECK(fitted_order(hs, eq) > 1.9);
    CHECK(fitted_order(hs, ev) > 1.9);
  }
}

TEST_CASE("generalized-α converges on the bouncing ball and the impacting oscillator (order about 1)",
          "[schemes][generalized-alpha]") {
  {
    const BouncingBallParameters bp;
    const BouncingBallSolution exact(bp);
    std::vector<double> hs, eq;
    for (double h : {1e-2, 5e-3, 2.5e-3, 1.25e-3}) {
      Model model = make_bouncing_ball(bp);
      const GridTrajectory g = integrate_scheme_on_grid<NonsmoothGeneralizedAlpha>(model, alpha_params(h, 0.8), 4.0);
      hs.push_back(h);
      eq.push_back(l1_grid_error(g, exact).q);
    }
    INFO("bouncing ball L1(q): " << eq[0] << " … " << eq.back());
    CHECK(eq.back() < 1e-2);
    CHECK(fitted_order(hs, eq) > 0.8);
  }
  {
    const LinearOscillatorParameters lp;
    const LinearOscillatorSolution exact(lp, 3.0);
    REQUIRE(exact.impact_times().size() >= 2);
    std::vector<double> hs, eq;
    for (double h : {1e-2, 5e-3, 2.5e-3, 1.25e-3, 6.25e-4, 3.125e-4}) {
      Model model = make_linear_oscillator(lp);
      const GridTrajectory g = integrate_scheme_on_grid<NonsmoothGeneralizedAlpha>(model, alpha_params(h, 0.8), 3.0);
      hs.push_back(h);
      eq.push_back(l1_grid_error(g, exact).q);
    }
    INFO("oscillator L1(q): " << eq[0] << " … " << eq.back());
    CHECK(eq.back() < 1e-2);
    CHECK(fitted_order(hs, eq) > 0.8);
  }
}

TEST_CASE("generalized-alpha exchanges the velocities of two equal rigid spheres in an elastic impact",
          "[generalized-alpha][rigid]") {
  // Rigid bodies are stepped on the Lie group (NonsmoothGeneralizedAlpha.hpp); a sphere_sphere contact between
  // two of them with e = 1 is an exact exchange of velocities, whatever the smooth part does around it.
  Model model;
  add_general_sphere(model.bodies, Eigen::Vector3d(0.0, 0.0, 0.0), 0.02, 7800.0);
  add_general_sphere(model.bodies, Eigen::Vector3d(0.045, 0.0, 0.0), 0.02, 7800.0);
  model.bodies.v[0] = Eigen::Vector3d(1.0, 0.0, 0.0);
  Interaction in;
  in.name = "pair";
  in.systems = {SystemRef{SystemFamily::Rigid, 0}, SystemRef{SystemFamily::Rigid, 1}};
  in.relation = SphereContactRelation{};
  in.law = NewtonImpactLaw{1.0};
  model.interactions.push_back(in);
  NonsmoothGeneralizedAlphaParameters p;
  p.h = 1e-4;
  p.coefficients = generalized_alpha_coefficients(1.0);
  NonsmoothGeneralizedAlpha scheme(model, p);
  for (int k = 0; k < 200; ++k) scheme.step();  // the gap of 5 mm closes at t = 5 ms
  CHECK(std::abs(model.bodies.v[0].x()) <= 1e-12);
  CHECK(std::abs(model.bodies.v[1].x() - 1.0) <= 1e-12);
  CHECK(model.interactions[0].gap[0] >= -1e-12);
  CHECK(model.bodies.x[1].x() > 0.045 + 0.01);
}
