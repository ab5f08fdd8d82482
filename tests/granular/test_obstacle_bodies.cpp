// The obstacles as bodies of the one store (issue 11 item 1; engine/granular/ObstacleBodies.hpp): one body per
// plane, box, cone, drum and mesh after the dynamic bodies, placed by its motion law at the model's time, never
// integrated, with the loads the bodies put on it over the last step as its force and torque; restored by the
// restart reader as the stepper leaves them.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>

#include "engine/granular/GranularStepper.hpp"
#include "engine/granular/ObstacleBodies.hpp"
#include "tests/contact/MeshShapes.hpp"

using namespace talus;
using namespace talus::granular;

namespace {

constexpr double kR = 0.01, kRho = 2500.0;

// A bead on a rising floor, inside a cylinder and a drum, beside a shaken side wall, a box and a turning mesh.
Model every_obstacle() {
  Model m;
  m.gravity = Eigen::Vector3d(0.0, 0.0, -9.81);
  contact::Wall floor;
  floor.speed = 0.05;
  m.walls.push_back(floor);
  contact::Wall side;
  side.normal = Eigen::Vector3d::UnitX(), side.offset = -0.5, side.amplitude = 0.01, side.frequency = 5.0;
  m.walls.push_back(side);
  contact::Box box;
  box.centre = Eigen::Vector3d(0.3, 0.0, 0.05), box.half_extent = Eigen::Vector3d(0.02, 0.02, 0.02);
  m.boxes.push_back(box);
  contact::Cone cylinder;
  cylinder.base = Eigen::Vector3d(0.0, 0.0, -0.1), cylinder.axis = Eigen::Vector3d::UnitZ();
  cylinder.radius_bottom = cylinder.radius_top = 0.2, cylinder.height = 1.0;
  m.cones.push_back(cylinder);
  contact::Drum drum;
  drum.centre = Eigen::Vector3d(0.0, 0.0, 0.5), drum.axis = Eigen::Vector3d::UnitY(), drum.radius = 0.6;
  drum.angular_velocity = 2.0;
  m.drums.push_back(drum);
  m.meshes.push_back(std::make_shared<const contact::TriangleMesh>(talus::test::flat_grid(4.0, 4.5, -0.25, 0.25, 2, 2)));
  contact::MeshMotion turn;
  turn.centre = Eigen::Vector3d(4.25, 0.0, 0.0), turn.axis = Eigen::Vector3d::UnitZ(), turn.angular_velocity = 1.5;
  m.mesh_motion.push_back(turn);
  m.bodies.add_sphere(Eigen::Vector3d(0.0, 0.0, kR), kR, kRho);
  return m;
}

}  // namespace

