// Rolling resistance of bead contacts (solvers/matrixfree/RollingResistance.hpp): the rolling torque is at most
// μ_r R* N and opposes the relative rolling. Checked against closed forms:
//   - rolling down an incline (no slip): m a = m g sin θ − F, I α = F r − μ_r r N, a = α r, so
//     a = (5/7) g (sin θ − μ_r cos θ), the torque at its bound;
//   - below tan θ = μ_r the bead stays at rest, the torque balancing friction's, F r = m g sin θ r;
//   - on a level floor a rolling bead decelerates at (5/7) μ_r g and stops for good at v₀ / ((5/7) μ_r g);
//   - on top of a fixed bead of radius r_a, a bead of radius r_b in tilted gravity stays while tan θ <= μ_r R*/r_b
//     with R* = r_a r_b/(r_a + r_b), and rolls off above it (the bead–bead effective radius);
//   - on a mesh conveyor (a moving obstacle: a general contact), a dropped bead ends up riding the belt at its
//     speed without turning, where a bead free to roll keeps rolling at 2U/7 relative to the ground;
//   - in a turning drum, a bead held by rolling resistance is carried round turning with the drum (its rolling
//     is measured against the drum's own rotation), up to tan θ = μ_r, where it starts rolling back.
// Plus: every thread count gives the same bits, and the solvers without rolling rows refuse the law.
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>

#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "tests/contact/MeshShapes.hpp"
#include "tests/granular/InclineModel.hpp"

using namespace talus::granular;
using talus::Model;

namespace {

constexpr double kG = 9.81;

double rad(double deg) { return deg * std::numbers::pi / 180.0; }

Model incline(double theta_deg, double mu, double mu_r, double r = 0.01) {
  Model m = testing::incline_model(theta_deg, mu, false, r);
  m.materials.law(talus::kBeadMaterial, talus::kWallMaterial).rolling = mu_r;
  return m;
}

GranularParameters exact() {
  GranularParameters p;
  p.h = 1e-3;
  p.tolerance = 1e-10;
  return p;
}

}  // namespace

TEST_CASE("a bead rolls down an incline with a = (5/7) g (sin θ − μ_r cos θ), the rolling torque at its bound",
          "[granular][rolling]") {
  const double th = 20.0, mu = 0.5, mu_r = 0.1, r = 0.01;
  Model m = incline(th, mu, mu_r, r);
  GranularStepper s(m, exact());
  REQUIRE(s.has_rolling_resistance());
  const int steps = 200;
  for (int k = 0; k < steps; ++k) REQUIRE(s.step().solver.converged());
  const double t = steps * 1e-3;
  const double a = 5.0 / 7.0 * kG * (std::sin(rad(th)) - mu_r * std::cos(rad(th)));
  CHECK(m.bodies.v[0].x() / t == Approx(a).epsilon(1e-6));
  CHECK(m.bodies.w[0].y() / t == Approx(a / r).epsilon(1e-6));  // rolls without slipping
  REQUIRE(s.rolling_contacts().size() == 1);
  const RollingContact& k = s.rolling_contacts()[0];
  const SweepContact& c = s.contacts()[0];
  CHECK(k.radius == r);
  CHECK(k.rho.norm() == Approx(mu_r * c.r[0]).epsilon(1e-9));
  // Without the law the same bead rolls at (5/7) g sin θ.
  Model free = incline(th, mu, 0.0, r);
  GranularStepper f(free, exact());
  CHECK_FALSE(f.has_rolling_resistance());
  for (int j = 0; j < steps; ++j) f.step();
  CHECK(free.bodies.v[0].x() / t == Approx(5.0 / 7.0 * kG * std::sin(rad(th))).epsilon(1e-6));
}

TEST_CASE("below tan θ = μ_r a bead stays at rest, the rolling torque balancing friction's", "[granular][rolling]") {
  const double mu = 0.5, mu_r = 0.1, r = 0.01;
  const double th = std::atan(0.8 * mu_r) * 180.0 / std::numbers::pi;  // 4.6°
  Model m = incline(th, mu, mu_r, r);
  GranularStepper s(m, exact());
  for (int k = 0; k < 300; ++k) REQUIRE(s.step().solver.converged());
  CHECK(m.bodies.v[0].norm() <= 1e-8);
  CHECK(m.bodies.w[0].norm() * r <= 1e-8);
  CHECK(std::abs(m.bodies.x[0].x()) <= 1e-9);
  // Friction holds m g sin θ; its torque about the centre, F r, is what the rolling torque R* |ρ| / h balances.
  const double F = m.bodies.mass[0] * kG * std::sin(rad(th));
  const RollingContact& k = s.rolling_contacts()[0];
  CHECK(k.radius * k.rho.norm() / 1e-3 == Approx(F * r).epsilon(1e-6));
  // Just above the threshold it rolls.
  Model above = incline(std::atan(1.1 * mu_r) * 180.0 / std::numbers::pi, mu, mu_r, r);
  GranularStepper a(above, exact());
  for (int j = 0; j < 300; ++j) a.step();
  CHECK(above.bodies.v[0].x() > 1e-3);
}

