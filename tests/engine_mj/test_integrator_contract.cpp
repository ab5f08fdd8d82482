// The one integrator contract (engine/Integrator.hpp, issue 11 item 3), checked on every stepper that
// make_integrator builds: a ball dropped on a floor is stepped through `step(Model&)` and every report says
// the step, its time and size and its stages the same way; a step that fails (a NaN force switched on between
// two steps, or a one-step solver starved of iterations) is rolled back bit for bit with StepFailure naming
// the step and the system or the interactions, or kept and reported under FailurePolicy::Keep; a model other
// than the one an integrator was built on is refused.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "MjTestModels.hpp"
#include "engine/Integrator.hpp"
#include "engine/MoreauJean.hpp"
#include "engine/granular/GranularScenes.hpp"
#include "engine/schemes/GranularIntegrator.hpp"
#include "engine/schemes/NonsmoothNewmark.hpp"
#include "engine/schemes/SchemeSelection.hpp"

using namespace talus;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A unit mass 1 cm above a floor, falling at 1 m/s under gravity, e = 1/2: it hits the floor near t = 9.9 ms.
// While *poison is set, its external force is NaN.
Model dropped_ball(const bool* poison) {
  Model model;
  LagrangianLti ball;
  ball.name = "ball";
  ball.M.resize(1, 1);
  ball.M.insert(0, 0) = 1.0;
  ball.q = Vector::Constant(1, 0.01);
  ball.v = Vector::Constant(1, -1.0);
  ball.f_const = Vector::Constant(1, -9.81);
  ball.f_time = [poison](double, Eigen::Ref<Vector> f) { f[0] += *poison ? kNaN : 0.0; };
  model.lti.push_back(ball);
  Interaction floor;
  floor.name = "floor";
  floor.systems = {SystemRef{SystemFamily::Lti, 0}};
  floor.relation = LinearRelation{Matrix::Identity(1, 1), Vector::Zero(1)};
  floor.law = NewtonImpactLaw{0.5};
  model.interactions.push_back(floor);
  return model;
}

// Every value a step writes, as bytes: equal means bit for bit the same.
std::vector<unsigned char> state_bytes(const Model& m) {
  std::vector<unsigned char> out;
  const auto put = [&](const void* p, std::size_t n) {
    const auto* c = static_cast<const unsigned char*>(p);
    out.insert(out.end(), c, c + n);
  };
  const auto vec = [&](const Vector& v) {
    const Index n = v.size();
    put(&n, sizeof n);
    put(v.data(), sizeof(double) * static_cast<std::size_t>(n));
  };
  put(&m.time, sizeof m.time);
  put(&m.step, sizeof m.step);
  for (const LagrangianLti& s : m.lti) vec(s.q), vec(s.v);
  for (const Interaction& in : m.interactions) vec(in.gap), vec(in.velocity), vec(in.impulse);
  return out;
}

const SchemeKind kSmallPathKinds[] = {
    SchemeKind::MoreauJean,       SchemeKind::Newmark,        SchemeKind::Hht,
    SchemeKind::GeneralizedAlpha, SchemeKind::SchatzmanPaoli, SchemeKind::AdaptiveMoreauJean,
    SchemeKind::EventCapturingRk, SchemeKind::EventDriven};

// The schemes that keep a failed step (FailurePolicy::Keep) and name the system with the NaN.
bool keeps(SchemeKind k) {
  return k != SchemeKind::AdaptiveMoreauJean && k != SchemeKind::EventCapturingRk &&
         k != SchemeKind::EventDriven;
}

SchemeChoice choice_of(SchemeKind kind, FailurePolicy policy = FailurePolicy::RollBack) {
  SchemeChoice c;
  c.kind = kind;
  c.h = 1e-3;
  c.on_failure = policy;
  return c;
}

double sum(const PhaseSeconds& s) {
  double t = 0.0;
  for (double x : s) t += x;
  return t;
}

}  // namespace

