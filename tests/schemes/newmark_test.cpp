// Nonsmooth Newmark / HHT (seed 000 eqs 68–73): impact law in one step, convergence on the exact solutions,
// second order in free flight for γ = ½, and the discrete energy identities of eqs 95 (Newmark) and 104 (HHT)
// to round-off on LTI systems with impacts (with and without Rayleigh damping).
#include <catch2/catch.hpp>

#include <cmath>

#include "engine/AnalyticSolutions.hpp"
#include "engine/BenchmarkModels.hpp"
#include "engine/BenchmarkModels.hpp"
#include "engine/schemes/NonsmoothNewmark.hpp"
#include "engine/schemes/SchemeBenchmarkModels.hpp"

using namespace talus;

namespace {

NonsmoothNewmarkParameters newmark(double h, double gamma, double beta) {
  NonsmoothNewmarkParameters p;
  p.h = h;
  p.gamma = gamma;
  p.beta = beta;
  return p;
}

// Largest |Δ(E + algorithmic) − (W_ext + W_damp + W_contact + dissipation)| over `steps`, relative to the
// energy scale, and the number of steps with a nonzero impulse.
struct BalanceCheck {
  double worst = 0.0;
  int impact_steps = 0;
};

BalanceCheck check_balance(Model& model, const NonsmoothNewmarkParameters& p, int steps) {
  NonsmoothNewmark scheme(model, p);
  const LagrangianLti& s = model.lti[0];
  const double h = p.h;
  const Vector& a0 = scheme.acceleration();
  double stored = 0.5 * s.v.dot(s.M * s.v) + 0.5 * s.q.dot(s.K * s.q) +
                  0.25 * h * h * (2 * p.beta - p.gamma) * a0.dot(s.M * a0);
  const double scale = 1.0 + std::abs(stored);
  BalanceCheck out;
  for (int i = 0; i < steps; ++i) {
    const EnergyReport& e = scheme.step().energy;
    const double now = e.total() + e.algorithmic;
    const double residual = (now - stored) - (e.external_work + e.damping_work + e.contact_work + e.numerical_dissipation);
    out.worst = std::max(out.worst, std::abs(residual) / scale);
    if (model.interactions[0].impulse[0] != 0.0) ++out.impact_steps;
    stored = now;
  }
  return out;
}

}  // namespace

TEST_CASE("Newmark/HHT bouncing ball: post-impact velocity −e v⁻ in one step", "[schemes][newmark]") {
  for (const NonsmoothNewmarkParameters& p : {newmark(1e-3, 0.5, 0.25), newmark(1e-3, 1.0, 0.5), hht_parameters(1e-3, 0.1)}) {
    BouncingBallParameters bp;
    bp.force = -9.81;
    bp.restitution = 0.8;
    Model model = make_bouncing_ball(bp);
    NonsmoothNewmark scheme(model, p);
    int impacts = 0;
    for (int i = 0; i < 3000; ++i) {
      const double v_before = model.lti[0].v[0];
      scheme.step();
      if (model.interactions[0].impulse[0] > 0.0 && v_before < -1.0) {
        ++impacts;
        CHECK(model.lti[0].v[0] == Approx(-bp.restitution * v_before).epsilon(1e-12));
      }
      // Velocity-level constraints: the penetration stays O(h |v|).
      REQUIRE(model.lti[0].q[0] > -1e-3 * 5.0);
    }
    CHECK(impacts >= 3);
  }
}

TEST_CASE("Newmark energy identity (seed 000 eq 95) holds to round-off with impacts", "[schemes][newmark][energy]") {
  TwoBallOscillatorParameters tp;
  tp.restitution = 0.5;
  for (const auto& [gamma, beta] : {std::pair{0.5, 0.25}, std::pair{1.0, 0.5}, std::pair{0.9, 0.49}, std::pair{0.6, 0.2}}) {
    Model model = make_two_ball_oscillator(tp);
    const BalanceCheck b = check_balance(model, newmark(2e-3, gamma, beta), 1500);
    INFO("gamma " << gamma << " beta " << beta << ": worst balance residual " << b.worst);
    CHECK(b.impact_steps >= 2);
    CHECK(b.worst < 1e-11);
  }
}

