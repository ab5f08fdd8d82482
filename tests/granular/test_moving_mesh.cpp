// Beads on moving mesh walls (contact/MeshMotion.hpp, engine/granular/MovingMeshContacts.hpp; issue 14 item 1),
// against answers they cannot fake:
//   - a conveyor: a bead dropped at rest on a belt moving at U slips, then rolls at 2U/7 (its angular momentum
//     about the contact point is kept by the contact impulse), with no slip at the belt;
//   - a lift: a mesh floor rising at 0.1 m/s carries a bead at its own speed, the gap closed to round-off;
//   - a turntable: a ball rolling without slip on a disc turning at Ω moves on a circle at 2Ω/7, at constant speed
//     (Weltner, Am. J. Phys. 47, 1979);
//   - capsules too: one lying along a conveyor is dragged up to the belt's speed and then moves with it, two contacts
//     (its ends) without slip; one on a rising floor rides it at its speed;
//   - a capsule striking a mesh carried by another capsule: momentum and angular momentum are kept;
//   - a moving mesh's contacts need the matrix-free solvers, and say so.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>

#include "engine/granular/GranularStepper.hpp"
#include "tests/contact/MeshShapes.hpp"
#include "tests/granular/SolverTestParameters.hpp"

using namespace talus::granular;
using talus::Model;
using talus::contact::MeshMotion;
using talus::contact::TriangleMesh;

namespace {

constexpr double kG = 9.81, kR = 0.01, kH = 1e-3;

GranularParameters exact_solve() { return test::solver_parameters(GranularSolver::MatrixFree, 1e-12); }

Model bead_on_floor(double half, int cells, double mu, const MeshMotion& motion) {
  Model m;
  m.gravity = Eigen::Vector3d(0, 0, -kG);
  m.materials.set_defaults(mu, mu, 0.0);
  m.meshes.push_back(std::make_shared<const TriangleMesh>(talus::test::flat_grid(-half, half, -half, half, cells, cells)));
  m.mesh_motion.push_back(motion);
  return m;
}

}  // namespace

TEST_CASE("a bead dropped on a mesh conveyor rolls at 2U/7 of the belt's speed") {
  const double U = 0.5, mu = 0.3;
  MeshMotion belt;
  belt.velocity = Eigen::Vector3d(U, 0, 0);
  Model m = bead_on_floor(2.0, 40, mu, belt);
  m.bodies.add_sphere(Eigen::Vector3d(0.013, 0.021, kR), kR, 2500.0);
  GranularStepper s(m, exact_solve());
  // The slip lasts (2U/7) / (μ g) = 49 ms.
  for (int k = 0; k < 150; ++k) REQUIRE(s.step().solver.converged());
  CHECK(m.bodies.v[0].x() == Approx(2.0 * U / 7.0).epsilon(1e-8));
  CHECK(std::abs(m.bodies.v[0].y()) < 1e-10);
  // No slip: the bead's bottom point moves with the belt.
  const Eigen::Vector3d bottom = m.bodies.v[0] + m.bodies.w[0].cross(Eigen::Vector3d(0, 0, -kR));
  CHECK((bottom - belt.velocity).norm() < 1e-8);
  CHECK(m.bodies.x[0].z() == Approx(kR).epsilon(1e-9));
}

TEST_CASE("a rising mesh floor lifts a bead at its own speed") {
  MeshMotion lift;
  lift.velocity = Eigen::Vector3d(0, 0, 0.1);
  Model m = bead_on_floor(0.5, 10, 0.3, lift);
  m.bodies.add_sphere(Eigen::Vector3d(0.013, 0.021, kR), kR, 2500.0);
  GranularStepper s(m, exact_solve());
  for (int k = 0; k < 200; ++k) REQUIRE(s.step().solver.converged());
  CHECK(m.bodies.x[0].z() == Approx(kR + 0.1 * m.time).epsilon(1e-9));
  CHECK(m.bodies.v[0].z() == Approx(0.1).epsilon(1e-9));
  CHECK(s.general_contacts().contacts.size() == 1);
}

