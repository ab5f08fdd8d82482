// Beads on triangle-mesh walls in the granular stepper (issue 14 items 1 and 5), against answers they cannot
// fake:
//   - a bead rolling and one sliding down a tessellated incline (5 000 triangles, tilted) follow the analytic
//     plane's trajectory to round-off, step by step, while crossing faces, edges and vertices; the normal impulse
//     stays the plane's at every step (no spurious impulse at an edge) and there is one contact per step;
//   - stick and slip at tan θ = μ on the mesh: a block just below sticks, just above slides at g (sin θ − μ cos θ);
//   - a bead rolling over a convex fold onto a steeper face: one contact throughout; pivoting about the edge it
//     is held by N = m (g cos φ − v²/r), as a ball rolling round a point; no step's impulse exceeds the weight's
//     by more than the discrete pivot's lag; never faster than its energy allows;
//   - a bead between two meshes in a valley settles on both faces with the weight shared as statics says.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <numbers>

#include "engine/granular/GranularStepper.hpp"
#include "tests/contact/MeshShapes.hpp"
#include "tests/granular/SolverTestParameters.hpp"

using namespace talus::granular;
using talus::Model;
using talus::contact::TriangleMesh;

namespace {

constexpr double kG = 9.81, kR = 0.01, kH = 1e-3;

GranularParameters exact_solve() { return test::solver_parameters(GranularSolver::MatrixFree, 1e-12); }

// The grid turned by θ about y: its normal becomes (sin θ, 0, cos θ).
std::shared_ptr<const TriangleMesh> tilted_grid(double theta) {
  TriangleMesh g = talus::test::flat_grid(-0.5, 0.5, -0.5, 0.5, 50, 50);
  const Eigen::Matrix3d R = Eigen::AngleAxisd(theta, Eigen::Vector3d::UnitY()).toRotationMatrix();
  for (auto& v : g.vertices) v = R * v;
  std::vector<std::array<int, 3>> t = g.triangles;
  return std::make_shared<const TriangleMesh>(talus::contact::build_triangle_mesh("tilted", g.vertices, t));
}

// One bead touching the incline through the origin with normal (sin θ, 0, cos θ), at in-plane offset (u, w)
// (u along the slope's x, w across it): through a mesh or an analytic wall.
Model bead_on_incline(double theta, double mu, bool mesh, bool rotation_locked, double u, double w) {
  Model m;
  m.gravity = Eigen::Vector3d(0, 0, -kG);
  m.materials.set_defaults(mu, mu, 0.0);
  const Eigen::Vector3d n(std::sin(theta), 0, std::cos(theta)), s(std::cos(theta), 0, -std::sin(theta));
  if (mesh)
    m.meshes.push_back(tilted_grid(theta));
  else
    m.walls.push_back(talus::contact::Wall{n, 0.0});
  m.bodies.add_sphere(u * s + w * Eigen::Vector3d::UnitY() + kR * n, kR, 2500.0);
  if (rotation_locked) m.bodies.inv_inertia[0] = 0.0;
  return m;
}

}  // namespace

TEST_CASE("a bead on a tessellated incline follows the analytic plane's trajectory to round-off") {
  const double theta = std::numbers::pi / 6;
  for (const bool locked : {false, true}) {
    INFO((locked ? "sliding (rotation locked, mu 0.2)" : "rolling (mu 0.5)"));
    const double mu = locked ? 0.2 : 0.5;
    // Off the grid's lines, and moving across them: down the slope and sideways.
    Model plane = bead_on_incline(theta, mu, false, locked, -0.2, 0.0123);
    Model mesh = bead_on_incline(theta, mu, true, locked, -0.2, 0.0123);
    plane.bodies.v[0] = mesh.bodies.v[0] = Eigen::Vector3d(0, 0.31, 0);
    // Rolling sideways without slip: ω × n r = v.
    if (!locked) plane.bodies.w[0] = mesh.bodies.w[0] = -0.31 / kR * Eigen::Vector3d(std::cos(theta), 0, -std::sin(theta));
    const Eigen::Vector3d x0 = mesh.bodies.x[0];
    GranularStepper sp(plane, exact_solve()), sm(mesh, exact_solve());
    const double weight_impulse = plane.bodies.mass[0] * kG * std::cos(theta) * kH;
    double max_dx = 0.0, max_dimpulse = 0.0;
    for (int k = 0; k < 300; ++k) {
      REQUIRE(sp.step().solver.converged());
      REQUIRE(sm.step().solver.converged());
      REQUIRE(sm.contacts().size() == 1);
      max_dx = std::max(max_dx, (mesh.bodies.x[0] - plane.bodies.x[0]).norm());
      max_dimpulse = std::max(max_dimpulse, std::abs(sm.contacts()[0].r[0] - weight_impulse));
    }
    CHECK(max_dx < 1e-12);
    CHECK(max_dimpulse < 1e-9 * weight_impulse);
    CHECK((mesh.bodies.w[0] - plane.bodies.w[0]).norm() < 1e-9);
    // It did cross the grid (cells of 0.02 m): it moved well over ten cells.
    CHECK((mesh.bodies.x[0] - x0).norm() > 0.15);
  }
}

