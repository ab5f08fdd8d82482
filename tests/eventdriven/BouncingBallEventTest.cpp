// The event-driven scheme on the bouncing ball of seed 000 (eq 122: v̇ = −2 + λ, e = 1/2, q₀ = 1, v₀ = 0):
// the impact times are t_n = 3 − 2^(1−n) (engine/AnalyticSolutions.hpp) and accumulate at t = 3. Required
// (issue 6): the first 20 impacts within 1e−10 of the exact times, at every integration tolerance from 1e−4
// to 1e−12 and for every DAE integrator; the accumulation handled without stalling; the ball at rest after
// t = 3 with a small error.
#include <catch2/catch.hpp>

#include <cmath>

#include "engine/AnalyticSolutions.hpp"
#include "engine/BenchmarkModels.hpp"
#include "engine/eventdriven/EventDriven.hpp"

using namespace talus;
using namespace talus::eventdriven;

namespace {

struct BallRun {
  std::vector<double> impact_times;
  double q_end = 0.0, v_end = 0.0;
  EventDrivenReport report;
};

BallRun run_ball(DaeMethod method, double tolerance, double t_end) {
  Model model = make_bouncing_ball();
  EventDrivenParameters p;
  p.dae.method = method;
  p.dae.control.tolerance = tolerance;
  EventDriven ed(model, p);
  ed.advance_to(t_end);
  BallRun out;
  out.report = ed.report();
  for (const EventRecord& r : out.report.log)
    if (r.kind == EventKind::Impact || r.kind == EventKind::Rest) out.impact_times.push_back(r.time);
  out.q_end = model.lti[0].q[0];
  out.v_end = model.lti[0].v[0];
  return out;
}

}  // namespace

TEST_CASE("event-driven bouncing ball: first 20 impact times to 1e-10 at every tolerance", "[eventdriven]") {
  const BouncingBallSolution exact;
  const auto method = GENERATE(DaeMethod::Hem5, DaeMethod::Rkf45, DaeMethod::GeneralizedAlpha);
  const double tol = GENERATE(1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12);
  const BallRun run = run_ball(method, tol, 4.0);
  INFO(to_string(method) << ", tolerance " << tol << ": " << run.impact_times.size() << " impacts, "
                         << run.report.smooth_steps << " smooth steps, " << run.report.rest_switches
                         << " rest switch(es)");
  REQUIRE(run.impact_times.size() >= 20);
  double worst = 0.0;
  for (int n = 0; n < 20; ++n) {
    const double expected = 3.0 - std::pow(2.0, 1.0 - n);
    CHECK(exact.impact_times()[static_cast<size_t>(n)] == Approx(expected).margin(1e-14));
    worst = std::max(worst, std::abs(run.impact_times[static_cast<size_t>(n)] - expected));
  }
  INFO("worst impact-time error over the first 20 impacts: " << worst);
  CHECK(worst <= 1e-10);
  // Accumulation: the scheme switched to rest before t = 3 and never stalled; after t = 3 the exact ball rests.
  CHECK(run.report.rest_switches == 1);
  CHECK(run.impact_times.back() < 3.0);
  CHECK(run.report.events < 40);  // 32 impacts + the closing: no stall in front of t = 3
  CHECK(std::abs(run.q_end) <= 1e-12);
  CHECK(std::abs(run.v_end) <= 1e-12);
}

TEST_CASE("event-driven bouncing ball: state between impacts follows the exact flights", "[eventdriven]") {
  const BouncingBallSolution exact;
  Model model = make_bouncing_ball();
  EventDrivenParameters p;
  p.dae.control.tolerance = 1e-8;
  EventDriven ed(model, p);
  for (double t : {0.5, 1.3, 2.2, 2.9, 2.999, 3.5}) {
    ed.advance_to(t);
    const ExactState e = exact.at(t);
    INFO("t = " << t);
    CHECK(model.lti[0].q[0] == Approx(e.q).margin(1e-12));
    CHECK(model.lti[0].v[0] == Approx(e.v).margin(1e-11));
  }
  CHECK(ed.closed_interactions() == std::vector<int>{0});
}
