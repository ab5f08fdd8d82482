// Granular scene files (`granular:` map, docs/granular.md) are validated like the other scenes: every shipped
// granular example checks, and every kind of malformed key or value — in the file or in a `--set` override —
// is refused with ONE line naming where it came from (FILE:LINE:COL or "--set key=value") and the field.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "apps/GranularSceneFile.hpp"
#include "apps/SceneRun.hpp"
#include "tests/apps/GranularFileRun.hpp"
#include "apps/SceneError.hpp"

using namespace talus::app;

namespace {

const std::filesystem::path kExamples = std::filesystem::path(TALUS_SOURCE_DIR) / "examples";
const std::string kName = "talus_test_" + std::to_string(::getpid()) + "_granular.yaml";

// The message check_granular_scene gives for `text` (written to a temporary file), without its directory.
std::string error_of(const std::string& text, const std::vector<std::string>& sets = {}) {
  const auto file = std::filesystem::temp_directory_path() / kName;
  std::ofstream(file) << text;
  std::string message;
  try {
    check_granular_scene(file, sets);
  } catch (const SceneError& e) {
    message = e.what();
  }
  std::filesystem::remove(file);
  const std::string prefix = file.parent_path().string() + "/";
  if (message.rfind(prefix, 0) == 0) message.erase(0, prefix.size());
  return message;
}

std::string at(int line, int col) { return kName + ":" + std::to_string(line) + ":" + std::to_string(col) + ": "; }

const std::string kSilo =
    "granular:\n"              // 1
    "  scene: silo\n"          // 2
    "  n: 64\n"                // 3
    "  orifice_diameters: 3\n";  // 4

}  // namespace

TEST_CASE("every shipped granular example passes talus check with the sizes it names") {
  struct Expect {
    const char* file;
    const char* kind;
    long beads;
  };
  for (const Expect& e : {Expect{"bead_stack.yaml", "bead_stack", 1500}, Expect{"perturbed_stack.yaml", "perturbed_stack", 1000},
                          Expect{"silo.yaml", "silo", 1000}, Expect{"chute.yaml", "chute", 1000},
                          // 2048 on the lattice, less the 44 where the paddle stands.
                          Expect{"paddle_bed.yaml", "lattice_stack", 2004}}) {
    INFO(e.file);
    REQUIRE(is_granular_scene(kExamples / e.file));
    const GranularSceneSummary s = check_granular_scene(kExamples / e.file);
    CHECK(s.kind == e.kind);
    CHECK(s.beads == e.beads);
    CHECK(s.walls >= 3);
    CHECK(s.h == 1e-3);
  }
  CHECK_FALSE(is_granular_scene(kExamples / "bouncing_ball.yaml"));
}

TEST_CASE("overrides given with --set replace the file's values and are checked like them") {
  const auto file = std::filesystem::temp_directory_path() / kName;
  std::ofstream(file) << kSilo;
  const GranularSceneSummary s = check_granular_scene(file, {"n=27", "h=5e-4", "t_end=0.25"});
  std::filesystem::remove(file);
  CHECK(s.beads == 27);
  CHECK(s.h == 5e-4);
  CHECK(s.t_end == 0.25);

  CHECK(error_of(kSilo, {"n=abc"}) == "--set n=abc: field 'granular.n': is 'abc' (expected an integer)");
  CHECK(error_of(kSilo, {"n"}) == "--set n: expected key=value");
  CHECK(error_of(kSilo, {"scheme=newmark"}) == "--set scheme=newmark: field 'granular.scheme': unknown value 'newmark' "
                                                "(expected one of: moreau_jean, generalized_alpha)");
  CHECK(error_of(kSilo, {"scheme=generalized_alpha"}).empty());
  CHECK(error_of(kSilo, {"orifice_diameter=4"}).rfind("--set orifice_diameter=4: field 'granular.orifice_diameter': unknown key (did you mean "
                                             "'orifice_diameters'?", 0) == 0);
}