TEST_CASE("obstacle bodies: one per obstacle after the dynamic bodies, at rest with their laws' poses") {
  Model m = every_obstacle();
  GranularParameters p;
  p.h = 1e-3;
  p.tolerance = 1e-10;
  GranularStepper s(m, p);  // places them
  RigidBodies& b = m.bodies;
  REQUIRE(b.count() == 1);
  REQUIRE(b.obstacles() == 6);
  REQUIRE(b.stored() == 7);
  const std::vector<ObstacleRef> refs = model_obstacles(m);
  for (int k = 0; k < 6; ++k) {
    const int i = b.obstacle_body(k);
    CHECK(b.kind(i) == ShapeKind::Obstacle);
    CHECK(b.obstacle_of(i) == refs[k]);
    CHECK(b.id[i] == static_cast<std::uint32_t>(k));
    CHECK(b.inv_mass[i] == 0.0);
    CHECK(b.material[i] == kWallMaterial);
  }
  CHECK(refs[0] == ObstacleRef{ObstacleKind::Wall, 0});
  CHECK(refs[2] == ObstacleRef{ObstacleKind::Box, 0});
  CHECK(refs[5] == ObstacleRef{ObstacleKind::Mesh, 0});
  for (int k = 0; k < 250; ++k) {
    REQUIRE(s.step().solver.converged());
    // Placed at the model's time: the floor's point nearest the origin, and its mean velocity over the next step.
    const double t = m.time;
    const int floor = b.obstacle_body(0), side = b.obstacle_body(1), drum = b.obstacle_body(4), mesh = b.obstacle_body(5);
    CHECK(b.x[floor].z() == Approx(0.05 * t).margin(1e-15));
    CHECK(b.v[floor].z() == Approx(0.05).epsilon(1e-12));
    const double d0 = m.walls[1].displacement(t), d1 = m.walls[1].displacement(t + p.h);
    CHECK(b.x[side].x() == Approx(-0.5 + d0).epsilon(1e-14));
    CHECK(b.v[side].x() == Approx((d1 - d0) / p.h).epsilon(1e-12));
    // The body frame's z axis is the plane's normal, the drum's axis turned about itself, the mesh turning.
    CHECK((b.q[side] * Eigen::Vector3d::UnitZ() - Eigen::Vector3d::UnitX()).norm() < 1e-14);
    CHECK((b.q[drum] * Eigen::Vector3d::UnitZ() - Eigen::Vector3d::UnitY()).norm() < 1e-12);
    CHECK((b.w[drum] - 2.0 * Eigen::Vector3d::UnitY()).norm() == 0.0);
    CHECK((b.x[mesh] - Eigen::Vector3d(4.25, 0.0, 0.0)).norm() == 0.0);
    CHECK(Eigen::AngleAxisd(b.q[mesh]).angle() == Approx(1.5 * t).margin(1e-12));
  }
  // The bead rides the rising floor: it pushes it down with its weight (the floor's acceleration is zero), so the
  // floor body's force over the last step is (0, 0, −m g), and its torque about the floor's point is the arm
  // (the bead's contact point) across it.
  const int floor = b.obstacle_body(0);
  const double weight = b.mass[0] * 9.81;
  CHECK(b.force_of(floor).z() == Approx(-weight).epsilon(1e-6));
  const Eigen::Vector3d arm = b.x[0] - kR * Eigen::Vector3d::UnitZ() - b.x[floor];
  CHECK((b.torque_of(floor) - arm.cross(b.force_of(floor))).norm() < 1e-9 * weight);
  for (int k = 1; k < 6; ++k) CHECK(b.force_of(b.obstacle_body(k)).norm() == 0.0);
  // The kinematic bodies carry no kinetic energy: the store's sum is the bead's.
  CHECK(kinetic_energy(b) == Approx(0.5 * b.mass[0] * b.v[0].squaredNorm() + 0.5 / b.inv_inertia[0] * b.w[0].squaredNorm()));
}

TEST_CASE("obstacle bodies: kept through removals, rebuilt when the model's obstacles change") {
  Model m = every_obstacle();
  m.bodies.add_sphere(Eigen::Vector3d(0.1, 0.0, kR), kR, kRho);
  GranularParameters p;
  p.h = 1e-3;
  GranularStepper s(m, p);
  REQUIRE(s.step().solver.converged());
  RigidBodies& b = m.bodies;
  REQUIRE(b.obstacles() == 6);
  const Eigen::Vector3d box = b.x[b.obstacle_body(2)];
  std::vector<char> flags(b.count(), 0);
  flags[0] = 1;
  b.remove(flags);  // a bead leaves; the obstacles move down one slot and stay
  CHECK(b.count() == 1);
  CHECK(b.obstacles() == 6);
  CHECK(b.x[b.obstacle_body(2)] == box);
  CHECK(b.obstacle_of(b.obstacle_body(2)) == ObstacleRef{ObstacleKind::Box, 0});
  // A bead added later goes before them.
  b.add_sphere(Eigen::Vector3d(-0.1, 0.0, kR), kR, kRho);
  CHECK(b.count() == 2);
  CHECK(b.kind(2) == ShapeKind::Obstacle);
  REQUIRE(s.step().solver.converged());
  // A second box: the group is rebuilt at the next step, in model_obstacles' order.
  contact::Box second;
  second.centre = Eigen::Vector3d(-0.3, 0.0, 0.05), second.half_extent = Eigen::Vector3d::Constant(0.02);
  m.boxes.push_back(second);
  REQUIRE(s.step().solver.converged());
  REQUIRE(b.obstacles() == 7);
  CHECK(b.obstacle_of(b.obstacle_body(3)) == ObstacleRef{ObstacleKind::Box, 1});
  CHECK(b.x[b.obstacle_body(3)] == second.centre);
  CHECK(b.obstacle_of(b.obstacle_body(6)) == ObstacleRef{ObstacleKind::Mesh, 0});
  m.validate();  // the store's arrays agree in size with the groups
}
