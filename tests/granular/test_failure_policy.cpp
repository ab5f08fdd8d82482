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