TEST_CASE("malformed granular scenes are refused with FILE:LINE:COL and the field") {
  // A misspelt key: its own position, and the key it probably meant.
  CHECK(error_of(kSilo + "  orifce_diameters: 4\n")
            .rfind(at(5, 3) + "field 'granular.orifce_diameters': unknown key (did you mean 'orifice_diameters'?", 0) == 0);
  // Wrong types and out-of-range values: the value's position.
  CHECK(error_of("granular:\n  n: many\n") == at(2, 6) + "field 'granular.n': is 'many' (expected an integer)");
  CHECK(error_of("granular:\n  n: 0\n") == at(2, 6) + "field 'granular.n': is 0 (expected an integer >= 1)");
  CHECK(error_of("granular:\n  radius: -0.01\n") ==
        at(2, 11) + "field 'granular.radius': is -0.01 (expected a positive number)");
  CHECK(error_of("granular:\n  restitution: 1.5\n") ==
        at(2, 16) + "field 'granular.restitution': is 1.5 (expected a number in [0, 1])");
  CHECK(error_of("granular:\n  mu: [0.3]\n") == at(2, 7) + "field 'granular.mu': is a list (expected a number >= 0)");
  CHECK(error_of("granular:\n  scene: hopper\n") ==
        at(2, 10) + "field 'granular.scene': unknown value 'hopper' (expected one of: bead_stack, perturbed_stack, "
                    "silo, chute, drum, lattice_stack, packed_box)");
  // A drum too large for the memory is refused on its size before anything is allocated.
  CHECK(error_of("granular:\n  scene: drum\n  radius_diameters: 1e6\n").rfind(
            at(3, 21) + "field 'granular.radius_diameters': ", 0) == 0);
  CHECK(error_of("granular:\n  scene: drum\n  fill: 0.9\n") ==
        at(3, 9) + "field 'granular.fill': is 0.9 (expected a number in [0, 0.6])");
  CHECK(error_of("granular:\n  solver: cg\n") ==
        at(2, 11) + "field 'granular.solver': unknown value 'cg' (expected one of: matrix_free, assembled, multilevel, nncg, anderson)");
  CHECK(error_of("granular:\n  name: a/b\n").rfind(at(2, 9) + "field 'granular.name': 'a/b' has the character '/'", 0) == 0);
  CHECK(error_of("granular:\n  restart: /nonexistent/restart.h5\n") ==
        at(2, 12) + "field 'granular.restart': '/nonexistent/restart.h5': no such file");
  // Keys beside granular:, duplicated keys, a granular: that is not a map.
  CHECK(error_of(kSilo + "gravity: [0, 0, -9.81]\n").rfind(at(5, 1) + "field 'gravity': unknown key", 0) == 0);
  CHECK(error_of(kSilo + "  n: 8\n") == at(5, 3) + "field 'granular.n': duplicate key (expected each key once)");
  CHECK(error_of("granular: 3\n") == at(1, 11) + "field 'granular': is '3' (expected a map)");
  // What only the scene generator can tell (an orifice wider than the box): the granular: map's position.
  CHECK(error_of("granular:\n  scene: silo\n  n: 8\n  orifice_diameters: 50\n")
            .rfind(at(2, 3) + "field 'granular': silo: orifice wider than the box", 0) == 0);
}

namespace {

// A scene with two materials (tests/granular/test_materials.cpp checks what they do).
const std::string kMaterials =
    "granular:\n"                              // 1
    "  scene: bead_stack\n"                    // 2
    "  n: 27\n"                                // 3
    "  materials:\n"                           // 4
    "    - {name: glass, fraction: 0.5}\n"     // 5
    "    - {name: steel}\n";                   // 6

}  // namespace

