// Newton's impact law under the large path's Moreau–Jean (seed 000, the θ-scheme's index set with γ = 1): a
// contact that the start-of-step velocity closes within the step is an impact, u_{k+1} ≥ −e u_k. Before this
// test a bead reaching a wall mid-step was stopped on it by the gap target (u ≥ −g/h) and bounced, the next
// step, with e times that landing speed only: a ball dropped on a floor with e = 0.5 did not rise at all.
// Checked for drops whose impacts fall at different instants within a step, on a floor and between two beads.
#include <catch2/catch.hpp>

#include <cmath>

#include "engine/granular/GranularStepper.hpp"

using namespace talus::granular;
using talus::Model;

namespace {

constexpr double kG = 9.81, kR = 0.01;

GranularParameters parameters() {
  GranularParameters p;
  p.h = 1e-3;
  p.tolerance = 1e-12;
  p.resort_every = 0;
  p.solver = GranularSolver::MatrixFree;
  return p;
}

}  // namespace

TEST_CASE("Moreau-Jean on the large path: a ball rebounds to e² of its drop, wherever the impact falls in a step") {
  for (const double e : {0.5, 0.8, 1.0})
    for (const double drop : {0.1, 0.1007, 0.1013, 0.1022}) {
      INFO("e = " << e << ", drop " << drop << " m");
      Model m;
      m.gravity = Eigen::Vector3d(0.0, 0.0, -kG);
      m.materials.set_defaults(0.0, 0.0, e);
      m.walls.push_back(talus::contact::Wall{});
      m.bodies.add_sphere(Eigen::Vector3d(0, 0, kR + drop), kR, 2500.0);
      GranularStepper s(m, parameters());
      double arrival = 0.0, departure = 0.0, apex = 0.0, lowest = 1.0;
      int bounces = 0;
      for (int k = 0; k < 500; ++k) {
        const double before = m.bodies.v[0].z();
        REQUIRE(s.step().solver.converged());
        const double after = m.bodies.v[0].z();
        lowest = std::min(lowest, m.bodies.x[0].z() - kR);
        if (before < 0.0 && after > 0.0 && bounces++ == 0) arrival = before, departure = after;
        if (bounces == 1) apex = std::max(apex, m.bodies.x[0].z() - kR);
      }
      REQUIRE(bounces >= 1);
      // The impact step's law: the bead leaves at e times its arrival speed (the arrival includes that step's
      // gravity, so to O(g h)).
      CHECK(departure == Approx(-e * arrival).margin(kG * 1e-3));
      // The apex to the step's O(h |u|): the bead turns round up to h |u| before the floor.
      CHECK(apex == Approx(e * e * drop).margin(2e-3 * std::sqrt(2 * kG * drop) + 1e-12));
      CHECK(lowest >= -1e-12);
    }
}

TEST_CASE("Moreau-Jean on the large path: two beads colliding head on with e = 1 exchange their velocities") {
  Model m;
  m.materials.set_defaults(0.0, 0.0, 1.0);
  m.bodies.add_sphere(Eigen::Vector3d(0, 0, 0), kR, 2500.0, Eigen::Vector3d(1, 0, 0));
  m.bodies.add_sphere(Eigen::Vector3d(0.0305, 0, 0), kR, 2500.0, Eigen::Vector3d(-1, 0, 0));
  GranularStepper s(m, parameters());
  for (int k = 0; k < 30; ++k) REQUIRE(s.step().solver.converged());
  CHECK(m.bodies.v[0].x() == Approx(-1.0).margin(1e-9));
  CHECK(m.bodies.v[1].x() == Approx(1.0).margin(1e-9));
  CHECK((m.bodies.x[1] - m.bodies.x[0]).norm() >= 2 * kR - 1e-12);
}

TEST_CASE("Moreau-Jean on the large path: a capsule dropped flat rebounds at e times its arrival speed") {
  // Capsule contacts take the same law (engine/granular/GeneralDetection.cpp): a horizontal capsule falling flat
  // on a floor with e = 0.5 leaves at half its arrival speed (its two end contacts share the impact).
  Model m;
  m.gravity = Eigen::Vector3d(0.0, 0.0, -kG);
  m.materials.set_defaults(0.0, 0.0, 0.5);
  m.walls.push_back(talus::contact::Wall{});
  m.bodies.add_capsule(Eigen::Vector3d(0, 0, kR + 0.1013), Eigen::Vector3d::UnitX(), 2 * kR, kR, 2500.0);
  GranularStepper s(m, parameters());
  double arrival = 0.0, departure = 0.0;
  for (int k = 0; k < 300 && departure == 0.0; ++k) {
    const double before = m.bodies.v[0].z();
    REQUIRE(s.step().solver.converged());
    if (before < 0.0 && m.bodies.v[0].z() > 0.0) arrival = before, departure = m.bodies.v[0].z();
  }
  CHECK(departure == Approx(-0.5 * arrival).margin(kG * 1e-3));
}
