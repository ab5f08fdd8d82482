// Joints and Coulomb friction in one model (issue 11): a mechanism whose body rests on a frictional floor,
// stepped by Moreau–Jean (the one-step friction problem with equality blocks, engine/OneStepSolve.hpp and
// solvers/fc/MixedNsgs.hpp) and by nonsmooth generalized-α (its own MLCP with planar friction), each against
// Coulomb's law in closed form.
//
// Why the floor's body is not the joint's body: a joint that holds a body's height (a horizontal prismatic
// joint, a revolute joint about the vertical) shares the body's weight with the floor in any proportion, so
// the normal force, and with it the friction, is not determined by the laws. In both models below the ball
// hangs on a vertical prismatic joint (the "mast") from the body the mechanism moves (a carriage on a rail,
// an arm turned by a driver): the mechanism fixes the ball's horizontal path and its orientation, the floor
// alone carries its weight, N = m g.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <numbers>

#include "engine/StepReport.hpp"
#include "tests/joints/JointTestModels.hpp"

using namespace talus;
using namespace talus::joint_test;

namespace {

// The slider of JointTestModels.hpp pushed along the rail.
Model slider(double F, int dim) { return friction_slider(Eigen::Vector3d(F, 0, 0), dim); }

}  // namespace

TEST_CASE("a ball on a slider pushed across a frictional floor sticks below mu m g and slides above it",
          "[joints][friction]") {
  // Coulomb: |F| <= μ N holds the slider (no motion at all); above, the carriage and the ball move together
  // with a = (F − μ m g)/(m + m_carriage), N = m g the ball's weight.
  const double h = 1e-3, t_end = 1.0, limit = kMu * kBall * kG;
  // Runs: Moreau–Jean with the 3-D cone, generalized-α, Moreau–Jean with planar friction (the same mixed
  // problem with dim 2).
  for (int scheme = 0; scheme < 3; ++scheme)
    for (double ratio : {0.5, 0.99, 1.5, 3.0}) {
      const char* name = scheme == 0   ? "Moreau-Jean"
                         : scheme == 1 ? "generalized-alpha"
                                       : "Moreau-Jean, dim 2";
      INFO(name << ", F = " << ratio << " mu m g");
      const double F = ratio * limit;
      // Moreau–Jean solves the cone in 3-D; generalized-α has planar friction only, whose tangent for the
      // normal z is x (contact/ContactFrame.hpp), the rail's direction.
      Model model = slider(F, scheme == 0 ? 3 : 2);
      Stepper s = scheme == 1 ? generalized_alpha(model, h, 0.8) : moreau_jean(model, h);
      const long steps = std::lround(t_end / h);
      double worst_normal = 0.0;
      for (long k = 0; k < steps; ++k) {
        s.step();
        const Vector& P = model.interactions[2].impulse;
        REQUIRE(P.size() >= 2);
        worst_normal = std::max(worst_normal, std::abs(P[0] / h - kBall * kG));
      }
      const double T = model.time, x = model.bodies.x[1].x(), v = model.bodies.v[1].x();
      const double a = ratio > 1.0 ? (F - limit) / (kBall + kCarriage) : 0.0;
      std::printf(
          "slider on a frictional floor, %s, F = %.2f mu m g: x(1 s) = %.3e m, v = %.12f m/s (exact %.12f), "
          "|N - m g| <= %.1e N, ball height %.3e m off\n",
          name, ratio, x, v, a * T, worst_normal, std::abs(model.bodies.x[1].z() - kRadius));
      check_slider_motion(ratio, x, v, a, T);
      // The carriage follows the ball (one rigid mechanism along x), the ball stays on the floor, carries its
      // whole weight, and the friction is at the cone's edge when it slides.
      CHECK(std::abs(model.bodies.x[0].x() - x) <= 1e-10);
      CHECK(std::abs(model.bodies.x[1].z() - kRadius) <= 1e-10);
      CHECK(worst_normal <= 1e-8 * kBall * kG);
      const Vector& P = model.interactions[2].impulse;
      if (ratio > 1.0) CHECK(std::abs(std::abs(P[1]) - kMu * P[0]) <= 1e-9 * P[0]);
      if (ratio < 1.0) CHECK(std::abs(P[1] / h + F) <= 1e-8 * F);
    }
}

