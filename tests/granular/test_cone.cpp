// Conical and cylindrical shells (contact/Shapes.hpp Cone, contact/NarrowPhase.hpp sphere_cone_point; issue 14
// item 2), against answers they cannot fake:
//   - geometry: the gap and normal of a bead inside a cylinder (R − ρ − r), on a cone's surface (the distance to
//     the meridian line), at the outlet's rim (the distance to the rim circle), and on the outer side;
//   - a bead rolling down a cone's inner wall along a meridian: the wall is an incline at θ = 90° − half-angle
//     in the meridian plane, so the bead rolls without slipping at a = 5/7 g sin θ (tan θ < 7/2 μ), and
//     Moreau–Jean's discrete trajectory is s_n = a h² n (n + 1)/2 (velocity a h per step, positions with the
//     end-of-step velocity);
//   - a bead rolling over the outlet's rim and out of the hopper, never faster than free fall from its start;
//   - a column of beads standing in a cylinder on a floor: the cylinder carries nothing (the beads do not touch
//     it) and the floor the whole weight;
//   - a capsule lying inside a horizontal cylinder rests on its two ends, one lying across its outside on its
//     middle, each carrying the weight.
#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>

#include "contact/NarrowPhase.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "tests/granular/SolverTestParameters.hpp"

using namespace talus::granular;
using talus::Model;
using talus::contact::Cone;
using talus::contact::ContactPoint;

namespace {

constexpr double kG = 9.81, kR = 0.01;

}  // namespace

TEST_CASE("sphere_cone_point: inside a cylinder, on a cone, at the rim and outside") {
  ContactPoint c;
  const Cone cyl{Eigen::Vector3d(1, 2, 3), Eigen::Vector3d::UnitZ(), 1.0, 0.5, 0.5};
  REQUIRE(talus::contact::sphere_cone_point(cyl, Eigen::Vector3d(1.3, 2, 3.5), 0.1, c));
  CHECK(c.gap == Approx(0.5 - 0.3 - 0.1).margin(1e-15));
  CHECK((c.n - Eigen::Vector3d(-1, 0, 0)).norm() < 1e-15);
  CHECK(c.feature == 0);
  // Outside the cylinder the other side is touched: the normal points outwards.
  REQUIRE(talus::contact::sphere_cone_point(cyl, Eigen::Vector3d(1, 2.62, 3.5), 0.1, c));
  CHECK(c.gap == Approx(0.02).margin(1e-15));
  CHECK((c.n - Eigen::Vector3d(0, 1, 0)).norm() < 1e-15);
  // A cone widening upwards at 45°: outlet radius 0.1 at z = 0, radius 1.1 at z = 1.
  const Cone hop{Eigen::Vector3d::Zero(), Eigen::Vector3d::UnitZ(), 1.0, 0.1, 1.1};
  CHECK(hop.half_angle() == Approx(std::numbers::pi / 4));
  // A point on the axis side of the wall at height 0.5 (wall radius 0.6), radius 0.4: distance 0.2 / √2.
  REQUIRE(talus::contact::sphere_cone_point(hop, Eigen::Vector3d(0.4, 0, 0.5), 0.05, c));
  CHECK(c.gap == Approx(0.2 / std::sqrt(2.0) - 0.05).epsilon(1e-14));
  CHECK((c.n - Eigen::Vector3d(-1, 0, 1).normalized()).norm() < 1e-14);
  CHECK(c.feature == 0);
  CHECK((c.pa + c.gap * c.n + 0.05 * c.n - Eigen::Vector3d(0.4, 0, 0.5)).norm() < 1e-14);
  // Below the outlet, near the rim circle: the rim is an edge.
  REQUIRE(talus::contact::sphere_cone_point(hop, Eigen::Vector3d(0.0, 0.1, -0.03), 0.02, c));
  CHECK(c.feature == 1);
  CHECK(c.gap == Approx(0.03 - 0.02).epsilon(1e-14));
  CHECK((c.n - Eigen::Vector3d(0, 0, -1)).norm() < 1e-14);
  // On the axis every direction is as near: no contact.
  CHECK_FALSE(talus::contact::sphere_cone_point(hop, Eigen::Vector3d(0, 0, 0.5), 0.05, c));
}

namespace {

// A bead on the inner wall of a cone of half-angle `half` (from the vertical), in the x–z meridian plane, touching
// it at height z0 above the outlet; returns the model (gravity −z, μ bead–wall = mu).
Model bead_on_cone(double half, double z0, double mu) {
  Model m;
  m.gravity = Eigen::Vector3d(0, 0, -kG);
  m.materials.set_defaults(mu, mu, 0.0);
  const double r_out = 0.05;
  m.cones.push_back(Cone{Eigen::Vector3d::Zero(), Eigen::Vector3d::UnitZ(), 1.0, r_out, r_out + std::tan(half)});
  // The wall point at height z0 and the inner normal there; the bead's centre one radius along it.
  const Eigen::Vector3d p(r_out + z0 * std::tan(half), 0, z0), n(-std::cos(half), 0, std::sin(half));
  m.bodies.add_sphere(p + kR * n, kR, 2500.0);
  return m;
}

GranularParameters exact_solve() { return test::solver_parameters(GranularSolver::MatrixFree, 1e-12); }

}  // namespace

