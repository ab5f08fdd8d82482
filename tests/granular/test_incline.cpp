// A bead on a rough incline (issue 4 physics list; seed 004 Coulomb's law). A sphere cannot stick like a block:
// below tan θ = (7/2) μ it rolls without slipping with a = (5/7) g sin θ, above it slides with
// a = g (sin θ − μ cos θ) while friction spins it up at α = 5 μ g cos θ / (2 r). Both regimes are checked
// against these closed forms, and a frictionless wall against a = g sin θ. A bead whose rotation is locked
// (infinite inertia) is a sliding block: it sticks below tan θ = μ, the friction force then balancing the
// slope's pull exactly, and slides above with a = g (sin θ − μ cos θ); checked one degree either side of the
// threshold. The incline is the plane z = 0 with gravity tilted by θ.
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>

#include "engine/granular/GranularStepper.hpp"
#include "tests/granular/InclineModel.hpp"

using namespace talus::granular;
using talus::Model;

namespace {

struct Motion {
  double acceleration, spin_rate;
  double normal_force = 0.0, friction_force = 0.0;  // last step's contact force [N]
  double mass = 0.0;
  bool converged = true;
};

Motion roll_down(double theta_deg, double mu, bool rotation_locked = false) {
  const double r = 0.01;
  Model m = testing::incline_model(theta_deg, mu, rotation_locked, r);
  GranularParameters p;
  p.h = 1e-3;
  p.tolerance = 1e-10;
  GranularStepper s(m, p);
  Motion out;
  const int steps = 200;
  for (int k = 0; k < steps; ++k) out.converged = out.converged && s.step().solver.converged();
  const double t = steps * p.h;
  out.acceleration = m.bodies.v[0].x() / t;
  out.spin_rate = m.bodies.w[0].y() / t;  // rolling in +x spins about +y
  out.mass = m.bodies.mass[0];
  REQUIRE(s.contacts().size() == 1);
  const SweepContact& c = s.contacts()[0];
  const Eigen::Vector3d f = (c.r[0] * c.n + c.r[1] * c.t1 + c.r[2] * c.t2) / p.h;
  out.normal_force = f.z();
  out.friction_force = f.x();
  CHECK(std::abs(m.bodies.x[0].z() - r) <= 1e-6 * r);
  return out;
}

}  // namespace

TEST_CASE("a bead below tan θ = 3.5 μ rolls without slipping") {
  const double th = 30.0, mu = 0.3, g = 9.81;  // tan 30° = 0.58 < 1.05
  const Motion m = roll_down(th, mu);
  CHECK(m.converged);
  const double a = 5.0 / 7.0 * g * std::sin(th * std::numbers::pi / 180.0);
  CHECK(m.acceleration == Approx(a).epsilon(1e-3));
  CHECK(m.spin_rate == Approx(a / 0.01).epsilon(1e-3));
}

TEST_CASE("a bead above tan θ = 3.5 μ slides with a = g (sin θ − μ cos θ)") {
  const double th = 60.0, mu = 0.3, g = 9.81;  // tan 60° = 1.73 > 1.05
  const Motion m = roll_down(th, mu);
  CHECK(m.converged);
  const double c = std::cos(th * std::numbers::pi / 180.0), s = std::sin(th * std::numbers::pi / 180.0);
  CHECK(m.acceleration == Approx(g * (s - mu * c)).epsilon(1e-3));
  CHECK(m.spin_rate == Approx(5.0 * mu * g * c / (2.0 * 0.01)).epsilon(1e-3));
}

TEST_CASE("a bead on a frictionless incline slides with a = g sin θ and no spin") {
  const Motion m = roll_down(20.0, 0.0);
  CHECK(m.acceleration == Approx(9.81 * std::sin(20.0 * std::numbers::pi / 180.0)).epsilon(1e-6));
  CHECK(std::abs(m.spin_rate) <= 1e-9);
}

TEST_CASE("a non-rotating bead (a block) sticks below tan θ = μ, friction balancing the slope exactly") {
  const double mu = 0.3, g = 9.81, th = std::atan(mu) * 180.0 / std::numbers::pi - 1.0;  // 15.7°
  const Motion m = roll_down(th, mu, true);
  CHECK(m.converged);
  const double c = std::cos(th * std::numbers::pi / 180.0), s = std::sin(th * std::numbers::pi / 180.0);
  CHECK(std::abs(m.acceleration) <= 1e-9);
  CHECK(std::abs(m.spin_rate) <= 1e-12);
  CHECK(m.normal_force == Approx(m.mass * g * c).epsilon(1e-6));
  CHECK(m.friction_force == Approx(-m.mass * g * s).epsilon(1e-6));
  CHECK(std::abs(m.friction_force) < mu * m.normal_force);
}

TEST_CASE("a non-rotating bead (a block) slides above tan θ = μ with a = g (sin θ − μ cos θ)") {
  const double mu = 0.3, g = 9.81;
  for (double th : {std::atan(mu) * 180.0 / std::numbers::pi + 1.0, 30.0, 60.0}) {
    INFO("theta = " << th << " deg");
    const Motion m = roll_down(th, mu, true);
    CHECK(m.converged);
    const double c = std::cos(th * std::numbers::pi / 180.0), s = std::sin(th * std::numbers::pi / 180.0);
    CHECK(m.acceleration == Approx(g * (s - mu * c)).epsilon(1e-6));
    CHECK(m.friction_force == Approx(-mu * m.normal_force).epsilon(1e-6));
  }
}
