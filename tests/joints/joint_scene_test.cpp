// Joints in scene files (docs/scene-format.md, "Joints"): a valid jointed scene loads into joint relations
// with equality laws, and each kind of bad joint input is refused with the file, line and column of the
// field.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "apps/SceneError.hpp"
#include "apps/SceneLoader.hpp"
#include "tests/SceneText.hpp"

using namespace talus;
using namespace talus::app;

namespace {

// Line numbers below refer to this scene.
const std::
    string
        kPendulum =
            "name: pendulum\n"                                                     // 1
            "gravity: [0, 0, -9.81]\n"                                             // 2
            "spheres:\n"                                                           // 3
            "  - {name: upper, position: [0.4, 0, 0], radius: 0.05, mass: 1}\n"    // 4
            "  - {name: lower, position: [0.7, 0, 0], radius: 0.04, mass: 0.5}\n"  // 5
            "planes:\n"                                                            // 6
            "  - {name: floor, normal: [0, 0, 1], offset: -2}\n"                   // 7
            "interactions:\n"                                                      // 8
            "  - {name: shoulder, type: revolute_joint, systems: [upper], anchor: [0, 0, 0], axis: [0, 1, "
            "0]}\n"  // 9
            "  - {name: elbow, type: revolute_joint, systems: [lower, upper], anchor: [0.4, 0, 0], axis: [0, "
            "1, 0]}\n"         // 10
            "integrator:\n"    // 11
            "  h: 0.001\n"     // 12
            "  t_end: 1.0\n";  // 13

std::string error_of(const std::string& text) { return test::scene_error(text, "joints.yaml", "(accepted)"); }

std::string replace_once(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

bool starts(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

TEST_CASE("a scene's joints load as joint relations with equality laws", "[joints][scene]") {
  const Scene scene = load_scene_from_string(kPendulum, "joints.yaml");
  REQUIRE(scene.model.interactions.size() == 2);
  const Interaction& elbow = scene.model.interactions[1];
  const auto* j = std::get_if<JointRelation>(&elbow.relation);
  REQUIRE(j != nullptr);
  CHECK(j->kind == JointKind::Revolute);
  CHECK(std::get<EqualityLaw>(elbow.law).rows == 5);
  REQUIRE(elbow.systems.size() == 2);
  CHECK(elbow.systems[1].index == 0);
  // The anchor is stored from each body's centre: 0.3 m behind the lower sphere, at the upper one's centre.
  CHECK((j->anchor_a - Eigen::Vector3d(-0.3, 0, 0)).norm() <= 1e-15);
  CHECK(j->anchor_b.norm() <= 1e-15);
  CHECK(scene.model.interactions[0].systems.size() == 1);  // the shoulder holds the upper sphere to the world

  const Scene driven = load_scene_from_string(
      replace_once(
          kPendulum, "integrator:\n",
          "  - {name: motor, type: driver, systems: [upper], axis: [0, 2, 0], rate: 1.5}\n"
          "  - {name: slide, type: prismatic_joint, systems: [lower], anchor: [0.7, 0, 0], axis: [1, 0, 0]}\n"
          "integrator:\n"),
      "joints.yaml");
  CHECK(std::get<JointRelation>(driven.model.interactions[2].relation).drive_rate == 1.5);
  CHECK(std::get<JointRelation>(driven.model.interactions[2].relation).axis_b == Eigen::Vector3d::UnitY());
  CHECK(std::get<EqualityLaw>(driven.model.interactions[3].law).rows == 5);
}

TEST_CASE("bad joint input is refused with file, line and column", "[joints][scene]") {
  // An unknown body, with the names it could have been.
  std::string e = error_of(replace_once(kPendulum, "systems: [lower, upper]", "systems: [lower, uper]"));
  INFO(e);
  CHECK(starts(e, "joints.yaml:10:"));
  CHECK(e.find("unknown system 'uper'") != std::string::npos);
  CHECK(e.find("lower, upper") != std::string::npos);

  // A plane is not a body.
  e = error_of(replace_once(kPendulum, "systems: [lower, upper]", "systems: [lower, floor]"));
  CHECK(starts(e, "joints.yaml:10:"));
  CHECK(e.find("'floor' is a plane") != std::string::npos);

  // The same body twice, and too many bodies.
  e = error_of(replace_once(kPendulum, "systems: [lower, upper]", "systems: [lower, lower]"));
  CHECK(starts(e, "joints.yaml:10:"));
  CHECK(e.find("same sphere twice") != std::string::npos);
  e = error_of(replace_once(kPendulum, "systems: [lower, upper]", "systems: [lower, upper, lower]"));
  CHECK(starts(e, "joints.yaml:10:"));
  CHECK(e.find("expected 1 or 2 spheres") != std::string::npos);

  // A zero axis, at the axis's own column.
  e = error_of(
      replace_once(kPendulum, "axis: [0, 1, 0]}\n  - {name: elbow", "axis: [0, 0, 0]}\n  - {name: elbow"));
  CHECK(starts(e, "joints.yaml:9:"));
  CHECK(e.find("axis") != std::string::npos);
  CHECK(e.find("is zero") != std::string::npos);

  // Missing keys: a revolute joint's anchor and axis, a driver's rate.
  e = error_of(replace_once(kPendulum, ", anchor: [0.4, 0, 0]", ""));
  CHECK(starts(e, "joints.yaml:10:"));
  CHECK(e.find("anchor") != std::string::npos);
  e = error_of(replace_once(kPendulum, "integrator:\n",
                            "  - {name: motor, type: driver, systems: [upper], axis: [0, 1, 0]}\n"
                            "integrator:\n"));
  CHECK(starts(e, "joints.yaml:11:"));
  CHECK(e.find("rate") != std::string::npos);

  // A key the joint does not read (a law: a joint's law is implied), and an unknown joint type.
  e = error_of(replace_once(kPendulum, "axis: [0, 1, 0]}\n  - {name: elbow",
                            "axis: [0, 1, 0], law: {type: equality}}\n  - {name: elbow"));
  CHECK(starts(e, "joints.yaml:9:"));
  CHECK(e.find("law") != std::string::npos);
  e = error_of(replace_once(kPendulum, "type: revolute_joint, systems: [upper]",
                            "type: hinge_joint, systems: [upper]"));
  CHECK(starts(e, "joints.yaml:9:"));
  CHECK(e.find("revolute_joint") != std::string::npos);

  // A non-finite anchor is refused by the reader as a number.
  e = error_of(replace_once(kPendulum, "anchor: [0, 0, 0]", "anchor: [0, .nan, 0]"));
  CHECK(starts(e, "joints.yaml:9:"));
}

TEST_CASE("the jointed example scene loads", "[joints][scene]") {
  const Scene scene = load_scene(std::string(TALUS_SOURCE_DIR) + "/examples/pendulum_joint.yaml");
  CHECK(scene.model.bodies.count() == 2);
  CHECK(scene.model.interactions.size() == 2);
}
