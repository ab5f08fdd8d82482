// Loads on the obstacles (engine/analysis/ObstacleLoads.hpp), checked against what they cannot fake:
// - momentum: over any run of steps, the impulses the bodies put on all obstacles add up to M g T − ΔP, P the
//   bodies' momentum (every other impulse is between two bodies and cancels), to round-off; for walls with an
//   orifice, fixed boxes in a periodic chute, conical shells, drums with rolling resistance, capsules, under
//   Moreau–Jean and generalized-α;
// - statics: the walls of a close-packed box at rest hold the beads' weight and its moment about the origin;
// - moment: in a drum turning steadily the bed's angular momentum about the axis is steady in the mean, so the
//   torque it puts on the drum about the axis balances the moment of its weight about the axis,
//   M ((x̄ − c) × g) · a with x̄ the centroid (both averaged over the same steps).
#include <catch2/catch.hpp>

#include <cmath>

#include "engine/analysis/ObstacleLoads.hpp"
#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"

using namespace talus;
using namespace talus::granular;

namespace {

Eigen::Vector3d momentum(const RigidBodies& b) {
  Eigen::Vector3d p = Eigen::Vector3d::Zero();
  for (int i = 0; i < b.count(); ++i) p += b.mass[i] * b.v[i];
  return p;
}

double total_mass(const RigidBodies& b) {
  double m = 0.0;
  for (int i = 0; i < b.count(); ++i) m += b.mass[i];
  return m;
}

// Steps `steps` times and checks Σ obstacle impulses = M g T − ΔP; returns the loads.
ObstacleLoads check_momentum(Model& m, const GranularParameters& p, int steps, std::size_t expected_obstacles) {
  GranularStepper s(m, p);
  ObstacleLoads loads;
  loads.reset(m);
  REQUIRE(loads.obstacles.size() == expected_obstacles);
  const Eigen::Vector3d p0 = momentum(m.bodies);
  const double mass = total_mass(m.bodies);
  for (int k = 0; k < steps; ++k) {
    const GranularStepReport& r = s.step();
    INFO("step " << r.step << ": " << r.solver.message);
    REQUIRE(r.solver.converged());
    add_obstacle_impulses(m, s, loads);
  }
  Eigen::Vector3d sum = Eigen::Vector3d::Zero();
  for (const Eigen::Vector3d& j : loads.impulse) sum += j;
  const Eigen::Vector3d expected = mass * m.gravity * loads.time - (momentum(m.bodies) - p0);
  const double scale = mass * m.gravity.norm() * loads.time;
  INFO("sum of the obstacles' impulses " << sum.transpose() << " N s, M g T - dP " << expected.transpose()
                                         << " N s, M g T " << scale << " N s");
  CHECK(loads.steps == steps);
  CHECK(loads.time == Approx(steps * p.h));
  CHECK((sum - expected).norm() <= 1e-9 * scale);
  return loads;
}

}  // namespace

TEST_CASE("obstacle loads: the obstacles' impulses balance the bodies' momentum (walls with an orifice)") {
  BeadSpec spec;
  spec.n = 300;
  GranularScene sc = silo(spec, 4.0);
  GranularParameters p;
  p.h = 1e-3;
  const std::size_t n = sc.model.walls.size() + sc.model.boxes.size() + sc.model.cones.size();
  const ObstacleLoads loads = check_momentum(sc.model, p, 250, n);
  // The floor (wall 0) is loaded downwards once the beads land.
  CHECK(loads.impulse[0].z() < 0.0);
}

TEST_CASE("obstacle loads: momentum balance in a periodic chute with a box across it, and with capsules") {
  BeadSpec spec;
  spec.n = 200;
  GranularScene sc = chute(spec, 25.0, 40.0, true, 3.0);
  REQUIRE(sc.model.boxes.size() == 1);
  GranularParameters p;
  p.h = 1e-3;
  check_momentum(sc.model, p, 200, sc.model.walls.size() + 1);

  BeadSpec capsules;
  capsules.n = 120;
  capsules.capsule_fraction = 0.3;
  GranularScene stack = bead_stack(capsules);
  REQUIRE(stack.model.bodies.capsules() > 0);
  check_momentum(stack.model, p, 200, stack.model.walls.size());
}

TEST_CASE("obstacle loads: momentum balance in a drum with rolling resistance, under both schemes") {
  for (GranularScheme scheme : {GranularScheme::MoreauJean, GranularScheme::GeneralizedAlpha}) {
    BeadSpec spec;
    spec.radius = 1e-3;
    GranularScene sc = drum(spec, 6.0, 4.0, 0.35, 0.05);
    sc.model.materials.law(kBeadMaterial, kBeadMaterial).rolling = 0.1;
    sc.model.materials.law(kBeadMaterial, kWallMaterial).rolling = 0.1;
    GranularParameters p;
    p.h = 1e-3;
    p.scheme = scheme;
    INFO((scheme == GranularScheme::MoreauJean ? "Moreau-Jean" : "generalized-alpha"));
    check_momentum(sc.model, p, 200, 1);
  }
}

