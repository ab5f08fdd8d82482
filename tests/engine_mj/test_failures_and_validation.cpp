// A step is never silently accepted: a one-step solve that does not converge raises StepFailure with the
// solver's status; bad models are rejected by Model::validate() with the system / interaction and the field
// named; unsupported law mixes are rejected clearly. Also the equality (MLCP) path on a rigid dumbbell.
#include <catch2/catch.hpp>
#include <cmath>
#include <iomanip>
#include <limits>
#include <string>

#include "MjTestModels.hpp"
#include "engine/MoreauJean.hpp"

using namespace talus;

TEST_CASE("a non-converged one-step solve raises StepFailure", "[mj][failure]") {
  Model model = mjtest::bead_chain(30, 0.0);
  MoreauJeanParameters params;
  params.h = 1e-3;
  params.solver = OneStepSolverKind::Psor;
  params.solver_max_iterations = 1;
  MoreauJean mj(model, params);
  const Vector q_before = model.lti[0].q;
  try {
    mj.step();
    FAIL("the step was accepted");
  } catch (const StepFailure& f) {
    const std::string msg = f.what();
    CHECK(msg.find("max-iterations") != std::string::npos);
    CHECK(msg.find("residual") != std::string::npos);
  }
  CHECK(model.lti[0].q == q_before);  // a failed step leaves the state untouched
  CHECK(model.time == 0.0);

  // The same problem solved by Lemke: e = 0 stops the whole chain against the wall.
  Model ok = mjtest::bead_chain(30, 0.0);
  params.solver = OneStepSolverKind::Lemke;
  params.solver_max_iterations = 10000;
  MoreauJean lemke(ok, params);
  const StepReport& rep = lemke.step();
  CHECK(rep.solver.converged());
  CHECK(rep.active == 30);
  CHECK(ok.lti[0].v.cwiseAbs().maxCoeff() <= 1e-12);
}