TEST_CASE("a ball rolling on a mesh turntable circles at 2/7 of the table's rate") {
  const double omega = 2.0;
  MeshMotion table;
  table.angular_velocity = omega;
  Model m = bead_on_floor(1.0, 20, 1.0, table);
  m.bodies.add_sphere(Eigen::Vector3d(0.2, 0.0, kR), kR, 2500.0);
  GranularStepper s(m, exact_solve());
  // It slips for a few steps (the table moves at 0.4 m/s under it), then rolls.
  for (int k = 0; k < 50; ++k) REQUIRE(s.step().solver.converged());
  const Eigen::Vector3d v1 = m.bodies.v[0];
  const int n = 1000;
  for (int k = 0; k < n; ++k) REQUIRE(s.step().solver.converged());
  const Eigen::Vector3d v2 = m.bodies.v[0];
  CHECK(v2.norm() == Approx(v1.norm()).epsilon(1e-3));
  const double turned = std::atan2(v1.x() * v2.y() - v1.y() * v2.x(), v1.dot(v2));
  CHECK(turned == Approx(2.0 / 7.0 * omega * n * kH).epsilon(1e-2));
  // Rolling without slip on the table: the bottom point moves with the table's surface, that at the contact
  // point of the step's start (where the step's contact was made).
  const Eigen::Vector3d p = m.bodies.x[0] - kH * v2 - Eigen::Vector3d(0, 0, kR);
  const Eigen::Vector3d bottom = v2 + m.bodies.w[0].cross(Eigen::Vector3d(0, 0, -kR));
  CHECK((bottom - table.velocity_at(p, m.time - kH)).norm() < 1e-6 * v2.norm());
}

TEST_CASE("a moving mesh needs a matrix-free solver") {
  MeshMotion lift;
  lift.velocity = Eigen::Vector3d(0, 0, 0.1);
  Model m = bead_on_floor(0.5, 4, 0.3, lift);
  m.bodies.add_sphere(Eigen::Vector3d(0.013, 0.021, kR), kR, 2500.0);
  GranularStepper s(m, test::solver_parameters(GranularSolver::Multilevel, 1e-8));
  CHECK_THROWS_WITH(s.step(), Catch::Contains("moving meshes"));
}

TEST_CASE("a bead striking a mesh carried by a free capsule: momentum and angular momentum are kept") {
  // No gravity: a capsule along z at the origin carries a square plate in the plane x = 0.03; a bead flies into
  // the plate off its centre. The contact's impulse acts on the bead and on the capsule at the same point.
  Model m;
  m.materials.set_defaults(0.3, 0.3, 0.5);
  // In the capsule's mid-plane z = 0, so that the blow turns it about its axis only: a free capsule turning about
  // another axis tumbles, and the integrator keeps its angular momentum only to O(h) (not the contact's doing).
  m.bodies.add_sphere(Eigen::Vector3d(0.1, 0.01, 0.0), 0.005, 2500.0, Eigen::Vector3d(-1.0, 0, 0));
  m.bodies.add_capsule(Eigen::Vector3d::Zero(), Eigen::Vector3d::UnitZ(), 0.02, 0.005, 2500.0, Eigen::Vector3d::Zero());
  const std::vector<Eigen::Vector3d> v = {{0.03, -0.02, -0.02}, {0.03, 0.02, -0.02}, {0.03, 0.02, 0.02}, {0.03, -0.02, 0.02}};
  m.meshes.push_back(std::make_shared<const TriangleMesh>(
      talus::contact::build_triangle_mesh("plate", v, {{0, 1, 2}, {0, 2, 3}})));
  const int c = m.bodies.capsule(0);
  m.mesh_body = {c};  // the plate's vertices in the capsule's frame: it sits at the origin, unturned
  auto momentum = [&] { return Eigen::Vector3d(m.bodies.mass[0] * m.bodies.v[0] + m.bodies.mass[c] * m.bodies.v[c]); };
  auto angular = [&] {
    const Eigen::Matrix3d R = m.bodies.q[c].toRotationMatrix();
    const Eigen::Matrix3d I = R * m.bodies.inertia[c].asDiagonal() * R.transpose();
    return Eigen::Vector3d(m.bodies.x[0].cross(m.bodies.mass[0] * m.bodies.v[0]) + m.bodies.inertia[0].x() * m.bodies.w[0] +
                           m.bodies.x[c].cross(m.bodies.mass[c] * m.bodies.v[c]) + I * m.bodies.w[c]);
  };
  const Eigen::Vector3d p0 = momentum(), l0 = angular();
  GranularStepper s(m, exact_solve());
  int hits = 0;
  for (int k = 0; k < 120; ++k) {
    REQUIRE(s.step().solver.converged());
    hits += !s.general_contacts().contacts.empty();
  }
  CHECK(hits > 0);
  CHECK(m.bodies.v[c].x() < -0.01);  // the capsule was pushed
  CHECK(m.bodies.w[c].z() > 0.0);    // and turned (the blow was off its axis, at y > 0)
  CHECK((momentum() - p0).norm() < 1e-12 * p0.norm());
  CHECK((angular() - l0).norm() < 1e-10 * l0.norm());
}