TEST_CASE("a bead rolls down a cone's inner wall at 5/7 g sin θ, as on the incline of its meridian") {
  const double half = std::numbers::pi / 3;  // wall at θ = 30° from horizontal; tan θ = 0.58 < 7/2 μ
  const double theta = std::numbers::pi / 2 - half;
  Model m = bead_on_cone(half, 0.5, 0.5);
  const Eigen::Vector3d x0 = m.bodies.x[0];
  GranularStepper s(m, exact_solve());
  const int n = 100;
  for (int k = 0; k < n; ++k) {
    const GranularStepReport& r = s.step();
    REQUIRE(r.solver.converged());
  }
  const double a = 5.0 / 7.0 * kG * std::sin(theta), h = 1e-3;
  const double expected = a * h * h * n * (n + 1) / 2.0;
  const Eigen::Vector3d down(-std::sin(half), 0, -std::cos(half));  // along the wall, downwards
  const Eigen::Vector3d d = m.bodies.x[0] - x0;
  CHECK(d.dot(down) == Approx(expected).epsilon(1e-6));
  CHECK((d - d.dot(down) * down).norm() < 1e-9 * expected);  // no motion off the meridian line
  // Rolling without slip: ω r = v, about the y axis (the wall is on the +x side of the bead's path).
  CHECK(m.bodies.w[0].norm() * kR == Approx(m.bodies.v[0].norm()).epsilon(1e-6));
}

TEST_CASE("a bead rolls over the outlet's rim and leaves the hopper no faster than free fall") {
  Model m = bead_on_cone(std::numbers::pi / 6, 0.05, 0.3);
  const double z0 = m.bodies.x[0].z();
  GranularStepper s(m, exact_solve());
  double vmax_ratio = 0.0;
  for (int k = 0; k < 400; ++k) {
    REQUIRE(s.step().solver.converged());
    const double fall = z0 - m.bodies.x[0].z();
    if (fall > 1e-3) vmax_ratio = std::max(vmax_ratio, m.bodies.v[0].norm() / std::sqrt(2 * kG * fall));
  }
  CHECK(m.bodies.x[0].z() < -0.3);     // it went through the outlet (radius 0.05 > the bead's 0.01)
  CHECK(vmax_ratio < 1.0 + 1e-2);      // no spurious impulse at the rim (1e-2: the O(h) of the discrete fall)
  CHECK(std::abs(m.bodies.x[0].y()) < 1e-12);
}

TEST_CASE("a column standing in a cylinder on a floor: the floor carries the weight, the cylinder nothing") {
  Model m;
  m.gravity = Eigen::Vector3d(0, 0, -kG);
  m.walls.push_back(talus::contact::Wall{Eigen::Vector3d::UnitZ(), 0.0});
  m.cones.push_back(Cone{Eigen::Vector3d(0, 0, -0.1), Eigen::Vector3d::UnitZ(), 1.0, 1.5 * kR, 1.5 * kR});
  for (int k = 0; k < 5; ++k) m.bodies.add_sphere(Eigen::Vector3d(0, 0, kR + 2 * kR * k), kR, 2500.0);
  GranularStepper s(m, exact_solve());
  for (int k = 0; k < 20; ++k) REQUIRE(s.step().solver.converged());
  const double w = m.bodies.mass[0] * kG, h = 1e-3;
  double floor = 0.0, cylinder = 0.0;
  for (const SweepContact& c : s.contacts())
    if (c.a < 0) {
      const double fn = c.r[0] / h;
      (std::abs(c.n.z() - 1.0) < 1e-12 ? floor : cylinder) += fn;
    }
  CHECK(floor == Approx(5 * w).epsilon(1e-8));
  CHECK(std::abs(cylinder) < 1e-10 * w);
  for (int k = 0; k < 5; ++k) CHECK(std::abs(m.bodies.x[k].x()) + std::abs(m.bodies.x[k].y()) < 1e-14);
}

TEST_CASE("a capsule rests inside a lying cylinder on its two ends, and across its outside on its middle") {
  // A cylinder of radius R along x (contact::capsule_cone_points).
  const double R = 0.05, r = 0.006, hl = 0.03;
  for (const bool inside : {true, false}) {
    INFO((inside ? "inside, along the axis" : "outside, across the top"));
    Model m;
    m.gravity = Eigen::Vector3d(0, 0, -kG);
    m.materials.set_defaults(0.5, 0.5, 0.0);
    m.cones.push_back(Cone{Eigen::Vector3d(-0.5, 0, 0), Eigen::Vector3d::UnitX(), 1.0, R, R});
    const Eigen::Vector3d centre = inside ? Eigen::Vector3d(0.01, 0, -R + r + 1e-4) : Eigen::Vector3d(0.01, 0, R + r + 1e-4);
    m.bodies.add_capsule(centre, inside ? Eigen::Vector3d::UnitX() : Eigen::Vector3d::UnitY(), hl, r, 2500.0,
                         Eigen::Vector3d::Zero());
    const int c = m.bodies.capsule(0);
    GranularStepper s(m, exact_solve());
    for (int k = 0; k < 100; ++k) REQUIRE(s.step().solver.converged());
    const auto& contacts = s.general_contacts().contacts;
    REQUIRE(contacts.size() == (inside ? 2u : 1u));
    double n = 0.0;
    for (const auto& gc : contacts) n += gc.r[0] * gc.n.z();
    CHECK(n / 1e-3 == Approx(m.bodies.mass[c] * kG).epsilon(1e-8));  // h = 1e-3
    CHECK(m.bodies.x[c].z() == Approx(inside ? -R + r : R + r).epsilon(1e-9));
    // (Across the top the contact is the golden-section search's minimum, found to about √ε of the length.)
    CHECK(std::abs(m.bodies.x[c].y()) < 1e-8);
  }
}