TEST_CASE("material keys are checked where they are written") {
  CHECK(error_of(kMaterials + "  contact_laws:\n    - {pair: [glass, steel], mu: 0.2, e: 0.5}\n  wall_material: steel\n").empty());
  CHECK(error_of(kMaterials + "  contact_laws:\n    - {pair: [glass, brass], mu: 0.2}\n") ==
        at(8, 22) + "field 'granular.contact_laws[0].pair[1]': unknown material 'brass' (expected one of: bead, wall, glass, steel)");
  CHECK(error_of(kMaterials + "  contact_laws:\n    - {pair: [glass, steel], mu: -0.2}\n") ==
        at(8, 34) + "field 'granular.contact_laws[0].mu': is -0.2 (expected a number >= 0)");
  CHECK(error_of(kMaterials + "  contact_laws:\n    - {pair: [glass, wall], e: 1.5}\n") ==
        at(8, 32) + "field 'granular.contact_laws[0].e': is 1.5 (expected a number in [0, 1])");
  CHECK(error_of(kMaterials + "  contact_laws:\n    - {pair: [glass, steel], mu: 0.2}\n    - {pair: [steel, glass], e: 0.1}\n") ==
        at(9, 14) + "field 'granular.contact_laws[1].pair': the pair steel/glass is given twice (first at line 8)");
  CHECK(error_of(kMaterials + "  wall_material: brass\n") ==
        at(7, 18) + "field 'granular.wall_material': unknown material 'brass' (expected one of: bead, wall, glass, steel)");
  CHECK(error_of(kMaterials + "    - {name: glass}\n").rfind(at(7, 14) + "field 'granular.materials[2].name': 'glass' is defined twice", 0) == 0);
  CHECK(error_of(kMaterials + "    - {name: iron, fraction: 0.6}\n") ==
        at(7, 30) + "field 'granular.materials[2].fraction': brings the beads' shares to 1.100000 (expected at most 1 in all)");
  CHECK(error_of(kMaterials + "  mu_wall: -1\n") == at(7, 12) + "field 'granular.mu_wall': is -1 (expected a number >= 0)");
  CHECK(error_of(kMaterials + "  rolling_friction: 0.1\n  rolling_friction_wall: 0.05\n  contact_laws:\n"
                              "    - {pair: [glass, steel], rolling_friction: 0.2}\n").empty());
  CHECK(error_of(kMaterials + "  rolling_friction: -0.1\n") ==
        at(7, 21) + "field 'granular.rolling_friction': is -0.1 (expected a number >= 0)");
  CHECK(error_of(kMaterials + "  contact_laws:\n    - {pair: [glass, steel], rolling_friction: -1}\n") ==
        at(8, 48) + "field 'granular.contact_laws[0].rolling_friction': is -1 (expected a number >= 0)");
}

// A bed with a driven paddle (docs/granular.md "Joints and mechanisms"; tests/granular/test_granular_joints.cpp
// checks what the joints do).
const std::string kPaddle =
    "granular:\n"                                                                             // 1
    "  scene: packed_box\n"                                                                   // 2
    "  width: 6\n"                                                                            // 3
    "  layers: 2\n"                                                                           // 4
    "  capsules:\n"                                                                           // 5
    "    - {name: paddle, position: [0.06, 0.06, 0.05], radius: 0.004, half_length: 0.02}\n"  // 6
    "  joints:\n";                                                                            // 7

