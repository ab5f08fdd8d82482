// Discrete energy balance of the Moreau–Jean scheme (seed 000 eq 84) and of its dissipative variant (eq 88) on
// the linear impacting oscillator (mass–spring against a stop, forced, C = 0): the identity
//   ΔE − W̄ᵉˣᵗ = numerical dissipation + contact work
// must hold to round-off at every step, and ΔE − W̄ᵉˣᵗ <= 0 when θ ∈ [1/2, 1/(1+e)] (eq 86) or, for the variant,
// θ >= 1/2 (eq 90). Outside that range the bound must visibly fail, so these tests can fail.
#include <catch2/catch.hpp>
#include <cmath>

#include "engine/DiscreteEnergy.hpp"
#include "engine/MoreauJean.hpp"
#include "MjTestModels.hpp"

using namespace talus;

namespace {

Model forced_oscillator(double e, bool damped = false) {
  Model model = mjtest::oscillator_on_stop(1.0, 4.0, 0.0, 2.0, -0.3, e);
  model.lti[0].f_time = [](double t, Eigen::Ref<Vector> f) { f[0] += 0.5 * std::cos(1.3 * t); };
  if (damped) model.lti[0].C = mjtest::scalar_matrix(0.3);
  return model;
}

struct BalanceRun {
  double max_identity_error = 0.0;  // |ΔE − W − (dissipation + contact + damping)| / max(1, E)
  double max_supply_excess = -1e300;  // max over steps of ΔE − W̄ext
  double max_contact_work = -1e300;
  int impacts = 0;
};

BalanceRun run(double theta, double e, MoreauJeanVariant variant, bool damped = false, int steps = 4000) {
  Model model = forced_oscillator(e, damped);
  MoreauJeanParameters params;
  params.h = 2e-3;
  params.theta = theta;
  params.variant = variant;
  MoreauJean mj(model, params);
  BalanceRun r;
  double E = total_energy(model);
  for (int k = 0; k < steps; ++k) {
    const StepReport& rep = mj.step();
    const EnergyReport& en = rep.energy;
    const double E1 = en.total();
    const double lhs = E1 - E - en.external_work;
    const double rhs = en.numerical_dissipation + en.contact_work + en.damping_work;
    r.max_identity_error = std::max(r.max_identity_error, std::abs(lhs - rhs) / std::max(1.0, E1));
    r.max_supply_excess = std::max(r.max_supply_excess, lhs);
    r.max_contact_work = std::max(r.max_contact_work, en.contact_work);
    if (model.interactions[0].impulse[0] > 0.0) ++r.impacts;
    E = E1;
  }
  return r;
}

}  // namespace

TEST_CASE("eq 84: the theta-scheme energy identity holds to round-off at every step", "[mj][energy]") {
  for (double e : {0.0, 0.5, 1.0})
    for (double theta : {0.3, 0.5, 0.6, 1.0}) {
      const BalanceRun r = run(theta, e, MoreauJeanVariant::Standard);
      INFO("theta = " << theta << ", e = " << e);
      CHECK(r.impacts > 0);
      CHECK(r.max_identity_error <= 1e-13);
    }
}

TEST_CASE("eq 88: the dissipative variant's energy identity holds to round-off at every step", "[mj][energy]") {
  for (double e : {0.0, 0.5, 1.0})
    for (double theta : {0.3, 0.5, 1.0}) {
      const BalanceRun r = run(theta, e, MoreauJeanVariant::Dissipative);
      INFO("theta = " << theta << ", e = " << e);
      CHECK(r.impacts > 0);
      CHECK(r.max_identity_error <= 1e-13);
    }
}

TEST_CASE("the energy identity with damping carries the damping work", "[mj][energy]") {
  for (auto variant : {MoreauJeanVariant::Standard, MoreauJeanVariant::Dissipative, MoreauJeanVariant::Paoli}) {
    const BalanceRun r = run(0.5, 0.5, variant, true);
    INFO("variant " << to_string(variant));
    CHECK(r.impacts > 0);
    CHECK(r.max_identity_error <= 1e-13);
  }
}

TEST_CASE("eq 85-86: energy minus external work never grows for theta in [1/2, 1/(1+e)]", "[mj][energy]") {
  const double tol = 1e-13;
  CHECK(run(0.5, 0.0, MoreauJeanVariant::Standard).max_supply_excess <= tol);
  CHECK(run(0.75, 0.0, MoreauJeanVariant::Standard).max_supply_excess <= tol);
  CHECK(run(1.0, 0.0, MoreauJeanVariant::Standard).max_supply_excess <= tol);
  CHECK(run(0.5, 0.5, MoreauJeanVariant::Standard).max_supply_excess <= tol);
  CHECK(run(1.0 / 1.5, 0.5, MoreauJeanVariant::Standard).max_supply_excess <= tol);
  CHECK(run(0.5, 1.0, MoreauJeanVariant::Standard).max_supply_excess <= tol);
}

TEST_CASE("eq 89-90: the dissipative variant never gains energy for theta >= 1/2, any e", "[mj][energy]") {
  const double tol = 1e-13;
  for (double e : {0.0, 0.5, 1.0})
    for (double theta : {0.5, 0.8, 1.0}) {
      INFO("theta = " << theta << ", e = " << e);
      CHECK(run(theta, e, MoreauJeanVariant::Dissipative).max_supply_excess <= tol);
    }
}

TEST_CASE("outside the range of eq 86 the energy bound fails", "[mj][energy]") {
  // θ < 1/2: the (1/2 − θ)[‖Δv‖² + ‖Δq‖²_K] term is positive and the discrete energy grows between impacts.
  const BalanceRun low = run(0.3, 0.5, MoreauJeanVariant::Standard);
  CHECK(low.max_supply_excess > 1e-6);  // ≈ 0.2 · K (h v)², seven orders above round-off
  // θ > 1/(1+e): the contact work U_{k+θ}ᵀ P = (1 − θ(1+e)) U_k P becomes positive at impacts.
  const BalanceRun high = run(1.0, 1.0, MoreauJeanVariant::Standard);
  CHECK(high.max_contact_work > 1e-3);
  // Inside the range it never is.
  CHECK(run(0.5, 1.0, MoreauJeanVariant::Standard).max_contact_work <= 1e-13);
}
