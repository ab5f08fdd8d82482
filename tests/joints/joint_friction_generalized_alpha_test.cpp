// The slider of joint_friction_test.cpp (a carriage on a rail, the ball on a vertical prismatic "mast" from it,
// resting on a frictional floor, pushed by F) under nonsmooth generalized-α with the 3-D Coulomb cone: the
// joints' equality rows and the contact meet in the scheme's friction-contact problem with equality blocks
// (NonsmoothGeneralizedAlpha.hpp). The mechanism fixes the ball's path and the floor alone carries its weight,
// N = m g, so Coulomb's law has its closed form: |F| ≤ μ m g holds the slider still; above, carriage and ball
// move together at a = (F − μ m g)/(m + m_carriage) with the friction at the cone's edge, against the motion.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>

#include "engine/StepReport.hpp"
#include "tests/joints/JointTestModels.hpp"

using namespace talus;
using namespace talus::joint_test;

namespace {

// The slider of JointTestModels.hpp with the 3-D cone.
Model slider(const Eigen::Vector3d& F) { return friction_slider(F, 3); }

}  // namespace

TEST_CASE("generalized-α, 3-D friction: a ball on a slider sticks below mu m g and slides above it",
          "[joints][friction]") {
  const double h = 1e-3, t_end = 1.0, limit = kMu * kBall * kG;
  for (const double rho : {0.0, 0.8})
    for (double ratio : {0.5, 0.99, 1.5, 3.0}) {
      // Pushed along the rail and across it (0.3 F along y), so that the 3-D cone is exercised: the rail takes
      // the cross part, only F_x drives.
      const double F = ratio * limit;
      Model model = slider(Eigen::Vector3d(F, 0.3 * F, 0.0));
      Stepper s = generalized_alpha(model, h, rho);
      const long steps = std::lround(t_end / h);
      double worst_normal = 0.0;
      for (long k = 0; k < steps; ++k) {
        s.step();
        const Vector& P = model.interactions[2].impulse;
        REQUIRE(P.size() == 3);
        worst_normal = std::max(worst_normal, std::abs(P[0] / h - kBall * kG));
      }
      const double T = model.time, x = model.bodies.x[1].x(), v = model.bodies.v[1].x();
      const double a = ratio > 1.0 ? (F - limit) / (kBall + kCarriage) : 0.0;
      std::printf("slider, generalized-α (ρ∞ = %.1f), 3-D friction, F = %.2f mu m g: x(1 s) = %.3e m, v = %.12f m/s "
                  "(exact %.12f), |N - m g| <= %.1e N\n",
                  rho, ratio, x, v, a * T, worst_normal);
      INFO("ρ∞ = " << rho << ", F = " << ratio << " mu m g");
      check_slider_motion(ratio, x, v, a, T);
      CHECK(std::abs(model.bodies.x[0].x() - x) <= 1e-10);
      CHECK(std::abs(model.bodies.x[1].y()) <= 1e-10);
      CHECK(std::abs(model.bodies.x[1].z() - kRadius) <= 1e-10);
      CHECK(worst_normal <= 1e-8 * kBall * kG);
      // The friction impulse, in the contact frame (n = z, t1 = x, t2 = y; contact/ContactFrame.hpp): when
      // sliding, at the cone's edge and against the motion, along x alone (maximal dissipation), the rail taking
      // the cross push; when stuck, its x part balances F_x (its y part is shared with the rail in any
      // proportion, so it is only checked to lie in the cone).
      const Vector& P = model.interactions[2].impulse;
      const double PT = std::hypot(P[1], P[2]);
      if (ratio > 1.0) {
        CHECK(std::abs(PT - kMu * P[0]) <= 1e-9 * P[0]);
        CHECK(std::abs(P[2]) <= 1e-9 * P[0]);
        CHECK(P[1] < 0.0);
      } else {
        CHECK(std::abs(P[1] / h + F) <= 1e-8 * F);
        CHECK(PT <= kMu * P[0] * (1.0 + 1e-12));
      }
    }
}