TEST_CASE("stick and slip at tan θ = μ on a mesh") {
  const double mu = 0.5, t0 = std::atan(mu);
  const int n = 200;
  for (const double factor : {0.98, 1.02}) {
    const double theta = factor * t0;
    Model m = bead_on_incline(theta, mu, true, true, 0.1, 0.0);
    const Eigen::Vector3d x0 = m.bodies.x[0];
    GranularStepper s(m, exact_solve());
    for (int k = 0; k < n; ++k) REQUIRE(s.step().solver.converged());
    const double d = (m.bodies.x[0] - x0).norm();
    if (factor < 1.0) {
      CHECK(d < 1e-12);
    } else {
      const double a = kG * (std::sin(theta) - mu * std::cos(theta));
      CHECK(d == Approx(a * kH * kH * n * (n + 1) / 2.0).epsilon(1e-6));
    }
  }
}

TEST_CASE("a bead rolls over a convex fold of a mesh with one contact and no spurious impulse") {
  // Flat for x < 0, then down at 10°: the bead arrives at 0.2 m/s, rolling.
  const double slope = std::tan(10.0 * std::numbers::pi / 180.0);
  Model m;
  m.gravity = Eigen::Vector3d(0, 0, -kG);
  m.materials.set_defaults(0.5, 0.5, 0.0);
  m.meshes.push_back(std::make_shared<const TriangleMesh>(talus::test::folded_sheet(0.0, -slope, 1.0)));
  m.bodies.add_sphere(Eigen::Vector3d(-0.05, 0.1, kR), kR, 2500.0);
  const double v0 = 0.2;
  m.bodies.v[0] = Eigen::Vector3d(v0, 0, 0);
  m.bodies.w[0] = Eigen::Vector3d(0, v0 / kR, 0);
  GranularStepper s(m, exact_solve());
  const double z0 = m.bodies.x[0].z(), mass = m.bodies.mass[0], weight_impulse = mass * kG * kH;
  double max_excess_impulse = 0.0, max_excess = 0.0, worst_pivot = 0.0, vmax = 0.0;
  int edge_steps = 0;
  bool was_on_edge = false;
  const TriangleMesh& mesh = *m.meshes[0];
  for (int k = 0; k < 1500 && m.bodies.x[0].x() < 0.4; ++k) {
    const Eigen::Vector3d v_start = m.bodies.v[0];
    REQUIRE(s.step().solver.converged());
    REQUIRE(s.contacts().size() <= 1);
    const double v = m.bodies.v[0].norm();
    vmax = std::max(vmax, v);
    if (s.contacts().size() == 1) {
      const SweepContact& c = s.contacts()[0];
      const std::uint32_t feature = static_cast<std::uint32_t>(s.contact_keys()[0] >> 32) & 0x0fffffffu;
      // Beyond the weight's normal part, a step's impulse may turn the velocity by what the pivot turns it in one
      // step, v (v h / r) (the discrete O(h) lag); a bead striking an edge would take ~m v sin 10°, 3.5 times the
      // weight's impulse.
      max_excess_impulse = std::max(max_excess_impulse, c.r[0] - weight_impulse * c.n.z() - mass * v * v * kH / kR);
      const bool on_edge = static_cast<int>(feature) >= mesh.faces();
      if (on_edge) ++edge_steps;
      // Pivoting about the edge (this step and the last: the first step of the pivot is partly on the flat), the
      // centre moves on a circle of radius r: N = m (g cos φ − v²/r).
      if (on_edge && was_on_edge) {
        const double vs = 0.5 * (v_start.norm() + v);
        const double expected = mass * (kG * c.n.z() - vs * vs / kR) * kH;
        worst_pivot = std::max(worst_pivot, std::abs(c.r[0] - expected) / expected);
      }
      was_on_edge = on_edge;
    }
    // Rolling: 7/10 v² may grow by g Δz at most (1e-3: Moreau–Jean's O(h) on this path).
    max_excess = std::max(max_excess, 0.7 * (v * v - v0 * v0) - kG * (z0 - m.bodies.x[0].z()));
  }
  CHECK(m.bodies.x[0].x() >= 0.4);  // it got over the fold and down
  CHECK(edge_steps >= 5);           // pivoting about the fold's edge on the way
  CHECK(max_excess_impulse <= 0.0);
  CHECK(worst_pivot < 0.05);
  CHECK(max_excess < 1e-3 * kG * (z0 - m.bodies.x[0].z()));
}