TEST_CASE(
    "every stepper make_integrator builds steps a bouncing ball and reports step, time, size and stages "
    "alike",
    "[integrator][contract]") {
  for (SchemeKind kind : kSmallPathKinds) {
    INFO(to_string(kind));
    bool poison = false;
    Model model = dropped_ball(&poison);
    const std::unique_ptr<Integrator> integrator = make_integrator(model, choice_of(kind));
    CHECK(integrator->name() == describe(choice_of(kind)));
    CHECK(&integrator->model() == &model);
    integrator->keep_trace(true);
    constexpr long kSteps = 30;
    double previous = model.time, staged = 0.0;
    double lowest = model.lti[0].q[0], fastest_up = 0.0;
    for (long k = 1; k <= kSteps; ++k) {
      const StepReport& r = integrator->step(model);
      CHECK(r.step == k);
      CHECK(r.time == model.time);
      CHECK(r.h > 0.0);
      CHECK(std::abs(r.time - (previous + r.h)) <= 1e-15);
      CHECK(r.solver.converged());
      staged += sum(r.phase_seconds);
      previous = r.time;
      lowest = std::min(lowest, model.lti[0].q[0]);
      fastest_up = std::max(fastest_up, model.lti[0].v[0]);
    }
    CHECK(integrator->profile().steps() == kSteps);
    CHECK(staged > 0.0);
    // The profile holds every step's stages (each rounded down to the clock's tick).
    CHECK(std::abs(integrator->profile().total() - staged) <= 1e-6 + 1e-6 * staged);
    // The ball reached the floor, did not pass through it and bounced (e = 1/2: about 0.55 m/s up).
    CHECK(lowest < 2e-3);
    CHECK(lowest > -1e-3);
    CHECK(fastest_up > 0.4);
  }
}

TEST_CASE("the granular stepper through the contract: the same report, stages stamped into the profile",
          "[integrator][contract][granular]") {
  // A small lattice of beads falls onto the floor: contacts appear within the first steps.
  granular::BeadSpec spec;
  granular::GranularScene scene = granular::lattice_stack(spec, 2, 2);
  SchemeChoice c = choice_of(SchemeKind::Granular);
  const std::unique_ptr<Integrator> integrator = make_integrator(scene.model, c);
  integrator->keep_trace(true);
  constexpr long kSteps = 300;
  int most_active = 0;
  for (long k = 1; k <= kSteps; ++k) {
    const StepReport& r = integrator->step(scene.model);
    CHECK(r.step == k);
    CHECK(scene.model.step == k);
    CHECK(r.time == scene.model.time);
    CHECK(r.h == c.h);
    CHECK(r.solver.converged());
    most_active = std::max(most_active, r.active);
  }
  CHECK(most_active > 0);
  CHECK(integrator->profile().steps() == kSteps);
  CHECK(integrator->profile().total(Phase::Solve) > 0.0);
  // The derived report is reachable without a cast by those who build the adapter themselves.
  GranularIntegrator direct(scene.model, granular::GranularParameters{}, "granular");
  CHECK(direct.step(scene.model).step == kSteps + 1);
  CHECK(direct.last_report().contacts > 0);  // the beads rest on the floor by now
}

TEST_CASE("a step that fails under RollBack leaves the model bit for bit as it was and names the step",
          "[integrator][contract][failure]") {
  for (SchemeKind kind : kSmallPathKinds) {
    INFO(to_string(kind));
    bool poison = false;
    Model model = dropped_ball(&poison);
    const std::unique_ptr<Integrator> integrator = make_integrator(model, choice_of(kind));
    for (int k = 0; k < 3; ++k) integrator->step(model);
    const std::vector<unsigned char> before = state_bytes(model);
    poison = true;
    std::string message;
    try {
      integrator->step(model);
      FAIL("a step with a NaN force was accepted");
    } catch (const StepFailure& f) {
      message = f.what();
    }
    INFO(message);
    CHECK(state_bytes(model) == before);
    CHECK(message.find("step 4 (t = ") != std::string::npos);
    if (kind != SchemeKind::AdaptiveMoreauJean)  // its steps grow from h
      CHECK(message.find("step 4 (t = 0.003 -> 0.004)") != std::string::npos);
    // The system with the NaN, or the interactions of the one-step problem its NaN made unsolvable.
    if (kind != SchemeKind::EventCapturingRk && kind != SchemeKind::EventDriven)
      CHECK((message.find("LTI system 0 'ball'") != std::string::npos ||
             message.find("'floor'") != std::string::npos));
    // The scheme's own state was not advanced either: once the force is finite again the step is taken.
    poison = false;
    if (kind == SchemeKind::EventDriven) {
      CHECK_THROWS_AS(integrator->step(model), StepFailure);  // its DAE history cannot be put back (header)
      CHECK(state_bytes(model) == before);
    } else {
      const StepReport& r = integrator->step(model);
      CHECK(r.step == 4);
      CHECK(r.solver.converged());
      CHECK(model.time > 0.003);
    }
  }
}