TEST_CASE("obstacle loads: the walls of a box at rest hold the weight of its beads and its moment") {
  // A close-packed box (every contact exactly closed) at rest from the start: 4 × 4 and 3 × 3 layers.
  BeadSpec spec;
  GranularScene sc = packed_box(spec, 4, 6);
  Model& m = sc.model;
  REQUIRE(m.walls.size() == 5);
  GranularParameters p;
  p.h = 1e-3;
  p.tolerance = 1e-6;
  p.solver = GranularSolver::Anderson;
  GranularStepper s(m, p);
  for (int k = 0; k < 100; ++k) REQUIRE(s.step().solver.converged());
  ObstacleLoads loads;
  loads.reset(m);
  for (int k = 0; k < 200; ++k) {
    REQUIRE(s.step().solver.converged());
    add_obstacle_impulses(m, s, loads);
  }
  const double weight = total_mass(m.bodies) * m.gravity.norm();
  Eigen::Vector3d total = Eigen::Vector3d::Zero();
  for (int k = 0; k < 5; ++k) total += loads.mean_force(k);
  INFO("weight " << weight << " N, floor " << loads.mean_force(0).transpose() << " N, walls "
                 << loads.mean_force(1).transpose() << " | " << loads.mean_force(2).transpose() << " | "
                 << loads.mean_force(3).transpose() << " | " << loads.mean_force(4).transpose() << ", KE "
                 << kinetic_energy(m.bodies) << " J");
  CHECK((total - Eigen::Vector3d(0.0, 0.0, -weight)).norm() <= 1e-3 * weight);
  CHECK(-loads.mean_force(0).z() >= 0.5 * weight);  // the floor carries most of it
  // box_walls: floor, then the two x walls, then the two y walls, each pushed outwards. (How the horizontal
  // loads split between a pair and the friction of the others is statically indeterminate: only the sums are
  // checked.)
  CHECK(loads.mean_force(1).x() < 0.0);
  CHECK(loads.mean_force(2).x() > 0.0);
  CHECK(loads.mean_force(3).y() < 0.0);
  CHECK(loads.mean_force(4).y() > 0.0);
  // At rest the obstacles hold the weight's moment too: their torques, moved to the origin (T_k + x_k × F_k about
  // the origin for a torque T_k about the reference point x_k), add up to that of the weight at the centroid.
  Eigen::Vector3d centroid = Eigen::Vector3d::Zero();
  for (int i = 0; i < m.bodies.count(); ++i) centroid += m.bodies.mass[i] * m.bodies.x[i];
  centroid /= total_mass(m.bodies);
  Eigen::Vector3d moment = Eigen::Vector3d::Zero();
  for (int k = 0; k < 5; ++k) moment += loads.mean_torque(k) + loads.reference[k].cross(loads.mean_force(k));
  const Eigen::Vector3d weight_moment = centroid.cross(total_mass(m.bodies) * m.gravity);
  INFO("obstacles' moment about the origin " << moment.transpose() << " N m, the weight's " << weight_moment.transpose());
  CHECK((moment - weight_moment).norm() <= 1e-3 * weight * centroid.norm());
}

TEST_CASE("obstacle loads: a steadily turning drum's torque balances the moment of the bed's weight") {
  BeadSpec spec;
  spec.radius = 1e-3;
  GranularScene sc = drum(spec, 6.0, 4.0, 0.35, 0.01);
  Model& m = sc.model;
  m.materials.law(kBeadMaterial, kBeadMaterial).rolling = 0.1;
  GranularParameters p;
  p.h = 1e-3;
  GranularStepper s(m, p);
  for (int k = 0; k < 700; ++k) REQUIRE(s.step().solver.converged());  // the bed is lifted to its angle
  ObstacleLoads loads;
  loads.reset(m);
  const contact::Drum& drum = m.drums[0];
  const double mass = total_mass(m.bodies);
  double gravity_moment = 0.0;
  const int steps = 800;
  for (int k = 0; k < steps; ++k) {
    REQUIRE(s.step().solver.converged());
    add_obstacle_impulses(m, s, loads);
    // The centroid about the axis in the plane across it (the axis is periodic: the along-axis part drops out).
    Eigen::Vector3d centroid = Eigen::Vector3d::Zero();
    for (int i = 0; i < m.bodies.count(); ++i) centroid += m.bodies.mass[i] * (m.bodies.x[i] - drum.centre);
    centroid /= mass;
    gravity_moment += mass * centroid.cross(m.gravity).dot(drum.axis) / steps;
  }
  const double torque = loads.mean_torque(0).dot(drum.axis);
  INFO("torque on the drum " << torque << " N m, moment of the weight about the axis " << gravity_moment
                             << " N m, drive power " << -torque * drum.angular_velocity << " W");
  // The bed is lifted on the rising side: the drum must be driven (positive power), and the torque the bed puts
  // on the drum is the moment of its weight (the drum holds the bed up against it).
  CHECK(-torque * drum.angular_velocity > 0.0);
  CHECK(torque == Approx(gravity_moment).epsilon(0.03));
}
