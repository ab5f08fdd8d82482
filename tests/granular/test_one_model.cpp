// One Model for every integrator (issue 11): beads and capsules are groups of the one body store beside the
// small path's bodies; each integrator refuses, naming what, the parts of a model it cannot step yet, and steps
// the same model type otherwise.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "engine/DofLayout.hpp"
#include "engine/Model.hpp"
#include "engine/MoreauJean.hpp"
#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"

using namespace talus;

namespace {

bool message_has(const std::exception& e, const std::string& what) {
  return std::string(e.what()).find(what) != std::string::npos;
}

}  // namespace

TEST_CASE("One store: spheres, capsules and general bodies keep their groups and ids through adds and removals") {
  RigidBodies b;
  const int g = add_general_sphere(b, Eigen::Vector3d(0.0, 0.0, 1.0), 0.1, 1000.0);
  CHECK(g == 0);
  b.add_capsule(Eigen::Vector3d(1.0, 0.0, 0.0), Eigen::Vector3d::UnitX(), 0.02, 0.01, 2500.0);
  b.add_sphere(Eigen::Vector3d(2.0, 0.0, 0.0), 0.01, 2500.0);
  b.add_sphere(Eigen::Vector3d(3.0, 0.0, 0.0), 0.01, 2500.0);
  // Spheres first, then capsules, then general bodies, whatever the order of adding.
  REQUIRE(b.spheres() == 2);
  REQUIRE(b.capsules() == 1);
  REQUIRE(b.general() == 1);
  CHECK(b.kind(0) == ShapeKind::Sphere);
  CHECK(b.kind(b.capsule(0)) == ShapeKind::Capsule);
  CHECK(b.kind(3) == ShapeKind::General);
  CHECK(b.x[0].x() == 2.0);
  CHECK(b.x[1].x() == 3.0);
  CHECK(b.x[b.capsule(0)].x() == 1.0);
  CHECK(b.x[3].z() == 1.0);
  CHECK(b.id[0] == 0);
  CHECK(b.id[1] == 1);  // ids run per kind
  CHECK(b.id[b.capsule(0)] == 0);
  // A sphere's inverse inertia is the scalar of a solid sphere; the capsule's world tensor is refreshed.
  CHECK(b.inv_inertia[0] == Approx(1.0 / (0.4 * b.mass[0] * 1e-4)).epsilon(1e-14));
  refresh_world_inertia(b);
  CHECK(b.inv_inertia_world_of(b.capsule(0))(0, 0) == Approx(1.0 / b.inertia[b.capsule(0)].z()).epsilon(1e-12));

  // Fields of the non-sphere bodies only follow their bodies when spheres are added before them.
  b.force_of(3) = Eigen::Vector3d(1.0, 2.0, 3.0);
  b.torque_of(b.capsule(0)) = Eigen::Vector3d(4.0, 5.0, 6.0);
  CHECK(b.force.size() == 2u);
  CHECK(b.inv_inertia_world.size() == 2u);

  // Re-sorting the spheres moves every array together.
  std::vector<char> scratch;
  b.permute_spheres({1, 0}, scratch);
  CHECK(b.x[0].x() == 3.0);
  CHECK(b.id[0] == 1);
  CHECK(b.x[1].x() == 2.0);
  CHECK(b.id[1] == 0);
  CHECK(b.x[b.capsule(0)].x() == 1.0);

  // Removing a sphere and the capsule keeps the others' order and ids, and the groups.
  std::vector<char> flags(b.count(), 0);
  flags[0] = 1, flags[b.capsule(0)] = 1;
  b.remove(flags);
  CHECK(b.count() == 2);
  CHECK(b.spheres() == 1);
  CHECK(b.capsules() == 0);
  CHECK(b.general() == 1);
  CHECK(b.id[0] == 0);
  CHECK(b.x[1].z() == 1.0);
  CHECK(b.force.size() == 1u);
  CHECK(b.force_of(1) == Eigen::Vector3d(1.0, 2.0, 3.0));
  CHECK(b.torque_of(1) == Eigen::Vector3d::Zero());
  // A sphere added now goes before the general body, whose loads stay its own.
  b.add_sphere(Eigen::Vector3d(4.0, 0.0, 0.0), 0.01, 2500.0);
  CHECK(b.kind(2) == ShapeKind::General);
  CHECK(b.force_of(2) == Eigen::Vector3d(1.0, 2.0, 3.0));
  CHECK(b.force.size() == 1u);
}

TEST_CASE("One model: the granular stepper refuses the small path's systems and bodies, naming them") {
  granular::BeadSpec spec;
  spec.n = 8;
  granular::GranularScene sc = granular::bead_stack(spec);
  add_general_sphere(sc.model.bodies, Eigen::Vector3d(0.5, 0.5, 0.5), 0.1, 1000.0);
  try {
    granular::GranularStepper stepper(sc.model, granular::GranularParameters{});
    FAIL("a general body was accepted by the granular stepper");
  } catch (const std::invalid_argument& e) {
    CHECK(message_has(e, "1 general rigid bodies"));
  }
}

TEST_CASE("One model: the small-system schemes refuse beads and obstacles at their first step, naming them") {
  granular::BeadSpec spec;
  spec.n = 8;
  granular::GranularScene sc = granular::bead_stack(spec);
  try {
    MoreauJean integrator(sc.model, MoreauJeanParameters{});
    integrator.step();
    FAIL("beads were accepted by Moreau-Jean's small-system scheme");
  } catch (const std::invalid_argument& e) {
    CHECK(message_has(e, "8 beads"));
    CHECK(message_has(e, "obstacles"));
  }
  // The same model type with only a general body is the small path's.
  Model small;
  small.gravity = Eigen::Vector3d(0.0, 0.0, -9.81);
  add_general_sphere(small.bodies, Eigen::Vector3d::Zero(), 0.1, 1000.0);
  const DofLayout layout = make_dof_layout(small);
  CHECK(layout.bodies == 1);
  CHECK(layout.n_vels == 6);
}

TEST_CASE("One model: the granular stepper steps the Model the small path uses, beads falling freely") {
  Model m;
  m.gravity = Eigen::Vector3d(0.0, 0.0, -9.81);
  m.bodies.add_sphere(Eigen::Vector3d(0.0, 0.0, 1.0), 0.01, 2500.0);
  granular::GranularParameters p;
  p.h = 1e-3;
  granular::GranularStepper stepper(m, p);
  for (int k = 0; k < 100; ++k) REQUIRE(stepper.step().solver.converged());
  // Moreau-Jean (theta = 1) in free flight: v_n = -g n h, z_n = z_0 - g h^2 n (n + 1) / 2.
  CHECK(m.bodies.v[0].z() == Approx(-9.81 * 0.1).epsilon(1e-12));
  CHECK(m.bodies.x[0].z() == Approx(1.0 - 9.81 * 1e-6 * 100 * 101 / 2).epsilon(1e-12));
}