TEST_CASE("a step that fails under Keep is applied and reported, and steppers that cannot keep refuse Keep",
          "[integrator][contract][failure]") {
  for (SchemeKind kind : kSmallPathKinds) {
    INFO(to_string(kind));
    bool poison = false;
    Model model = dropped_ball(&poison);
    if (!keeps(kind)) {
      CHECK_THROWS_AS(make_integrator(model, choice_of(kind, FailurePolicy::Keep)), std::invalid_argument);
      continue;
    }
    const std::unique_ptr<Integrator> integrator =
        make_integrator(model, choice_of(kind, FailurePolicy::Keep));
    CHECK(integrator->failure_policy() == FailurePolicy::Keep);
    for (int k = 0; k < 3; ++k) integrator->step(model);
    poison = true;
    const StepReport& r = integrator->step(model);
    CHECK(r.step == 4);
    CHECK(r.time == model.time);
    CHECK(model.time > 0.0039);
    CHECK_FALSE(r.solver.converged());
    CHECK(r.solver.message.find("step 4 (t = 0.003") != std::string::npos);
    CHECK(r.solver.message.find("LTI system 0 'ball'") != std::string::npos);
    CHECK_FALSE(std::isfinite(model.lti[0].v[0]));
  }
}

TEST_CASE("a starved one-step solver: RollBack names the interactions and Keep applies the last iterate",
          "[integrator][contract][failure]") {
  // Moreau–Jean and Newmark with projected Gauss–Seidel allowed one sweep at a round-off tolerance.
  for (FailurePolicy policy : {FailurePolicy::RollBack, FailurePolicy::Keep}) {
    for (int scheme = 0; scheme < 2; ++scheme) {
      INFO((scheme == 0 ? "Moreau-Jean" : "Newmark")
           << (policy == FailurePolicy::Keep ? ", keep" : ", roll back"));
      Model model = mjtest::bead_chain(3, 0.0);  // three touching masses on a stop
      std::unique_ptr<Integrator> integrator;
      if (scheme == 0) {
        MoreauJeanParameters p;
        p.solver = OneStepSolverKind::Psor;
        p.solver_max_iterations = 1;
        p.solver_tolerance = 1e-300;
        p.on_failure = policy;
        integrator = make_scheme_integrator<MoreauJean>(model, p, "moreau_jean");
      } else {
        NonsmoothNewmarkParameters p;
        p.lcp.method = solvers::LcpMethod::Psor;
        p.lcp.max_iterations = 1;
        p.lcp.tolerance = 1e-300;
        p.on_failure = policy;
        integrator = make_scheme_integrator<NonsmoothNewmark>(model, p, "newmark");
      }
      const std::vector<unsigned char> before = state_bytes(model);
      std::string message;
      if (policy == FailurePolicy::Keep) {
        const StepReport& r = integrator->step(model);
        CHECK(r.solver.status == solvers::SolverStatus::MaxIterations);
        CHECK(r.step == 1);
        CHECK(model.time == r.time);
        CHECK(model.time > 0.0);
        CHECK(state_bytes(model) != before);
        CHECK(model.lti[0].v.allFinite());
        message = r.solver.message;
      } else {
        try {
          integrator->step(model);
          FAIL("a step with an unsolved one-step problem was accepted");
        } catch (const StepFailure& f) {
          message = f.what();
        }
        CHECK(state_bytes(model) == before);
      }
      INFO(message);
      CHECK(message.find("step 1 (t = 0") != std::string::npos);
      CHECK(message.find("not solved") != std::string::npos);
      CHECK(message.find("'contact 0'") != std::string::npos);
      CHECK(message.find("'contact 2'") != std::string::npos);
    }
  }
}

TEST_CASE("an integrator refuses to step a model other than its own", "[integrator][contract]") {
  for (SchemeKind kind : kSmallPathKinds) {
    INFO(to_string(kind));
    bool poison = false;
    Model model = dropped_ball(&poison), other = dropped_ball(&poison);
    const std::unique_ptr<Integrator> integrator = make_integrator(model, choice_of(kind));
    const std::vector<unsigned char> mine = state_bytes(model), theirs = state_bytes(other);
    CHECK_THROWS_AS(integrator->step(other), std::invalid_argument);
    CHECK(state_bytes(model) == mine);
    CHECK(state_bytes(other) == theirs);
    CHECK(integrator->step(model).step == 1);
  }
}