TEST_CASE("a bead in a mesh valley rests on both faces, the weight shared as statics says") {
  const double a = std::numbers::pi / 6, s = std::tan(a);
  Model m;
  m.gravity = Eigen::Vector3d(0, 0, -kG);
  // Frictionless: with friction the wedge is statically indeterminate (the faces' friction may carry some weight).
  m.materials.set_defaults(0.0, 0.0, 0.0);
  m.meshes.push_back(std::make_shared<const TriangleMesh>(talus::test::folded_sheet(s, s, 0.5)));
  m.bodies.add_sphere(Eigen::Vector3d(0, 0, kR / std::cos(a) + 1e-4), kR, 2500.0);
  GranularStepper st(m, exact_solve());
  for (int k = 0; k < 100; ++k) REQUIRE(st.step().solver.converged());
  REQUIRE(st.contacts().size() == 2);
  // Each face carries W / (2 cos 30°) along its normal.
  for (const SweepContact& c : st.contacts())
    CHECK(c.r[0] / kH == Approx(m.bodies.mass[0] * kG / (2 * std::cos(a))).epsilon(1e-8));
  CHECK(m.bodies.x[0].z() == Approx(kR / std::cos(a)).epsilon(1e-9));
}

TEST_CASE("a capsule rolling down a tessellated incline follows the analytic plane's trajectory") {
  // Capsule–mesh contacts (contact/CapsuleMeshContact.hpp): on a plane, the two ends' contacts, as capsule_wall_points.
  const double theta = std::numbers::pi / 9;
  Model plane = bead_on_incline(theta, 0.5, false, false, -0.2, 0.0);
  Model mesh = bead_on_incline(theta, 0.5, true, false, -0.2, 0.0);
  const Eigen::Vector3d n(std::sin(theta), 0, std::cos(theta));
  for (Model* m : {&plane, &mesh}) {
    m->bodies.add_capsule(Eigen::Vector3d(-0.1, 0.0123, 0.0) + 0.006 * n, Eigen::Vector3d::UnitY(), 0.03, 0.006,
                          2500.0, Eigen::Vector3d::Zero());
  }
  GranularStepper sp(plane, exact_solve()), sm(mesh, exact_solve());
  const int c = plane.bodies.capsule(0);
  const Eigen::Vector3d x0 = mesh.bodies.x[c];
  double max_dx = 0.0;
  for (int k = 0; k < 300; ++k) {
    REQUIRE(sp.step().solver.converged());
    REQUIRE(sm.step().solver.converged());
    max_dx = std::max(max_dx, (mesh.bodies.x[c] - plane.bodies.x[c]).norm());
  }
  CHECK(sm.general_contacts().contacts.size() == sp.general_contacts().contacts.size());
  CHECK(max_dx < 1e-9);
  CHECK((mesh.bodies.x[c] - x0).norm() > 0.05);  // it rolled across many cells
}

TEST_CASE("a capsule lying across a mesh ridge rests on the ridge's edge") {
  const double slope = std::tan(std::numbers::pi / 6), r = 0.006;
  Model m;
  m.gravity = Eigen::Vector3d(0, 0, -kG);
  m.materials.set_defaults(0.5, 0.5, 0.0);
  m.meshes.push_back(std::make_shared<const TriangleMesh>(talus::test::folded_sheet(-slope, -slope, 0.5)));
  // Across the ridge (the y axis), its ends in the air over both slopes.
  m.bodies.add_capsule(Eigen::Vector3d(0, 0.1, r + 1e-4), Eigen::Vector3d::UnitX(), 0.04, r, 2500.0,
                       Eigen::Vector3d::Zero());
  const int c = m.bodies.capsule(0);
  GranularStepper s(m, exact_solve());
  for (int k = 0; k < 100; ++k) REQUIRE(s.step().solver.converged());
  REQUIRE(s.general_contacts().contacts.size() == 1);
  CHECK(s.general_contacts().contacts[0].r[0] / kH == Approx(m.bodies.mass[c] * kG).epsilon(1e-8));
  CHECK(m.bodies.x[c].z() == Approx(r).epsilon(1e-9));
  CHECK(std::abs(m.bodies.x[c].x()) < 1e-12);
}

TEST_CASE("a mesh wider than a periodic domain allows is refused, naming it") {
  Model m;
  m.gravity = Eigen::Vector3d(0, 0, -kG);
  m.periodic.axis[0] = true, m.periodic.lower = Eigen::Vector3d(-0.5, 0, 0), m.periodic.length = Eigen::Vector3d(1.0, 0, 0);
  m.meshes.push_back(std::make_shared<const TriangleMesh>(talus::test::flat_grid(-0.5, 0.5, -0.5, 0.5, 4, 4)));
  m.bodies.add_sphere(Eigen::Vector3d(0.01, 0.02, kR), kR, 2500.0);
  GranularStepper s(m, exact_solve());
  CHECK_THROWS_WITH(s.step(), Catch::Contains("mesh 0 ('grid') spans 1.0") && Catch::Contains("periodic axis x"));
}
