// The exact solutions the convergence study measures against (engine/AnalyticSolutions.hpp), checked
// independently: the bouncing ball against the closed form printed in seed 000 (eqs 123–124) and against
// Newton's law at every impact; the linear impacting oscillator against an independent RK4 integration with
// event location, and against its own equation of motion and impact law.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "engine/AnalyticSolutions.hpp"

using namespace talus;

namespace {

// Seed 000 eqs 123–124 as printed: q = 1 − t² on [0, 1); on [3 − 1/2^{n−1}, 3 − 1/2^n), n >= 0,
// q = −(t − 3)² − (3/2^n)(t − 1) + (1/2^{n−1})(3 − 1/2^n), v = −2(t − 3) − 3/2^n; at rest from t = 3.
ExactState seed_closed_form(double t) {
  if (t < 1.0) return {1.0 - t * t, -2.0 * t};
  if (t >= 3.0) return {0.0, 0.0};
  for (int n = 0; n < 60; ++n) {
    const double s = std::ldexp(1.0, -n);  // 1 / 2^n
    if (t >= 3.0 - 2.0 * s && t < 3.0 - s)
      return {-(t - 3.0) * (t - 3.0) - 3.0 * s * (t - 1.0) + 2.0 * s * (3.0 - s), -2.0 * (t - 3.0) - 3.0 * s};
  }
  return {0.0, 0.0};  // within 2^-59 of t = 3
}

}  // namespace

TEST_CASE("bouncing ball: the exact solution is the closed form of seed 000 eqs 123-124", "[convergence][exact]") {
  const BouncingBallSolution ball;  // the seed's data: f = -2, e = 1/2, q0 = 1, v0 = 0
  CHECK(ball.accumulation_time() == Approx(3.0).margin(1e-15));

  const std::vector<double>& impacts = ball.impact_times();
  REQUIRE(impacts.size() >= 25);
  for (std::size_t k = 0; k < 25; ++k)  // t_k = 3 − 2^{1−k}: 1, 2, 2.5, 2.75, ...
    CHECK(impacts[k] == Approx(3.0 - std::ldexp(1.0, 1 - static_cast<int>(k))).margin(1e-15));

  // On a fine grid, away from the impacts (where the seed's formula, evaluated at a time rounded to either side
  // of the impact, may pick the other limit); the right limits at impacts are checked below.
  const double dt = 1.0 / 997.0;
  for (int i = 0; i * dt <= 4.0; ++i) {
    const double t = i * dt;
    bool near_impact = false;
    for (double tk : impacts) near_impact = near_impact || std::abs(t - tk) < 1e-9;
    if (near_impact) continue;
    const ExactState ours = ball.at(t), seed = seed_closed_form(t);
    INFO("t = " << t);
    CHECK(ours.q == Approx(seed.q).margin(1e-14));
    CHECK(ours.v == Approx(seed.v).margin(1e-13));
    CHECK(ours.q >= -1e-15);  // the constraint q >= 0 holds
  }
  // Right limits at the impact times themselves, including times that a grid i h lands on.
  CHECK(ball.at(1.0).v == Approx(1.0));
  CHECK(ball.at(2.0).v == Approx(0.5));
  CHECK(ball.at(250 * 0.01).v == Approx(0.25));
  CHECK(ball.at(3.0).v == 0.0);
}