TEST_CASE("a capsule lying along a mesh conveyor is dragged to the belt's speed, and one on a rising floor rides it") {
  const double U = 0.5, mu = 0.3, r = 0.005;
  MeshMotion belt;
  belt.velocity = Eigen::Vector3d(U, 0, 0);
  Model m = bead_on_floor(2.0, 40, mu, belt);
  m.bodies.add_capsule(Eigen::Vector3d(0.013, 0.021, r), Eigen::Vector3d::UnitX(), 0.02, r, 2500.0,
                       Eigen::Vector3d::Zero());
  GranularStepper s(m, exact_solve());
  // It slides for U / (μ g) = 0.17 s (both ends' friction pulls it along its axis: it cannot roll that way).
  for (int k = 0; k < 300; ++k) REQUIRE(s.step().solver.converged());
  const int c = m.bodies.capsule(0);
  CHECK(m.bodies.v[c].x() == Approx(U).epsilon(1e-8));
  CHECK(m.bodies.w[c].norm() < 1e-8);
  CHECK(m.bodies.x[c].z() == Approx(r).epsilon(1e-8));
  CHECK(s.general_contacts().contacts.size() == 2);  // its two ends
  MeshMotion lift;
  lift.velocity = Eigen::Vector3d(0, 0, 0.1);
  Model l = bead_on_floor(0.5, 10, 0.3, lift);
  l.bodies.add_capsule(Eigen::Vector3d(0.013, 0.021, r), Eigen::Vector3d::UnitY(), 0.02, r, 2500.0,
                       Eigen::Vector3d::Zero());
  GranularStepper t(l, exact_solve());
  for (int k = 0; k < 200; ++k) REQUIRE(t.step().solver.converged());
  const int lc = l.bodies.capsule(0);
  CHECK(l.bodies.x[lc].z() == Approx(r + 0.1 * l.time).epsilon(1e-9));
  CHECK(l.bodies.v[lc].z() == Approx(0.1).epsilon(1e-9));
}

