// Schatzman–Paoli (seed 000 eqs 42–43): position-level complementarity on the weighted position, convergence on
// the exact solutions, second order in free flight for θ = ¼, and the half-step energy balance to round-off.
#include <catch2/catch.hpp>

#include <cmath>

#include "engine/AnalyticSolutions.hpp"
#include "engine/BenchmarkModels.hpp"
#include "engine/BenchmarkModels.hpp"
#include "engine/schemes/SchatzmanPaoli.hpp"
#include "engine/schemes/SchemeBenchmarkModels.hpp"

using namespace talus;

namespace {

SchatzmanPaoliParameters sp(double h, double theta = 0.25) {
  SchatzmanPaoliParameters p;
  p.h = h;
  p.theta = theta;
  return p;
}

}  // namespace

TEST_CASE("Schatzman–Paoli bouncing ball: the weighted position (q_{k+1} + e q_{k−1})/(1 + e) stays >= 0 and "
          "is 0 when an impulse acts",
          "[schemes][schatzman-paoli]") {
  BouncingBallParameters bp;
  bp.force = -9.81;
  bp.restitution = 0.8;
  Model model = make_bouncing_ball(bp);
  SchatzmanPaoli scheme(model, sp(1e-3));
  int impulses = 0;
  for (int i = 0; i < 3000; ++i) {
    const double q_prev = scheme.previous_position()[0];
    scheme.step();
    const double q = model.lti[0].q[0];
    const double weighted = (q + bp.restitution * q_prev) / (1.0 + bp.restitution);
    REQUIRE(weighted >= -1e-12);
    if (model.interactions[0].impulse[0] > 0.0) {
      ++impulses;
      CHECK(std::abs(weighted) < 1e-12);
    }
  }
  CHECK(impulses >= 3);
}

TEST_CASE("Schatzman–Paoli converges (order 2 in free flight for θ = ¼, about 1 with impacts)",
          "[schemes][schatzman-paoli]") {
  const LinearOscillatorParameters lp;
  const LinearOscillatorSolution smooth(lp, 0.25), impacting(lp, 3.0);
  std::vector<double> hs, es, ei, eb;
  const BouncingBallParameters bp;
  const BouncingBallSolution ball(bp);
  for (double h : {1e-2, 5e-3, 2.5e-3, 1.25e-3, 6.25e-4, 3.125e-4}) {
    Model m1 = make_linear_oscillator(lp), m2 = make_linear_oscillator(lp), m3 = make_bouncing_ball(bp);
    hs.push_back(h);
    es.push_back(l1_grid_error(integrate_scheme_on_grid<SchatzmanPaoli>(m1, sp(h), 0.25), smooth).q);
    ei.push_back(l1_grid_error(integrate_scheme_on_grid<SchatzmanPaoli>(m2, sp(h), 3.0), impacting).q);
    eb.push_back(l1_grid_error(integrate_scheme_on_grid<SchatzmanPaoli>(m3, sp(h), 4.0), ball).q);
  }
  INFO("free flight " << es[0] << " … " << es.back() << "; oscillator " << ei[0] << " … " << ei.back() << "; ball "
                      << eb[0] << " … " << eb.back());
  CHECK(fitted_order(hs, es) > 1.9);
  CHECK(fitted_order(hs, ei) > 0.8);
  CHECK(fitted_order(hs, eb) > 0.8);
  CHECK(ei.back() < 1e-2);
  CHECK(eb.back() < 1e-2);
}

TEST_CASE("Schatzman–Paoli half-step energy balance holds to round-off (impacts, damping, explicit θ = 0)",
          "[schemes][schatzman-paoli][energy]") {
  struct Case {
    const char* name;
    Model model;
    SchatzmanPaoliParameters p;
    int steps;
  };
  TwoBallOscillatorParameters tp;
  tp.restitution = 0.5;
  ImpactingBarParameters bar;
  bar.bar.elements = 40;
  bar.bar.rayleigh_stiffness = 1e-4;
  bar.restitution = 0.3;
  Case cases[] = {{"two balls θ = 1/4", make_two_ball_oscillator(tp), sp(2e-3), 1500},
                  {"two balls θ = 0", make_two_ball_oscillator(tp), sp(2e-3, 0.0), 1500},
                  {"damped bar", make_impacting_bar(bar), sp(2e-3), 600},
                  {"pendulum (nonlinear equality)", make_bouncing_pendulum(), sp(2e-3), 1500}};
  for (Case& c : cases) {
    SchatzmanPaoli scheme(c.model, c.p);
    double worst = 0.0, scale = 1.0;
    int impulse_steps = 0;
    for (int i = 0; i < c.steps; ++i) {
      const EnergyReport& e = scheme.step().energy;
      scale = std::max(scale, std::abs(e.total()));
      worst = std::max(worst, std::abs(e.numerical_dissipation));
      if (c.model.interactions.back().impulse[0] > 0.0) ++impulse_steps;
    }
    INFO(c.name << ": worst balance remainder " << worst << " (energy scale " << scale << ")");
    CHECK(impulse_steps >= 2);
    CHECK(worst < 1e-11 * scale);
  }
}

TEST_CASE("Schatzman–Paoli pendulum: bilateral constraints exact at position level", "[schemes][schatzman-paoli]") {
  Model model = make_bouncing_pendulum();
  SchatzmanPaoliParameters p = sp(2e-3);
  p.newton_tolerance = 1e-13;
  SchatzmanPaoli scheme(model, p);
  double drift = 0.0;
  for (int i = 0; i < 2500; ++i) {
    scheme.step();
    drift = std::max(drift, model.interactions[0].gap.lpNorm<Eigen::Infinity>());
  }
  INFO("position drift " << drift);
  CHECK(drift < 1e-10);
  CHECK(model.lti[0].q[2] == Approx(-M_PI / 4).margin(1e-3));
}