TEST_CASE("bouncing ball: impacts obey Newton's law and the flights are free falls", "[convergence][exact]") {
  for (const BouncingBallParameters& p : {BouncingBallParameters{}, BouncingBallParameters{2.0, -9.81, 0.8, 0.3, 1.5},
                                          BouncingBallParameters{1.0, -1.0, 0.0, 2.0, 0.0}}) {
    const BouncingBallSolution ball(p);
    const double a = p.force / p.mass;
    const std::vector<double>& impacts = ball.impact_times();
    // First impact from the free fall q0 + v0 t + a t²/2 = 0.
    CHECK(p.q0 + p.v0 * impacts[0] + 0.5 * a * impacts[0] * impacts[0] == Approx(0.0).margin(1e-14));
    for (std::size_t k = 0; k < impacts.size(); ++k) {
      const double t = impacts[k];
      const ExactState before = ball.left_limit(t), after = ball.at(t);
      INFO("impact " << k << " at t = " << t);
      CHECK(before.q == Approx(0.0).margin(1e-12));
      CHECK(after.q == Approx(0.0).margin(1e-12));
      CHECK(before.v <= 0.0);
      if (k + 1 == impacts.size()) {
        // The last stored impact: the flights after it are shorter than 1e-9 max(1, t∞) and merged into rest.
        CHECK(after.v == 0.0);
        CHECK(-before.v <= -a * 1e-9 * std::max(1.0, ball.accumulation_time()) / p.restitution);
        continue;
      }
      CHECK(after.v == Approx(-p.restitution * before.v).margin(1e-14));
      // Between impacts a free fall q̈ = a: the second difference is exact for a parabola up to rounding.
      const double mid = 0.5 * (t + impacts[k + 1]), d = 0.25 * (impacts[k + 1] - t);
      const double qpp = (ball.at(mid + d).q - 2.0 * ball.at(mid).q + ball.at(mid - d).q) / (d * d);
      CHECK(qpp == Approx(a).margin(1e-14 * std::max(1.0, p.q0) / (d * d)));
      CHECK(ball.at(mid).q > 0.0);
    }
    // The series sums to t∞; afterwards the ball rests.
    CHECK(impacts.back() <= ball.accumulation_time());
    CHECK(impacts.back() == Approx(ball.accumulation_time()).margin(1e-8));
    CHECK(ball.at(ball.accumulation_time() + 0.5).q == 0.0);
    CHECK(ball.at(ball.accumulation_time() + 0.5).v == 0.0);
  }
}

namespace {

// The oscillator's right-hand side q̈ = −ω² (q − ℓ) + (F/m) cos Ω t as a first-order system.
struct OscillatorRhs {
  LinearOscillatorParameters p;
  void operator()(double t, double q, double v, double& dq, double& dv) const {
    dq = v;
    dv = (-p.stiffness * (q - p.spring_rest) + p.forcing_amplitude * std::cos(p.forcing_frequency * t)) / p.mass;
  }
};

void rk4(const OscillatorRhs& f, double t, double dt, double& q, double& v) {
  double k1q, k1v, k2q, k2v, k3q, k3v, k4q, k4v;
  f(t, q, v, k1q, k1v);
  f(t + dt / 2, q + dt / 2 * k1q, v + dt / 2 * k1v, k2q, k2v);
  f(t + dt / 2, q + dt / 2 * k2q, v + dt / 2 * k2v, k3q, k3v);
  f(t + dt, q + dt * k3q, v + dt * k3v, k4q, k4v);
  q += dt / 6 * (k1q + 2 * k2q + 2 * k3q + k4q);
  v += dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
}

// Independent reference: fixed-step RK4; a step that ends below the stop is shortened by bisection on its
// length to locate the impact, where Newton's law is applied.
std::vector<double> rk4_impact_times(const LinearOscillatorParameters& p, double horizon, double dt) {
  const OscillatorRhs f{p};
  std::vector<double> impacts;
  double t = 0.0, q = p.q0, v = p.v0;
  while (t < horizon) {
    double qn = q, vn = v;
    rk4(f, t, dt, qn, vn);
    if (qn >= 0.0) {
      t += dt;
      q = qn;
      v = vn;
      continue;
    }
    double lo = 0.0, hi = dt;
    for (int i = 0; i < 60; ++i) {
      const double mid = 0.5 * (lo + hi);
      double qm = q, vm = v;
      rk4(f, t, mid, qm, vm);
      (qm > 0.0 ? lo : hi) = mid;
    }
    rk4(f, t, hi, q, v);
    t += hi;
    impacts.push_back(t);
    q = 0.0;
    v = -p.restitution * v;
  }
  return impacts;
}

}  // namespace

TEST_CASE("linear oscillator: impact times agree with an independent RK4 integration", "[convergence][exact]") {
  const LinearOscillatorParameters p;
  const double horizon = 5.0;
  const LinearOscillatorSolution exact(p, horizon);
  const std::vector<double> reference = rk4_impact_times(p, horizon, 1e-4);
  REQUIRE(exact.impact_times().size() == 6);
  REQUIRE(reference.size() == exact.impact_times().size());
  for (std::size_t k = 0; k < reference.size(); ++k) {
    INFO("impact " << k);
    CHECK(exact.impact_times()[k] == Approx(reference[k]).margin(1e-9));
  }
}

