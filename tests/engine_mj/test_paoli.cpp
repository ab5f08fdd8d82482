// Paoli's velocity-based scheme (seed 001) against its discrete closed form for the bouncing ball
// (M = 1, f = 0, K = R+, q0 = 1, u0 = −1): with p = max{k : q_i > 0 for i <= k},
//   q_{i+1} = 1 − (i+1) h, u_i = −1 for i <= p;   q_i = 1 − (p+1) h + e (i − p − 1) h, u_i = e for i >= p+1.
#include <catch2/catch.hpp>
#include <cmath>

#include "engine/MoreauJean.hpp"
#include "MjTestModels.hpp"

using namespace talus;

namespace {

void check_closed_form(double h, double e, OneStepSolverKind solver) {
  Model model = mjtest::oscillator_on_stop(1.0, 0.0, 1.0, -1.0, 0.0, e);
  MoreauJeanParameters params;
  params.h = h;
  params.variant = MoreauJeanVariant::Paoli;
  params.solver = solver;
  MoreauJean mj(model, params);

  // p from the recursion q_{i+1} = q_i − h of the free flight (the discrete positions, not 1 − i h, so that the
  // exact sequence of floating-point subtractions matches the scheme).
  long p = 0;
  {
    double q = 1.0;
    while (q - h > 0.0) {
      q -= h;
      ++p;
    }
  }
  const long steps = 2 * p + 20;
  double max_err_q = 0.0, max_err_u = 0.0;
  for (long i = 1; i <= steps; ++i) {
    mj.step();
    const double q = model.lti[0].q[0], u = model.lti[0].v[0];
    const double q_exact = i <= p + 1 ? 1.0 - i * h : 1.0 - (p + 1) * h + e * (i - p - 1) * h;
    const double u_exact = i <= p ? -1.0 : e;
    max_err_q = std::max(max_err_q, std::abs(q - q_exact));
    max_err_u = std::max(max_err_u, std::abs(u - u_exact));
  }
  INFO("h = " << h << ", e = " << e << ", p = " << p);
  CHECK(max_err_q <= 1e-12);
  CHECK(max_err_u <= 1e-14);
}

}  // namespace

TEST_CASE("Paoli scheme reproduces the discrete bouncing-ball closed form of seed 001", "[mj][paoli]") {
  for (double e : {0.0, 0.5, 0.9, 1.0})
    for (double h : {0.03, 0.0071, 0.125}) check_closed_form(h, e, OneStepSolverKind::Lemke);
  check_closed_form(0.0071, 0.5, OneStepSolverKind::Psor);
}

TEST_CASE("Paoli scheme differs from the standard θ-scheme on the same ball", "[mj][paoli]") {
  // The closed form above is specific to Paoli's positions-first update: the standard scheme with θ = 1 must
  // not reproduce it (so the Paoli test above can fail).
  Model model = mjtest::oscillator_on_stop(1.0, 0.0, 1.0, -1.0, 0.0, 0.5);
  MoreauJeanParameters params;
  params.h = 0.03;
  params.theta = 1.0;
  MoreauJean mj(model, params);
  for (int i = 0; i < 60; ++i) mj.step();
  const double paoli_q = 1.0 - 34 * 0.03 + 0.5 * (60 - 34) * 0.03;  // p = 33
  CHECK(std::abs(model.lti[0].q[0] - paoli_q) > 1e-3);
}
