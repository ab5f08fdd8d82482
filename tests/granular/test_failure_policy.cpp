// One failure policy (issue 11 item 3; engine/StepReport.hpp FailurePolicy, engine/granular/GranularStepper.hpp):
// a granular step whose solve fails is, by default, not applied — the model (bodies, clock, step count) and the
// warm-start caches are bitwise what they were, and StepFailure names the step, its time and where it failed —
// or, with FailurePolicy::Keep, applied and reported. A step that was rolled back can be taken again.
#include <catch2/catch.hpp>

#include <string>

#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"

using namespace talus;
using namespace talus::granular;

namespace {

struct State {
  std::uint64_t bodies = 0;
  double time = 0.0;
  long step = 0;
  std::vector<contact::ContactKey> keys, position_keys;
  std::vector<Eigen::Vector3d> impulses, position_impulses;
  bool operator==(const State&) const = default;
};

State state_of(const Model& m, GranularStepper& s) {
  return {state_hash(m.bodies), m.time, m.step, s.contact_cache().keys(), s.position_cache().keys(),
          s.contact_cache().impulses(), s.position_cache().impulses()};
}

// A falling lattice that two sweeps cannot solve to 1e-12 once it lands.
GranularParameters starved(GranularScheme scheme, FailurePolicy policy) {
  GranularParameters p;
  p.scheme = scheme;
  p.on_failure = policy;
  p.max_sweeps = 2;
  p.tolerance = 1e-12;
  return p;
}

}  // namespace

TEST_CASE("a failed granular step is rolled back bit for bit and named, under both schemes") {
  for (GranularScheme scheme : {GranularScheme::MoreauJean, GranularScheme::GeneralizedAlpha}) {
    INFO((scheme == GranularScheme::MoreauJean ? "Moreau-Jean" : "generalized-alpha"));
    BeadSpec spec;
    GranularScene sc = lattice_stack(spec, 3, 3);
    GranularStepper s(sc.model, starved(scheme, FailurePolicy::RollBack));
    long completed = 0;
    State before;
    std::string message;
    for (int k = 0; k < 400 && message.empty(); ++k) {
      before = state_of(sc.model, s);
      try {
        s.step();
        ++completed;
      } catch (const StepFailure& e) {
        message = e.what();
      }
    }
    REQUIRE_FALSE(message.empty());
    INFO(message);
    CHECK(completed > 10);  // the free fall needs no sweep
    CHECK(message.find("granular step " + std::to_string(completed + 1) + " (t = ") == 0);
    CHECK(message.find("the fastest body after it: bead id") != std::string::npos);
    // Where its residual lies (test_residual_breakdown.cpp): the contact with the largest error and the shares.
    CHECK(message.find("the largest contact error: bead id") != std::string::npos);
    CHECK(message.find("of the bead contacts' squared residual: sticking") != std::string::npos);
    CHECK(state_of(sc.model, s) == before);
    // The same step taken again fails the same way and leaves the same state.
    CHECK_THROWS_WITH(s.step(), message);
    CHECK(state_of(sc.model, s) == before);
  }
}

TEST_CASE("with FailurePolicy::Keep the failed step is applied and reported") {
  BeadSpec spec;
  GranularScene sc = lattice_stack(spec, 3, 3);
  GranularStepper s(sc.model, starved(GranularScheme::MoreauJean, FailurePolicy::Keep));
  int failed = 0;
  for (int k = 0; k < 400; ++k) {
    const GranularStepReport& r = s.step();
    if (!r.solver.converged()) {
      ++failed;
      CHECK(r.solver.message.find("granular step " + std::to_string(r.step) + " (t = ") == 0);
    }
  }
  CHECK(failed > 0);
  CHECK(sc.model.step == 400);
}

TEST_CASE("a non-finite velocity is a failure naming the body, and the state is left as it was") {
  BeadSpec spec;
  GranularScene sc = lattice_stack(spec, 3, 3);
  GranularStepper s(sc.model, GranularParameters{});
  for (int k = 0; k < 5; ++k) s.step();
  sc.model.bodies.v[4].y() = std::numeric_limits<double>::quiet_NaN();
  const State before = state_of(sc.model, s);
  try {
    s.step();
    FAIL("a NaN velocity was stepped");
  } catch (const StepFailure& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("granular step 6") == 0);
    CHECK(what.find("non-finite value:") != std::string::npos);
    CHECK(what.find("bead id " + std::to_string(sc.model.bodies.id[4])) != std::string::npos);
  }
  CHECK(state_of(sc.model, s) == before);
}

// GranularParameters::cold_retry: a solve that fails from its warm start is solved again from zero impulses. The
// same settled state is stepped twice: once from an empty cache (a cold start, S sweeps for the velocity problem),
// once from the settled run's warm start scaled by 1000 (far from the solution: 153 sweeps against 113 cold under
// Moreau–Jean, 116 against 78 under generalized-α) with max_sweeps = S, so that the warm-started solve fails and
// the retry, a cold start with the same budget, converges: the step then ends with the cold start's bits, its
// sweeps counted with the failed ones. Without the retry the same step fails.
TEST_CASE("a solve that fails from its warm start is solved again from zero impulses, under both schemes") {
  for (GranularScheme scheme : {GranularScheme::MoreauJean, GranularScheme::GeneralizedAlpha}) {
    INFO((scheme == GranularScheme::MoreauJean ? "Moreau-Jean" : "generalized-alpha"));
    BeadSpec spec;
    GranularScene settled = lattice_stack(spec, 4, 4);
    GranularParameters p;
    p.scheme = scheme;
    p.solver = GranularSolver::Anderson;
    p.tolerance = 1e-8;
    p.max_sweeps = 100000;
    GranularStepper s0(settled.model, p);
    for (int k = 0; k < 150; ++k) REQUIRE(s0.step().solver.converged());
    const contact::ContactCache& warm = s0.contact_cache();
    REQUIRE(warm.size() > 20);

    Model cold_model = settled.model;
    GranularStepper cold(cold_model, p);
    const GranularStepReport rc = cold.step();
    REQUIRE(rc.solver.converged());
    CHECK(rc.cold_retries == 0);
    const int budget = rc.solver.iterations - rc.position_sweeps;  // the velocity problem's sweeps
    INFO("cold start: " << budget << " sweeps");

    std::vector<Eigen::Vector3d> bad(warm.impulses().begin(), warm.impulses().end());
    for (Eigen::Vector3d& r : bad) r *= 1000.0;
    GranularParameters tight = p;
    tight.max_sweeps = budget;
    REQUIRE(rc.position_sweeps <= budget);  // generalized-α's position problem (from an empty cache) fits too
    for (const bool retry : {true, false}) {
      INFO("cold_retry " << retry);
      tight.cold_retry = retry;
      Model model = settled.model;
      GranularStepper s(model, tight);
      s.contact_cache().store(warm.keys().data(), bad.data(), bad.size());
      if (!retry) {
        CHECK_THROWS_AS(s.step(), StepFailure);
        continue;
      }
      const GranularStepReport r = s.step();
      REQUIRE(r.solver.converged());
      CHECK(r.cold_retries == 1);
      CHECK(r.solver.iterations == rc.solver.iterations + budget);  // the failed sweeps are counted
      // Retried from zero impulses, the step is the cold start's, bit for bit.
      CHECK(state_hash(model.bodies) == state_hash(cold_model.bodies));
      CHECK(s.contact_cache().keys() == cold.contact_cache().keys());
      CHECK(s.contact_cache().impulses() == cold.contact_cache().impulses());
    }
  }
}
