// Energy behaviour of the nonsmooth generalized-α scheme (seed 004; seed 000 slides 66–68 and 74–104): with
// ρ∞ = 1 it conserves E exactly in free vibration (it is then the trapezoidal rule), with ρ∞ < 1 it dissipates
// only what the spectral radius says at the step's frequency, so the low-frequency vibration energy that
// Moreau–Jean (θ = 1) damps out is kept; impacts with e = 0 only remove energy.
#include <catch2/catch.hpp>

#include <cmath>

#include "engine/MoreauJean.hpp"
#include "engine/schemes/NonsmoothGeneralizedAlpha.hpp"
#include "engine/schemes/SchemeBenchmarkModels.hpp"

using namespace talus;

namespace {

// Two balls above the ground, no gravity, spring stretched by 0.1 m: a pure vibration of the relative mode
// (ω = sqrt(2k/m) ≈ 44.7 rad/s, ωh ≈ 0.09 at h = 2e−3).
TwoBallOscillatorParameters free_parameters() {
  TwoBallOscillatorParameters p;
  p.gravity = 0.0;
  p.height = 1.0;  // the vibration (±0.05 m) never reaches the ground
  return p;
}

Model free_vibration() {
  Model model = make_two_ball_oscillator(free_parameters());
  model.lti[0].q[1] += 0.1;
  return model;
}

double vibration_energy(const Model& m) { return two_ball_energy(m, free_parameters()); }

NonsmoothGeneralizedAlphaParameters alpha_params(double h, double rho) {
  NonsmoothGeneralizedAlphaParameters p;
  p.h = h;
  p.coefficients = generalized_alpha_coefficients(rho);
  return p;
}

}  // namespace

TEST_CASE("generalized-α with ρ∞ = 1 conserves the energy of a free vibration to round-off",
          "[schemes][generalized-alpha][energy]") {
  Model model = free_vibration();
  NonsmoothGeneralizedAlpha scheme(model, alpha_params(2e-3, 1.0));
  const double e0 = vibration_energy(model);
  double worst_step = 0.0;
  for (int i = 0; i < 2000; ++i) {
    const EnergyReport& e = scheme.step().energy;
    // Relative to the size of the terms (½qᵀKq and the preload work are ~10³ times the vibration energy).
    const double scale = std::abs(e.kinetic) + std::abs(e.potential) + std::abs(e.external_work);
    worst_step = std::max(worst_step, std::abs(e.numerical_dissipation) / scale);
  }
  INFO("E0 " << e0 << ", worst per-step relative remainder " << worst_step << ", drift " << vibration_energy(model) - e0);
  CHECK(worst_step < 1e-13);
  CHECK(std::abs(vibration_energy(model) - e0) < 1e-10 * e0);
}

TEST_CASE("generalized-α keeps the low-frequency vibration energy that Moreau–Jean θ = 1 damps",
          "[schemes][generalized-alpha][energy]") {
  const double h = 2e-3, horizon = 2.0;  // 14 periods of the relative mode
  const int steps = int(horizon / h);
  Model ma = free_vibration();
  const double e0 = vibration_energy(ma);
  NonsmoothGeneralizedAlpha alpha(ma, alpha_params(h, 0.8));
  double remainder_sum = 0.0;
  for (int i = 0; i < steps; ++i) remainder_sum += alpha.step().energy.numerical_dissipation;
  const double kept_alpha = vibration_energy(ma) / e0;

  Model mm = free_vibration();
  MoreauJeanParameters mp;
  mp.h = h;
  mp.theta = 1.0;
  MoreauJean moreau(mm, mp);
  for (int i = 0; i < steps; ++i) moreau.step();
  const double kept_moreau = vibration_energy(mm) / e0;

  INFO("energy kept after " << horizon << " s: generalized-α ρ∞ = 0.8 " << kept_alpha << ", Moreau θ = 1 "
                            << kept_moreau);
  CHECK(kept_alpha > 0.99);
  CHECK(kept_alpha <= 1.0);
  CHECK(kept_moreau < 0.05);
  // The reported remainder is exactly the energy change here (no external work, no contact).
  CHECK(remainder_sum == Approx(vibration_energy(ma) - e0).margin(1e-12 * e0));
}

TEST_CASE("generalized-α two-ball oscillator with e = 0: impacts only remove energy", "[schemes][generalized-alpha][energy]") {
  const TwoBallOscillatorParameters p;
  Model model = make_two_ball_oscillator(p);
  NonsmoothGeneralizedAlpha scheme(model, alpha_params(2e-3, 0.8));
  const double e0 = two_ball_energy(model, p);
  int impact_steps = 0;
  double worst_positive = 0.0, e_prev = e0;
  for (int i = 0; i < 1500; ++i) {
    const EnergyReport& e = scheme.step().energy;
    if (e.contact_work != 0.0) ++impact_steps;
    worst_positive = std::max(worst_positive, e.contact_work);
    REQUIRE(model.lti[0].q[0] >= -1e-12);
    e_prev = two_ball_energy(model, p);
  }
  INFO("contact steps " << impact_steps << ", largest contact work " << worst_positive << ", E " << e0 << " → "
                        << e_prev);
  CHECK(impact_steps >= 1);
  CHECK(worst_positive <= 1e-12 * e0);
  CHECK(e_prev < e0);
}