TEST_CASE("capsule and joint keys are checked where they are written") {
  CHECK(error_of(kPaddle + "    - {name: hinge, type: revolute_joint, systems: [paddle], anchor: [0.06, 0.06, 0.05], axis: [0, 0, 1]}\n"
                           "    - {name: motor, type: driver, systems: [paddle], anchor: [0.06, 0.06, 0.05], axis: [0, 0, 1], rate: 2}\n")
            .empty());
  // The keys of single scenes' joints: a driver needs no anchor, the other joints do.
  CHECK(error_of(kPaddle + "    - {name: hinge, type: revolute_joint, systems: [paddle], anchor: [0.06, 0.06, 0.05], axis: [0, 0, 1]}\n"
                           "    - {name: motor, type: driver, systems: [paddle], axis: [0, 0, 1], rate: 2}\n")
            .empty());
  CHECK(error_of(kPaddle + "    - {name: hinge, type: revolute_joint, systems: [paddle], axis: [0, 0, 1]}\n")
            .find("field 'granular.joints[0].anchor': missing (required)") != std::string::npos);
  CHECK(error_of(kPaddle + "    - {name: hinge, type: hinge_joint, systems: [paddle], anchor: [0, 0, 0], axis: [0, 0, 1]}\n") ==
        at(8, 27) + "field 'granular.joints[0].type': unknown joint type 'hinge_joint' (expected one of: spherical_joint, "
                    "revolute_joint, prismatic_joint, driver)");
  CHECK(error_of(kPaddle + "    - {name: hinge, type: revolute_joint, systems: [blade], anchor: [0, 0, 0], axis: [0, 0, 1]}\n") ==
        at(8, 53) + "field 'granular.joints[0].systems[0]': unknown capsule 'blade' (expected one of the capsules: list's names: paddle)");
  CHECK(error_of(kPaddle + "    - {name: hinge, type: revolute_joint, systems: [paddle], anchor: [0, 0, 0], axis: [0, 0, 0]}\n") ==
        at(8, 87) + "field 'granular.joints[0].axis': is zero (expected a direction)");
  CHECK(error_of(kPaddle + "    - {name: hinge, type: revolute_joint, systems: [paddle], anchor: [0, 0, 0], axis: [0, 0, 1], rate: 1}\n") ==
        at(8, 104) + "field 'granular.joints[0].rate': only a driver has a rate");
  CHECK(error_of(kPaddle + "    - {name: hinge, type: revolute_joint, systems: [paddle], anchor: [0, 0], axis: [0, 0, 1]}\n")
            == at(8, 70) + "field 'granular.joints[0].anchor': has 2 entries (expected 3: [x, y, z] in m)");
  CHECK(error_of(kPaddle + "    - {name: hinge, type: revolute_joint, systems: [paddle], anchr: [0, 0, 0]}\n")
            .rfind(at(8, 62) + "field 'granular.joints[0].anchr': unknown key (did you mean 'anchor'?", 0) == 0);
  // The stepper's own refusal, at the scene: joints with a solver that cannot step them.
  CHECK(error_of(kPaddle + "    - {name: hinge, type: spherical_joint, systems: [paddle], anchor: [0.06, 0.06, 0.07]}\n  solver: multilevel\n")
            .find("does not step joints") != std::string::npos);
  CHECK(error_of(kSilo + "  capsules:\n    - {name: p, position: [0, 0, 0.5], radius: 0.01, half_length: 0.02}\n"
                         "  joints:\n    - {name: j, type: spherical_joint, systems: [p], anchor: [0, 0, 0.5]}\n")
            .rfind(at(8, 5) + "field 'granular.joints': this scene adds or removes bodies while it runs", 0) == 0);
}

TEST_CASE("measure_region is a box of six numbers, checked where it is written") {
  CHECK(error_of(kSilo + "  measure_region: [0, 0, 0, 0.1, 0.1, 0.1]\n").empty());
  CHECK(error_of(kSilo + "  measure_region: [0, 0, 0, 0.1, 0.1]\n") ==
        at(5, 19) + "field 'granular.measure_region': has 5 entries (expected 6: [x0, y0, z0, x1, y1, z1] in m)");
  CHECK(error_of(kSilo + "  measure_region: [0, 0, 0.2, 0.1, 0.1, 0.1]\n") ==
        at(5, 19) + "field 'granular.measure_region': is an empty box (expected x0 < x1, y0 < y1 and z0 < z1)");
}


namespace {

// Runs the granular scene file with the --set overrides into `out` (quietly) and returns its run.json.
nlohmann::json run_json(const std::filesystem::path& file, const std::filesystem::path& out,
                        const std::vector<std::string>& sets) {
  std::ostringstream log;
  REQUIRE(talus::test::run_granular_file(file, sets, talus::test::quiet_run(out, log)) == 0);
  nlohmann::json j;
  std::ifstream(out / "run.json") >> j;
  return j;
}

}  // namespace