TEST_CASE("a driven arm drags a ball across a frictional floor: the driver's torque is mu m g L",
          "[joints][friction][driver]") {
  // A hub on a revolute joint about the vertical z axis through the origin, turned at ω by a driver; the ball
  // hangs from the hub at horizontal distance L on a vertical prismatic joint and rests on the floor. At
  // constant ω the system's angular momentum about z is constant, so the driver's torque balances the
  // friction's alone: τ = μ N L with N = m g, the friction opposing the ball's velocity ω L (tangential).
  // Moreau–Jean adds one term of order h, which the test takes in closed form: a step's velocity is tangent
  // to the circle at the step's start, q_k, and the positions turn by ωh per step, so each step also turns
  // the ball's momentum m ω ρ by the angle ωh; its moment about the axis changes by m ρ² ω (1 − cos ωh),
  // which the driver supplies: τ_h = μ m g ρ + m ρ² ω (1 − cos ωh)/h (2.0e-3 N m, 5e-4 of τ, at h = 1e-3 s).
  const double h = 1e-3, L = 0.5, omega = 2.0;
  Model model;
  model.gravity = Eigen::Vector3d(0, 0, -kG);
  add_ball(model, Eigen::Vector3d(0, 0, 0.3), 1.0, 0.05);
  add_ball(model, Eigen::Vector3d(L, 0, kRadius), kBall, kRadius);
  add_joint(model, "hub", JointKind::Revolute, 0, -1, Eigen::Vector3d(0, 0, 0.3), Eigen::Vector3d::UnitZ());
  add_joint(model, "drive", JointKind::Driver, 0, -1, Eigen::Vector3d(0, 0, 0.3), Eigen::Vector3d::UnitZ(),
            omega);
  add_joint(model, "mast", JointKind::Prismatic, 1, 0, Eigen::Vector3d(L, 0, kRadius),
            Eigen::Vector3d::UnitZ());
  add_floor(model, 1, 3);
  Stepper s = moreau_jean(model, h);
  const double expected = kMu * kBall * kG * L;
  double worst_torque = 0.0, worst_direction = 0.0, worst_speed = 0.0;
  int most_sweeps = 0;
  for (long k = 0; k < 1000; ++k) {
    most_sweeps = std::max(most_sweeps, s.mj->step().solver.iterations);
    if (k < 10) continue;  // the driver's first step is the impulsive start to ω
    const double tau = std::abs(model.interactions[1].impulse[0]) / h;
    const Eigen::Vector3d x = model.bodies.x[1];
    const double rho = std::hypot(x.x(), x.y());  // the arm's present length (joint drift aside)
    const double turning = kBall * rho * rho * omega * (1.0 - std::cos(omega * h)) / h;
    worst_torque = std::max(worst_torque, std::abs(tau - kMu * kBall * kG * rho - turning));
    // The friction impulse (contact frame: n, t1, t2) opposes the sliding velocity U_T of the step, at the
    // edge of the cone.
    const Vector& P = model.interactions[3].impulse;
    const Vector& U = model.interactions[3].velocity;
    REQUIRE(P.size() == 3);
    REQUIRE(U.size() == 3);
    const Eigen::Vector2d PT(P[1], P[2]), UT(U[1], U[2]);
    worst_direction = std::max(worst_direction, (PT / PT.norm() + UT / UT.norm()).norm());
    worst_speed = std::max(worst_speed, std::abs(model.bodies.v[1].norm() - omega * rho));
    CHECK(std::hypot(P[1], P[2]) == Approx(kMu * P[0]).epsilon(1e-9));
    CHECK(P[0] / h == Approx(kBall * kG).epsilon(1e-8));
  }
  const double turned = std::atan2(model.bodies.x[1].y(), model.bodies.x[1].x());
  std::printf(
      "driven arm on a frictional floor (Moreau-Jean): |tau - mu m g L - turning| <= %.2e N m (mu m g L = "
      "%.6f N m), "
      "friction against the slip within %.1e rad, |speed - omega L| <= %.1e m/s, angle %.6f rad at t = %.3f "
      "s, at "
      "most %d sweeps a step\n",
      worst_torque, expected, worst_direction, worst_speed, turned, model.time, most_sweeps);
  CHECK(worst_torque <= 1e-8 * expected);
  CHECK(worst_direction <= 1e-9);
  // The hub, its driver and the mast are one mechanism, solved as one block (MixedNsgs.hpp): joint by joint,
  // block Gauss–Seidel did not reach the tolerance in 10⁴ sweeps on this light hub and heavy ball.
  CHECK(most_sweeps <= 20);
  CHECK(worst_speed <= 1e-9);
  CHECK(std::abs(model.bodies.x[1].z() - kRadius) <= 1e-10);
  CHECK(std::hypot(model.bodies.x[1].x(), model.bodies.x[1].y()) == Approx(L).epsilon(1e-9));
}

TEST_CASE("a mechanism with friction whose joints contradict each other fails naming the step and the joints",
          "[joints][friction][failure]") {
  // Two drivers on one hub at different rates: no velocity satisfies both, whatever the friction does.
  Model model;
  model.gravity = Eigen::Vector3d(0, 0, -kG);
  add_ball(model, Eigen::Vector3d(0, 0, 0.3), 1.0, 0.05);
  add_ball(model, Eigen::Vector3d(0.5, 0, kRadius), kBall, kRadius);
  add_joint(model, "hub", JointKind::Revolute, 0, -1, Eigen::Vector3d(0, 0, 0.3), Eigen::Vector3d::UnitZ());
  add_joint(model, "slow drive", JointKind::Driver, 0, -1, Eigen::Vector3d(0, 0, 0.3),
            Eigen::Vector3d::UnitZ(), 1.0);
  add_joint(model, "fast drive", JointKind::Driver, 0, -1, Eigen::Vector3d(0, 0, 0.3),
            Eigen::Vector3d::UnitZ(), 2.0);
  add_joint(model, "mast", JointKind::Prismatic, 1, 0, Eigen::Vector3d(0.5, 0, kRadius),
            Eigen::Vector3d::UnitZ());
  add_floor(model, 1, 3);
  MoreauJeanParameters p;
  p.h = 1e-3;
  p.solver_max_iterations = 200;
  MoreauJean mj(model, p);
  try {
    mj.step();
    FAIL("accepted");
  } catch (const StepFailure& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("step 1") != std::string::npos);
    CHECK(what.find("equality rows") != std::string::npos);
    CHECK(what.find("'slow drive'") != std::string::npos);
    CHECK(what.find("'fast drive'") != std::string::npos);
  }
}