TEST_CASE("a bead rolling on a level floor decelerates at (5/7) μ_r g and stops for good", "[granular][rolling]") {
  const double mu = 0.5, mu_r = 0.05, r = 0.01, v0 = 0.1, h = 1e-3;
  Model m = incline(0.0, mu, mu_r, r);
  m.bodies.v[0] = Eigen::Vector3d(v0, 0, 0);
  m.bodies.w[0] = Eigen::Vector3d(0, v0 / r, 0);  // rolling in +x without slipping
  GranularStepper s(m, exact());
  const double decel = 5.0 / 7.0 * mu_r * kG;
  const double stop = v0 / decel;  // 0.285 s
  for (int k = 0; k < 100; ++k) REQUIRE(s.step().solver.converged());
  CHECK(m.bodies.v[0].x() == Approx(v0 - decel * 0.1).epsilon(1e-6));
  CHECK(m.bodies.w[0].y() * r == Approx(m.bodies.v[0].x()).epsilon(1e-6));
  for (int k = 100; k < 500; ++k) REQUIRE(s.step().solver.converged());
  CHECK(std::abs(m.bodies.v[0].x()) <= 1e-9);
  CHECK(std::abs(m.bodies.w[0].y()) * r <= 1e-9);
  // Where it stopped: Σ h v_{k+1} over the steps, v_{k+1} = v₀ − (k + 1) h decel while positive.
  double x = 0.0;
  for (int k = 1; v0 - k * h * decel > 0.0; ++k) x += h * (v0 - k * h * decel);
  CHECK(m.bodies.x[0].x() == Approx(x).epsilon(1e-6));
  CHECK(x == Approx(v0 * v0 / (2.0 * decel)).epsilon(0.02));  // the continuous stop, within O(h)
  CHECK(stop < 0.5);
}

TEST_CASE("on a fixed bead, a bead holds while tan θ <= μ_r R*/r_b with R* = r_a r_b/(r_a + r_b)",
          "[granular][rolling]") {
  const double mu = 0.8, mu_r = 0.15, ra = 0.02, rb = 0.01;
  const double R = ra * rb / (ra + rb);
  const double threshold = std::atan(mu_r * R / rb) * 180.0 / std::numbers::pi;  // tan θ = 0.1
  auto run = [&](double theta_deg) {
    Model m;
    m.gravity = kG * Eigen::Vector3d(std::sin(rad(theta_deg)), 0.0, -std::cos(rad(theta_deg)));
    m.materials.law(talus::kBeadMaterial, talus::kBeadMaterial) = talus::ContactLaw{mu, 0.0, mu_r};
    m.bodies.add_sphere(Eigen::Vector3d(0, 0, 0), ra, 2500.0);
    m.bodies.inv_mass[0] = 0.0, m.bodies.inv_inertia[0] = 0.0;  // fixed
    m.bodies.add_sphere(Eigen::Vector3d(0, 0, ra + rb), rb, 2500.0);
    GranularStepper s(m, exact());
    for (int k = 0; k < 100; ++k) REQUIRE(s.step().solver.converged());
    const int top = m.bodies.radius[0] == rb ? 0 : 1;  // the Morton sort may swap them
    REQUIRE(s.rolling_contacts().size() == 1);
    CHECK(s.rolling_contacts()[0].radius == Approx(R).epsilon(1e-15));
    return m.bodies.v[top].norm();
  };
  CHECK(run(0.9 * threshold) <= 1e-8);
  CHECK(run(1.1 * threshold) > 1e-3);
}

TEST_CASE("on a mesh conveyor, rolling resistance brings a bead to ride the belt without turning",
          "[granular][rolling]") {
  const double U = 0.2, mu = 0.5, r = 0.01;
  auto ride = [&](double mu_r) {
    Model m;
    m.gravity = Eigen::Vector3d(0, 0, -kG);
    m.materials.law(talus::kBeadMaterial, talus::kWallMaterial) = talus::ContactLaw{mu, 0.0, mu_r};
    m.meshes.push_back(std::make_shared<const talus::contact::TriangleMesh>(talus::test::flat_grid(-2, 2, -2, 2, 40, 40)));
    talus::contact::MeshMotion belt;
    belt.velocity = Eigen::Vector3d(U, 0, 0);
    m.mesh_motion.push_back(belt);
    m.bodies.add_sphere(Eigen::Vector3d(0.013, 0.021, r), r, 2500.0);
    GranularStepper s(m, exact());
    // Slip for 2U/(7 μ g) = 12 ms, then the rolling relative to the belt, (5/7) U, dies at (5/7) μ_r g: 0.2 s.
    for (int k = 0; k < 400; ++k) REQUIRE(s.step().solver.converged());
    REQUIRE(s.general_contacts().contacts.size() == 1);
    CHECK(s.general_contacts().contacts[0].roll.radius == (mu_r > 0.0 ? r : 0.0));
    return std::pair(m.bodies.v[0].x(), m.bodies.w[0].norm());
  };
  const auto [v, w] = ride(0.1);
  CHECK(v == Approx(U).epsilon(1e-8));
  CHECK(w * r <= 1e-8);
  const auto [v0, w0] = ride(0.0);
  CHECK(v0 == Approx(2.0 * U / 7.0).epsilon(1e-8));
  CHECK(w0 * r == Approx(5.0 * U / 7.0).epsilon(1e-8));
}

