// Boxes fixed in space (issue 4 item 1; contact/NarrowPhase.hpp sphere_box_point): exact sphere–box distances
// against hand-computed ones for a rotated box (face, edge, corner, centre inside), a bead balanced on a box's
// ridge stays there carried by one edge contact whose reaction equals its weight, and a bead slightly off the
// ridge rolls off on its own side without entering the box.
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>

#include "contact/NarrowPhase.hpp"
#include "engine/granular/GranularStepper.hpp"

using namespace talus::granular;
using talus::Model;
using talus::contact::Box;
using talus::contact::ContactPoint;

namespace {

constexpr double kR = 0.01, kRho = 2500.0, kG = 9.81;

}  // namespace

TEST_CASE("sphere–box distances match hand-computed ones on faces, edges, corners and inside") {
  const Box box = talus::contact::rotated_box(Eigen::Vector3d(1, 2, 3), Eigen::Vector3d(0.5, 0.3, 0.2),
                                              Eigen::Vector3d::UnitZ(), std::numbers::pi / 6.0);
  const double r = 0.05;
  auto at = [&](double lx, double ly, double lz) { return Eigen::Vector3d(box.centre + box.axes * Eigen::Vector3d(lx, ly, lz)); };
  ContactPoint c;
  SECTION("face") {
    REQUIRE(talus::contact::sphere_box_point(box, at(0.8, 0.1, -0.1), r, c));
    CHECK(c.gap == Approx(0.3 - r));
    CHECK((c.n - box.axes.col(0)).norm() <= 1e-12);
    CHECK(c.feature == 1);
  }
  SECTION("edge") {
    REQUIRE(talus::contact::sphere_box_point(box, at(0.8, -0.5, 0.0), r, c));
    CHECK(c.gap == Approx(std::sqrt(0.3 * 0.3 + 0.2 * 0.2) - r));
    CHECK((c.n - box.axes * Eigen::Vector3d(0.3, -0.2, 0.0).normalized()).norm() <= 1e-12);
    CHECK(c.feature == 2);
  }
  SECTION("corner") {
    REQUIRE(talus::contact::sphere_box_point(box, at(-0.8, 0.5, 0.6), r, c));
    CHECK(c.gap == Approx(std::sqrt(0.09 + 0.04 + 0.16) - r));
    CHECK((c.n - box.axes * Eigen::Vector3d(-0.3, 0.2, 0.4).normalized()).norm() <= 1e-12);
    CHECK((at(-0.5, 0.3, 0.2) - (box.centre + c.pa)).norm() <= 1e-12);  // the contact point is the corner
    CHECK(c.feature == 3);
  }
  SECTION("centre inside: out through the nearest face") {
    REQUIRE(talus::contact::sphere_box_point(box, at(0.1, 0.05, -0.15), r, c));
    CHECK(c.gap == Approx(-0.05 - r));
    CHECK((c.n + box.axes.col(2)).norm() <= 1e-12);
  }
}

namespace {

struct RidgeRun {
  double drift_x, max_penetration, mean_impulse_over_weight, final_vx;
  bool converged = true;
};

// A box turned 45° about y: its top is an edge (ridge) along y at x = 0. The bead starts on it, offset by dx.
RidgeRun on_ridge(double dx, int steps) {
  Model m;
  m.gravity = Eigen::Vector3d(0.0, 0.0, -9.81);  // the granular scenes' gravity (Model's default is none)
  m.materials.law(talus::kBeadMaterial, talus::kWallMaterial).mu = 0.3;
  const double half = 0.05;
  m.boxes.push_back(talus::contact::rotated_box(Eigen::Vector3d::Zero(), Eigen::Vector3d(half, 0.1, half),
                                                Eigen::Vector3d::UnitY(), std::numbers::pi / 4.0));
  const double ridge = half * std::sqrt(2.0);
  // On the ridge the contact normal is vertical only when dx = 0; offset beads touch the edge with a tilted one.
  const double z = ridge + std::sqrt(kR * kR - dx * dx);
  m.bodies.add_sphere(Eigen::Vector3d(dx, 0, z), kR, kRho);
  GranularParameters p;
  p.tolerance = 1e-12;
  GranularStepper s(m, p);
  RidgeRun out{0, 0, 0, 0};
  double impulse = 0.0;
  for (int k = 0; k < steps; ++k) {
    const GranularStepReport& r = s.step();
    out.converged = out.converged && r.solver.converged();
    out.max_penetration = std::max(out.max_penetration, r.max_penetration);
    for (const SweepContact& c : s.contacts()) impulse += c.r[0] * c.n.z();
  }
  out.drift_x = m.bodies.x[0].x() - dx;
  out.final_vx = m.bodies.v[0].x();
  out.mean_impulse_over_weight = impulse / (steps * p.h * m.bodies.mass[0] * kG);
  return out;
}

}  // namespace

TEST_CASE("a bead balanced on a box ridge stays, its weight carried by the edge contact") {
  const RidgeRun r = on_ridge(0.0, 200);
  CHECK(r.converged);
  CHECK(std::abs(r.drift_x) <= 1e-12);
  CHECK(r.mean_impulse_over_weight == Approx(1.0).epsilon(1e-9));
  CHECK(r.max_penetration <= 1e-9);
}

TEST_CASE("a bead just off a box ridge rolls off on its own side without entering the box") {
  for (double side : {1.0, -1.0}) {
    const RidgeRun r = on_ridge(side * 0.1 * kR, 150);
    CHECK(r.converged);
    CHECK(side * r.drift_x > 0.5 * kR);
    CHECK(side * r.final_vx > 0.0);
    CHECK(r.max_penetration <= 1e-3 * kR);
  }
}