TEST_CASE("linear oscillator: flights solve the equation of motion, impacts obey Newton's law", "[convergence][exact]") {
  for (const LinearOscillatorParameters& p :
       {LinearOscillatorParameters{}, LinearOscillatorParameters{2.0, 50.0, 0.3, -10.0, 3.0, 0.9, 0.0, 4.0}}) {
    const double horizon = 6.0;
    const LinearOscillatorSolution exact(p, horizon);
    const std::vector<double>& impacts = exact.impact_times();
    REQUIRE(!impacts.empty());
    for (double t : impacts) {
      const ExactState before = exact.left_limit(t), after = exact.at(t);
      INFO("impact at t = " << t);
      CHECK(before.q == Approx(0.0).margin(1e-13));
      CHECK(after.q == Approx(0.0).margin(1e-13));
      CHECK(before.v < 0.0);
      CHECK(after.v == Approx(-p.restitution * before.v).epsilon(1e-13));
    }
    // Equation of motion away from impacts (fourth-order central differences of q), and q >= 0 everywhere.
    const OscillatorRhs f{p};
    const double d = 1e-3, dt = 1.0 / 997.0;
    for (double t = 2 * d; t < horizon - 2 * d; t += dt) {
      CHECK(exact.at(t).q >= -1e-13);
      bool near_impact = false;
      for (double ti : impacts) near_impact = near_impact || std::abs(t - ti) < 3 * d;
      if (near_impact) continue;
      const ExactState x = exact.at(t);
      double dq, dv;
      f(t, x.q, x.v, dq, dv);
      const ExactState xm2 = exact.at(t - 2 * d), xm1 = exact.at(t - d), xp1 = exact.at(t + d),
                       xp2 = exact.at(t + 2 * d);
      const double qpp = (-xp2.q + 16 * xp1.q - 30 * x.q + 16 * xm1.q - xm2.q) / (12 * d * d);
      const double qp = (-xp2.q + 8 * xp1.q - 8 * xm1.q + xm2.q) / (12 * d);
      const double vp = (-xp2.v + 8 * xp1.v - 8 * xm1.v + xm2.v) / (12 * d);
      // Truncation ~ d⁴ ω⁶ |q| / 90 and rounding ~ 1e-16 |q| / d² stay below 1e-6 of the acceleration scale ω².
      const double scale = p.stiffness / p.mass;
      INFO("t = " << t);
      CHECK(qpp == Approx(dv).margin(1e-6 * scale));
      CHECK(vp == Approx(dv).margin(1e-6 * scale));
      CHECK(qp == Approx(x.v).margin(1e-6 * scale));
    }
  }
}

TEST_CASE("error measures: the L1 grid norm and the fitted order", "[convergence][exact]") {
  // An exact trajectory has zero error; a constant offset c on [0, T] has error c (N + 1) h = c (T + h).
  const BouncingBallSolution ball;
  GridTrajectory x;
  x.h = 0.01;
  for (int i = 0; i <= 400; ++i) {
    const ExactState s = ball.at(i * x.h);
    x.q.push_back(s.q);
    x.v.push_back(s.v);
  }
  GridError e = l1_grid_error(x, ball);
  CHECK(e.q == Approx(0.0).margin(1e-14));
  CHECK(e.v == Approx(0.0).margin(1e-14));
  for (double& q : x.q) q += 0.1;
  e = l1_grid_error(x, ball);
  CHECK(e.q == Approx(0.1 * 401 * 0.01));

  CHECK(fitted_order({1e-2, 1e-3, 1e-4}, {3e-2, 3e-3, 3e-4}) == Approx(1.0));
  CHECK(fitted_order({0.1, 0.05, 0.025}, {2e-2, 5e-3, 1.25e-3}) == Approx(2.0));
  CHECK_THROWS_AS(fitted_order({1e-2}, {1e-3}), std::invalid_argument);
  CHECK_THROWS_AS(fitted_order({1e-2, 1e-3}, {1e-3, 0.0}), std::invalid_argument);
}