TEST_CASE("in a turning drum a bead held by rolling resistance turns with the drum, up to tan θ = μ_r",
          "[granular][rolling]") {
  const double R = 0.1, r = 0.005, mu = 1.0, mu_r = 0.3, omega = 0.5;
  Model m;
  m.gravity = Eigen::Vector3d(0, 0, -kG);
  talus::contact::Drum drum;
  drum.radius = R, drum.angular_velocity = omega;  // about +y
  m.drums.push_back(drum);
  m.materials.law(talus::kBeadMaterial, talus::kWallMaterial) = talus::ContactLaw{mu, 0.0, mu_r};
  m.bodies.add_sphere(Eigen::Vector3d(0, 0, -(R - r)), r, 2500.0);
  GranularStepper s(m, exact());
  // Carried 0.2 rad (11.5°, below atan 0.3 = 16.7°) in 0.4 s: the bead turns with the drum, ω = Ω ŷ, on its wall
  // (it lags the wall by the short spin-up at the start: it was dropped at rest).
  for (int k = 0; k < 400; ++k) REQUIRE(s.step().solver.converged());
  const Eigen::Vector3d& x = m.bodies.x[0];
  const double carried = std::atan2(-x.x(), -x.z());  // +y rotation carries the bottom towards −x
  CHECK(carried == Approx(omega * m.time).epsilon(2e-2));
  CHECK((m.bodies.w[0] - Eigen::Vector3d(0, omega, 0)).norm() <= 1e-6 * omega);
  // It starts rolling back on the wall (ω leaves Ω) where tan θ = μ_r: there the torque at its bound balances the
  // friction that holds the bead on the slope. (It then overshoots, carried on while its rolling speeds up.)
  double start = -1.0;
  for (int k = 0; k < 1600 && start < 0.0; ++k) {
    REQUIRE(s.step().solver.converged());
    if ((m.bodies.w[0] - Eigen::Vector3d(0, omega, 0)).norm() > 1e-3 * omega)
      start = std::atan2(-m.bodies.x[0].x(), -m.bodies.x[0].z());
  }
  CHECK(std::tan(start) == Approx(mu_r).epsilon(1e-2));
}

TEST_CASE("rolling resistance: the same bits for every thread count, and solvers without rolling rows refuse it",
          "[granular][rolling]") {
  BeadSpec spec;
  auto settle = [&](int threads) {
    Model m = lattice_stack(spec, 6, 6).model;
    m.materials.law(talus::kBeadMaterial, talus::kBeadMaterial).rolling = 0.1;
    m.materials.law(talus::kBeadMaterial, talus::kWallMaterial).rolling = 0.1;
    GranularParameters p;
    p.threads = threads;
    p.partitions = 4;
    GranularStepper s(m, p);
    for (int k = 0; k < 60; ++k) REQUIRE(s.step().solver.converged());
    return m.bodies;
  };
  const auto one = settle(1), two = settle(2);
  REQUIRE(one.x.size() == two.x.size());
  for (std::size_t i = 0; i < one.x.size(); ++i) {
    CHECK(one.x[i] == two.x[i]);
    CHECK(one.w[i] == two.w[i]);
  }
  Model m = lattice_stack(spec, 3, 3).model;
  m.materials.law(talus::kBeadMaterial, talus::kBeadMaterial).rolling = 0.1;
  for (GranularSolver solver : {GranularSolver::Multilevel, GranularSolver::Nncg, GranularSolver::Assembled}) {
    GranularParameters p;
    p.solver = solver;
    CHECK_THROWS_WITH(GranularStepper(m, p), Catch::Contains("rolling resistance"));
  }
  GranularParameters p;
  p.solver = GranularSolver::Anderson;
  GranularStepper s(m, p);
  CHECK_THROWS_WITH(s.keep_next_problem(), Catch::Contains("FCLIB"));
  m.materials.law(talus::kBeadMaterial, talus::kBeadMaterial).rolling = -1.0;
  CHECK_THROWS_WITH(GranularStepper(m, GranularParameters{}), Catch::Contains("rolling resistance coefficients"));
}