TEST_CASE("a capsule striking a mesh carried by another capsule: momentum and angular momentum are kept") {
  // No gravity: capsule A along z at the origin carries a square plate in the plane x = 0.03; capsule B, along z too,
  // flies into the plate off A's axis. The contact is between the two capsules, at the plate's point.
  Model m;
  m.materials.set_defaults(0.3, 0.3, 0.5);
  m.bodies.add_capsule(Eigen::Vector3d::Zero(), Eigen::Vector3d::UnitZ(), 0.02, 0.005, 2500.0, Eigen::Vector3d::Zero());
  m.bodies.add_capsule(Eigen::Vector3d(0.1, 0.01, 0.0), Eigen::Vector3d::UnitZ(), 0.01, 0.004, 2500.0,
                       Eigen::Vector3d(-1.0, 0, 0));
  const std::vector<Eigen::Vector3d> v = {{0.03, -0.02, -0.02}, {0.03, 0.02, -0.02}, {0.03, 0.02, 0.02}, {0.03, -0.02, 0.02}};
  m.meshes.push_back(std::make_shared<const TriangleMesh>(
      talus::contact::build_triangle_mesh("plate", v, {{0, 1, 2}, {0, 2, 3}})));
  const int a = m.bodies.capsule(0), b = m.bodies.capsule(1);
  m.mesh_body = {a};
  auto momentum = [&] { return Eigen::Vector3d(m.bodies.mass[a] * m.bodies.v[a] + m.bodies.mass[b] * m.bodies.v[b]); };
  auto angular = [&] {
    Eigen::Vector3d l = Eigen::Vector3d::Zero();
    for (int i : {a, b}) {
      const Eigen::Matrix3d R = m.bodies.q[i].toRotationMatrix();
      const Eigen::Matrix3d I = R * m.bodies.inertia[i].asDiagonal() * R.transpose();
      l += m.bodies.x[i].cross(m.bodies.mass[i] * m.bodies.v[i]) + I * m.bodies.w[i];
    }
    return l;
  };
  const Eigen::Vector3d p0 = momentum(), l0 = angular();
  GranularStepper s(m, exact_solve());
  int hits = 0;
  for (int k = 0; k < 120; ++k) {
    REQUIRE(s.step().solver.converged());
    for (const GeneralContact& c : s.general_contacts().contacts) {
      CHECK(c.kind_a == BodyKind::Capsule);
      CHECK(c.kind_b == BodyKind::Capsule);
      hits += c.r[0] > 0.0;
    }
  }
  CHECK(hits > 0);
  CHECK(m.bodies.v[a].x() < -0.01);  // A was pushed
  CHECK(m.bodies.w[a].z() > 0.0);    // and turned (the blow was off its axis, at y > 0)
  CHECK(m.bodies.v[b].x() > -0.9);   // B was slowed
  CHECK((momentum() - p0).norm() < 1e-12 * p0.norm());
  CHECK((angular() - l0).norm() < 1e-10 * l0.norm());
}

TEST_CASE("beads and capsules on a turning mesh step to the same bits for 1 and 2 threads") {
  // The moving mesh's candidates are found over per-thread bead ranges and concatenated in range order.
  auto run = [](int threads) {
    MeshMotion table;
    table.angular_velocity = 3.0;
    Model m = bead_on_floor(0.3, 12, 0.4, table);
    for (int i = 0; i < 60; ++i)
      m.bodies.add_sphere(Eigen::Vector3d(-0.15 + 0.03 * (i % 10), -0.1 + 0.03 * (i / 10), kR + 0.002 * (i % 3)), kR,
                          2500.0);
    m.bodies.add_capsule(Eigen::Vector3d(0.0, 0.12, 0.006), Eigen::Vector3d::UnitX(), 0.03, 0.005, 2500.0,
                         Eigen::Vector3d::Zero());
    GranularParameters p = test::solver_parameters(GranularSolver::MatrixFree, 1e-8);
    p.threads = threads;
    p.partitions = 4;
    GranularStepper s(m, p);
    for (int k = 0; k < 100; ++k) REQUIRE(s.step().solver.converged());
    REQUIRE(s.general_contacts().contacts.size() > 60);
    return m.bodies.x;
  };
  const auto one = run(1), two = run(2);
  REQUIRE(one.size() == two.size());
  for (std::size_t i = 0; i < one.size(); ++i) CHECK(one[i] == two[i]);
}