TEST_CASE("HHT energy identity (seed 000 eqs 103–104) holds to round-off with impacts and damping",
          "[schemes][newmark][energy]") {
  for (double alpha : {0.05, 0.1, 0.3}) {
    TwoBallOscillatorParameters tp;
    tp.restitution = 0.3;
    Model model = make_two_ball_oscillator(tp);
    const BalanceCheck b = check_balance(model, hht_parameters(2e-3, alpha), 1500);
    INFO("alpha " << alpha << ": worst balance residual " << b.worst);
    CHECK(b.impact_steps >= 2);
    CHECK(b.worst < 1e-11);
  }
  {
    ImpactingBarParameters bp;
    bp.bar.elements = 40;
    bp.bar.rayleigh_mass = 0.1;
    bp.bar.rayleigh_stiffness = 1e-4;
    Model model = make_impacting_bar(bp);
    const BalanceCheck b = check_balance(model, hht_parameters(2e-3, 0.1), 600);
    INFO("damped bar: worst balance residual " << b.worst);
    CHECK(b.impact_steps >= 10);
    CHECK(b.worst < 1e-11);
  }
}

TEST_CASE("Newmark: a corrupted energy term breaks the identity (the check can fail)", "[schemes][newmark][energy]") {
  TwoBallOscillatorParameters tp;
  tp.restitution = 0.5;
  Model model = make_two_ball_oscillator(tp);
  NonsmoothNewmark scheme(model, newmark(2e-3, 0.9, 0.49));  // 2β − γ ≠ 0: the storage of eq 93 is not zero
  const LagrangianLti& s = model.lti[0];
  double stored_plain = 0.5 * s.v.dot(s.M * s.v) + 0.5 * s.q.dot(s.K * s.q);
  double worst = 0.0;
  for (int i = 0; i < 1500; ++i) {
    const EnergyReport& e = scheme.step().energy;
    // Leaving the algorithmic storage of eq 93 out must show up as a residual of the size of that term.
    const double residual = (e.total() - stored_plain) - (e.external_work + e.damping_work + e.contact_work + e.numerical_dissipation);
    worst = std::max(worst, std::abs(residual));
    stored_plain = e.total();
  }
  INFO("worst residual without the algorithmic storage: " << worst);
  CHECK(worst > 1e-6);
}

TEST_CASE("Newmark γ = ½ and HHT are second order in free flight, and all converge through impacts",
          "[schemes][newmark]") {
  const LinearOscillatorParameters lp;
  const LinearOscillatorSolution smooth(lp, 0.25), impacting(lp, 3.0);
  for (const NonsmoothNewmarkParameters& base : {newmark(0, 0.5, 0.25), hht_parameters(0, 0.1)}) {
    std::vector<double> hs, es, ei;
    for (double h : {1e-2, 5e-3, 2.5e-3, 1.25e-3, 6.25e-4, 3.125e-4}) {
      NonsmoothNewmarkParameters p = base;
      p.h = h;
      Model m1 = make_linear_oscillator(lp);
      Model m2 = make_linear_oscillator(lp);
      hs.push_back(h);
      es.push_back(l1_grid_error(integrate_scheme_on_grid<NonsmoothNewmark>(m1, p, 0.25), smooth).q);
      ei.push_back(l1_grid_error(integrate_scheme_on_grid<NonsmoothNewmark>(m2, p, 3.0), impacting).q);
    }
    INFO("alpha " << base.alpha << ": free flight " << es[0] << " … " << es.back() << ", impacts " << ei[0] << " … "
                  << ei.back());
    CHECK(fitted_order(hs, es) > 1.9);
    CHECK(fitted_order(hs, ei) > 0.8);
    CHECK(ei.back() < 1e-2);
  }
  {
    // γ = 1: first order even in free flight (seed 000 slide 52).
    std::vector<double> hs, es;
    for (double h : {1e-2, 5e-3, 2.5e-3, 1.25e-3}) {
      Model m = make_linear_oscillator(lp);
      hs.push_back(h);
      es.push_back(l1_grid_error(integrate_scheme_on_grid<NonsmoothNewmark>(m, newmark(h, 1.0, 0.5), 0.25), smooth).q);
    }
    CHECK(fitted_order(hs, es) == Approx(1.0).margin(0.15));
  }
}