TEST_CASE("Model::validate names the system or interaction and the field", "[mj][validate]") {
  auto message = [](const Model& m) {
    try {
      m.validate();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  Model good = mjtest::oscillator_on_stop(1.0, 4.0, 0.0, 1.0, -0.5, 0.5);
  CHECK(message(good) == "(accepted)");

  Model nan_q = good;
  nan_q.lti[0].q[0] = std::numeric_limits<double>::quiet_NaN();
  const std::string m1 = message(nan_q);
  CHECK(m1.find("lti[0] 'oscillator'") != std::string::npos);
  CHECK(m1.find("q contains NaN") != std::string::npos);

  Model bad_ref = good;
  bad_ref.interactions[0].systems[0].index = 3;
  const std::string m2 = message(bad_ref);
  CHECK(m2.find("interaction[0] 'stop'") != std::string::npos);
  CHECK(m2.find("systems[0]") != std::string::npos);

  Model bad_rel = good;
  bad_rel.interactions[0].relation = LinearRelation{Matrix::Ones(1, 2), Vector::Zero(1)};
  const std::string m3 = message(bad_rel);
  CHECK(m3.find("relation: C is 1x2, expected 1x1") != std::string::npos);

  Model bad_e = good;
  bad_e.interactions[0].law = NewtonImpactLaw{1.5};
  CHECK(message(bad_e).find("restitution") != std::string::npos);

  Model bad_k = good;
  bad_k.lti[0].K.resize(2, 2);
  CHECK(message(bad_k).find("K is 2x2, expected 1x1") != std::string::npos);

  // The integrator validates too, before its first step.
  MoreauJeanParameters params;
  Model copy = nan_q;
  MoreauJean mj(copy, params);
  CHECK_THROWS_AS(mj.step(), std::invalid_argument);
}

TEST_CASE("equalities and friction in one step are solved together", "[mj][equality][friction]") {
  // Two unit masses falling at −1 tied by an equality (q1 = q0); the first hits a stop whose tangent row is
  // the second dof, with μ = 0.3 and e = 0. The only post-impact velocity the laws allow is 0 for both:
  // sliding would need v1 = v0 > 0, hence no normal impulse, hence no friction and no tie force, hence v =
  // −1. The impulses are not unique (the tie and the friction share the second mass's stop), so the test
  // checks the velocities and the laws, not one set of impulses.
  Model model = mjtest::oscillator_on_stop(1.0, 0.0, 0.0, -1.0, 0.0, 0.0);
  LagrangianLti& s = model.lti[0];
  s.M.resize(2, 2);
  s.M.insert(0, 0) = 1.0;
  s.M.insert(1, 1) = 1.0;
  s.q = Vector::Zero(2);
  s.v = Vector::Constant(2, -1.0);
  Matrix C(2, 2);
  C << 1, 0, 0, 1;
  model.interactions[0].relation = LinearRelation{C, Vector::Zero(2)};
  model.interactions[0].law = NewtonImpactFrictionLaw{0.0, 0.3, 2};
  Interaction tie;
  tie.name = "tie";
  tie.systems = {SystemRef{SystemFamily::Lti, 0}};
  tie.relation = LinearRelation{Matrix(Eigen::RowVector2d(1.0, -1.0)), Vector::Zero(1)};
  tie.law = EqualityLaw{1};
  model.interactions.push_back(tie);
  MoreauJean mj(model, MoreauJeanParameters{});
  mj.step();
  CHECK(std::abs(model.lti[0].v[0]) < 1e-10);
  CHECK(std::abs(model.lti[0].v[1]) < 1e-10);
  const Vector& P = model.interactions[0].impulse;
  REQUIRE(P.size() == 2);
  CHECK(P[0] >= 0.0);
  CHECK(std::abs(P[1]) <= 0.3 * P[0] + 1e-10);
}

TEST_CASE("a dumbbell held by an equality bounces as one body (MLCP path)", "[mj][equality]") {
  // Masses 1 and 2 joined by a rigid rod (q1 − q0 = 1, equality), mass 0 falls on a stop at 0 with e = 0.5.
  for (OneStepSolverKind solver : {OneStepSolverKind::Lemke, OneStepSolverKind::Psor}) {
    INFO("solver " << to_string(solver));
    Model model = mjtest::oscillator_on_stop(1.0, 0.0, 0.0, -1.0, 0.0, 0.5);
    LagrangianLti& s = model.lti[0];
    s.M.resize(2, 2);
    s.M.insert(0, 0) = 1.0;
    s.M.insert(1, 1) = 2.0;
    s.q = Vector::Zero(2);
    s.q << 0.05, 1.05;
    s.v = Vector::Constant(2, -1.0);
    model.interactions[0].relation = LinearRelation{Matrix(Eigen::RowVector2d(1.0, 0.0)), Vector::Zero(1)};
    Interaction rod;
    rod.name = "rod";
    rod.systems = {SystemRef{SystemFamily::Lti, 0}};
    rod.relation = LinearRelation{Matrix(Eigen::RowVector2d(-1.0, 1.0)), Vector::Constant(1, -1.0)};
    rod.law = EqualityLaw{1};
    model.interactions.push_back(rod);
    MoreauJeanParameters params;
    params.h = 1e-2;
    params.solver = solver;
    MoreauJean mj(model, params);
    double rod_velocity = 0.0;
    for (int k = 0; k < 20; ++k) {
      mj.step();
      rod_velocity = std::max(rod_velocity, std::abs(model.lti[0].v[1] - model.lti[0].v[0]));
    }
    INFO(std::setprecision(17) << "v = " << model.lti[0].v.transpose() << ", rod velocity " << rod_velocity);
    // PSOR stops at a residual of 1e-12 relative to 1 + ‖q‖, so its velocities are a few 1e-12 off.
    const double tol = solver == OneStepSolverKind::Lemke ? 1e-14 : 1e-10;
    CHECK(rod_velocity <= tol);
    CHECK(std::abs(model.lti[0].v[0] - 0.5) <= tol);
    CHECK(std::abs(model.lti[0].q[1] - model.lti[0].q[0] - 1.0) <= 1e-12);
  }
}

TEST_CASE("Newton iterations that do not converge raise StepFailure", "[mj][failure]") {
  // A stiff cubic spring f = −k q³ with a large step: one Newton iteration cannot meet the tolerance.
  Model model;
  LagrangianNonlinear s;
  s.name = "cubic";
  s.n = 1;
  s.mass = [](const Vector&, Matrix& M) { M(0, 0) = 1.0; };
  s.force = [](double, const Vector& q, const Vector&, Vector& f) { f[0] = -100.0 * q[0] * q[0] * q[0]; };
  s.q = Vector::Constant(1, 1.0);
  s.v = Vector::Zero(1);
  model.nonlinear.push_back(s);
  MoreauJeanParameters params;
  params.h = 0.1;
  params.newton_max_iterations = 1;
  MoreauJean mj(model, params);
  try {
    mj.step();
    FAIL("accepted");
  } catch (const StepFailure& f) {
    CHECK(std::string(f.what()).find("Newton iterations on the nonlinear systems did not converge") !=
          std::string::npos);
  }
  // With its default budget the same step converges.
  params.newton_max_iterations = 50;
  MoreauJean ok(model, params);
  CHECK(ok.step().newton_iterations > 1);
}
