// The higher-order event-capturing scheme of seed 000 slides 108–117 (engine/adaptive/EventCapturingRk.hpp):
// RK4 between events, Moreau–Jean on the O(h^5) interval that contains each event. On the linear impacting
// oscillator its error falls faster than first order (eq 136) and reaches, with a few hundred steps, an
// accuracy Moreau–Jean does not reach with tens of thousands; on the bouncing ball the accumulation at t = 3
// is passed with a bounded number of events and the ball then rests.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "engine/AnalyticSolutions.hpp"
#include "engine/BenchmarkModels.hpp"
#include "engine/adaptive/EventCapturingRk.hpp"

using namespace talus;

namespace {

constexpr double kOscillatorHorizon = 5.0;
constexpr double kBallHorizon = 4.0;

EventCapturingParameters capturing(double h) {
  EventCapturingParameters p;
  p.h = h;
  p.moreau_jean.theta = 0.5;
  return p;
}

struct CapturedRun {
  GridTrajectory x;
  EventCapturingStats stats;
};

// integrate_scheme_on_grid's loop, keeping the scheme for its counters.
CapturedRun run(Model model, double h, double horizon) {
  CapturedRun r;
  r.x.h = h;
  r.x.q.push_back(model.lti[0].q[0]);
  r.x.v.push_back(model.lti[0].v[0]);
  EventCapturingRk scheme(model, capturing(h));
  for (long i = 0, n = std::lround(horizon / h); i < n; ++i) {
    scheme.step();
    r.x.q.push_back(model.lti[0].q[0]);
    r.x.v.push_back(model.lti[0].v[0]);
  }
  r.stats = scheme.stats();
  return r;
}

}  // namespace

TEST_CASE("Event capturing on the linear oscillator: order above one between events",
          "[adaptive][event_capturing]") {
  const LinearOscillatorSolution exact(LinearOscillatorParameters{}, kOscillatorHorizon);
  const std::vector<double> steps = {2e-2, 1e-2, 5e-3};
  std::vector<double> error_q, error_v;
  for (double h : steps) {
    const CapturedRun r = run(make_linear_oscillator(), h, kOscillatorHorizon);
    const GridError e = l1_grid_error(r.x, exact);
    error_q.push_back(e.q);
    error_v.push_back(e.v);
    INFO("h " << h << ": L1 error q " << e.q << ", v " << e.v << ", events " << r.stats.events);
    CHECK(r.stats.events == static_cast<long>(exact.impact_times().size()));
  }
  const double order_q = fitted_order(steps, error_q);
  const double order_v = fitted_order(steps, error_v);
  INFO("orders: q " << order_q << ", v " << order_v);
  CHECK(order_q > 3.0);
  CHECK(order_v > 3.0);
}

TEST_CASE("Event capturing reaches an accuracy Moreau-Jean needs far more work for",
          "[adaptive][event_capturing]") {
  const LinearOscillatorSolution exact(LinearOscillatorParameters{}, kOscillatorHorizon);
  const CapturedRun r = run(make_linear_oscillator(), 1e-2, kOscillatorHorizon);
  const double capturing_error = l1_grid_error(r.x, exact).q;
  Model model = make_linear_oscillator();
  MoreauJeanParameters p;
  p.h = 1e-4;
  p.theta = 0.5;
  const double moreau_jean_error = l1_grid_error(integrate_on_grid(model, p, kOscillatorHorizon), exact).q;
  const long moreau_jean_work = std::lround(kOscillatorHorizon / p.h);
  INFO("event capturing: work " << r.stats.work() << ", L1 error " << capturing_error
                                << "; Moreau-Jean: work " << moreau_jean_work << ", L1 error "
                                << moreau_jean_error);
  CHECK(capturing_error < moreau_jean_error);
  CHECK(r.stats.work() * 10 < moreau_jean_work);
}

TEST_CASE("Event capturing passes the accumulation of the bouncing ball", "[adaptive][event_capturing]") {
  const BouncingBallSolution exact;
  for (double h : {5e-2, 1e-2}) {
    const CapturedRun r = run(make_bouncing_ball(), h, kBallHorizon);
    INFO("h " << h << ": events " << r.stats.events << ", closed-contact steps "
              << r.stats.closed_contact_steps << ", final q " << r.x.q.back() << ", v " << r.x.v.back());
    // The impacts t_n = 3 − 2^{1−n} are located one by one until the rebound is too small to leave the
    // closed-contact test: about log2 of the ratio of the first rebound to that threshold, 40 at most.
    CHECK(r.stats.events >= 20);
    CHECK(r.stats.events <= 60);
    CHECK(std::abs(r.x.q.back()) < 1e-9);
    CHECK(std::abs(r.x.v.back()) < 1e-9);
    // Before the accumulation, the flights are integrated to RK accuracy.
    const long before = std::lround(2.5 / h);
    const ExactState s = exact.at(before * h);
    CHECK(std::abs(r.x.q[before] - s.q) < 1e-8);
  }
}

TEST_CASE("Event capturing rejects the models it cannot integrate", "[adaptive][event_capturing]") {
  Model model = make_bouncing_ball();
  model.interactions[0].law = EqualityLaw{};
  CHECK_THROWS_AS(EventCapturingRk(model, capturing(1e-2)), std::invalid_argument);
  Model ball = make_bouncing_ball();
  EventCapturingParameters p = capturing(0.0);
  CHECK_THROWS_AS(EventCapturingRk(ball, p), std::invalid_argument);
}