TEST_CASE("the opt-in sweep settings contact_order and anderson_warm are read, checked and recorded") {
  CHECK(error_of(kSilo, {"contact_order=upwards"}) ==
        "--set contact_order=upwards: field 'granular.contact_order': unknown value 'upwards' (expected one of: "
        "detection, bottom_up, top_down)");
  CHECK(error_of(kSilo, {"anderson_warm=-1"}) ==
        "--set anderson_warm=-1: field 'granular.anderson_warm': is -1 (expected a number >= 0)");
  CHECK(error_of(kSilo + "  contact_order: top_down\n  anderson_warm: 3\n").empty());

  // A short run records what it stepped with; bottom-up order changes the sweeps' visiting order, so the
  // sweep counts of the two runs differ (the physics is the same to the tolerance).
  const auto dir = std::filesystem::temp_directory_path() / ("talus_test_" + std::to_string(::getpid()) + "_order");
  const auto file = dir / "stack.yaml";
  std::filesystem::create_directories(dir);
  std::ofstream(file) << "granular:\n  scene: bead_stack\n  n: 125\n  t_end: 0.06\n";
  const auto run = [&](const std::string& out, const std::vector<std::string>& sets) {
    return run_json(file, dir / out, sets);
  };
  const nlohmann::json plain = run("detection", {});
  const nlohmann::json ordered = run("bottom_up", {"contact_order=bottom_up", "anderson_warm=3"});
  CHECK(plain["parameters"]["contact_order"] == "detection");
  CHECK(plain["parameters"]["anderson_warm"] == 0.0);
  CHECK(ordered["parameters"]["contact_order"] == "bottom_up");
  CHECK(ordered["parameters"]["anderson_warm"] == 3.0);
  CHECK(ordered["results"]["worst_residual"].get<double>() <= 1e-4);
  CHECK(ordered["results"]["mean_sweeps"].get<double>() != plain["results"]["mean_sweeps"].get<double>());
  std::filesystem::remove_all(dir);
}

TEST_CASE("the multilevel cycle's settings are read, checked, recorded and reach the solver") {
  CHECK(error_of(kSilo, {"multilevel_routing=star"}) ==
        "--set multilevel_routing=star: field 'granular.multilevel_routing': unknown value 'star' (expected one of: "
        "spread, tree)");
  CHECK_THAT(error_of(kSilo, {"multilevel_pre_sweeps=-1"}),
             Catch::StartsWith("--set multilevel_pre_sweeps=-1: field 'granular.multilevel_pre_sweeps': is -1"));
  CHECK(error_of(kSilo + "  multilevel_post_sweeps: 3\n  multilevel_routing: tree\n").empty());

  // The cold step of a packed box 2 beads wide and 40 layers to 1e-8: plain_first plain sweeps, then cycles of
  // pre + post fine sweeps (none taken back here: 232 = 16 + 18 × 12 with the defaults, 214 = 4 + 42 × 5 with the
  // settings below, 268 = 16 + 21 × 12 with the tree routing alone).
  const auto dir = std::filesystem::temp_directory_path() / ("talus_test_" + std::to_string(::getpid()) + "_ml");
  const auto file = dir / "box.yaml";
  std::filesystem::create_directories(dir);
  std::ofstream(file) << "granular:\n  scene: packed_box\n  width: 2\n  layers: 40\n  t_end: 0.001\n"
                         "  solver: multilevel\n  tolerance: 1.0e-8\n";
  const auto run = [&](const std::string& out, const std::vector<std::string>& sets) {
    return run_json(file, dir / out, sets);
  };
  const nlohmann::json defaults = run("defaults", {});
  const nlohmann::json set = run("set", {"multilevel_plain_first=4", "multilevel_pre_sweeps=3",
                                         "multilevel_post_sweeps=2", "multilevel_routing=tree"});
  CHECK(defaults["parameters"]["multilevel_pre_sweeps"] == 6);
  CHECK(defaults["parameters"]["multilevel_routing"] == "spread");
  CHECK(set["parameters"]["multilevel_plain_first"] == 4);
  CHECK(set["parameters"]["multilevel_routing"] == "tree");
  const nlohmann::json tree = run("tree", {"multilevel_routing=tree"});
  const auto sweeps = [](const nlohmann::json& j) { return static_cast<int>(j["results"]["mean_sweeps"].get<double>()); };
  for (const nlohmann::json* j : {&defaults, &set, &tree}) CHECK((*j)["results"]["worst_residual"].get<double>() <= 1e-8);
  CHECK(sweeps(defaults) > 16);
  CHECK((sweeps(defaults) - 16) % 12 == 0);
  CHECK((sweeps(set) - 4) % 5 == 0);
  CHECK((sweeps(set) - 4) % 12 != 0);
  CHECK((sweeps(tree) - 16) % 12 == 0);
  CHECK(sweeps(tree) != sweeps(defaults));
  std::filesystem::remove_all(dir);
}
