// The scene loader: every shipped example loads into the model it describes, and every kind of malformed
// scene is refused with ONE line naming the file, line, column and field (issue 2, "a malformed scene file
// gives a one-line error naming the problem").
#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <numbers>

#include "apps/SceneError.hpp"
#include "apps/SceneLoader.hpp"
#include "apps/TimeSeries.hpp"

using namespace talus;
using namespace talus::app;

namespace {

const std::filesystem::path kExamples = std::filesystem::path(TALUS_SOURCE_DIR) / "examples";

// The message the loader gives for `text`, which the test writes to a temporary file named `name`.
std::string error_of(const std::string& text, const std::string& name = "bad.yaml") {
  const auto file = std::filesystem::temp_directory_path() / ("talus_test_" + std::to_string(::getpid()) + "_" + name);
  {
    std::ofstream(file) << text;
  }
  std::string message;
  try {
    load_scene(file);
  } catch (const SceneError& e) {
    message = e.what();
  }
  std::filesystem::remove(file);
  // Messages name the file as given; strip the directory so expectations stay short.
  const std::string prefix = file.parent_path().string() + "/";
  if (message.rfind(prefix, 0) == 0) message.erase(0, prefix.size());
  return message;
}

const std::string kPrefix = "talus_test_";
std::string located(const std::string& name, int line, int col) {
  return kPrefix + std::to_string(::getpid()) + "_" + name + ":" + std::to_string(line) + ":" + std::to_string(col) + ": ";
}

// A valid one-ball scene to derive malformed variants from: line numbers below refer to it.
const std::string kBall =
    "name: ball\n"                             // 1
    "lti_systems:\n"                           // 2
    "  - name: ball\n"                         // 3
    "    M: [[1.0]]\n"                         // 4
    "    f_const: [-2.0]\n"                    // 5
    "    q0: [1.0]\n"                          // 6
    "interactions:\n"                          // 7
    "  - name: floor\n"                        // 8
    "    type: linear\n"                       // 9
    "    systems: [ball]\n"                    // 10
    "    C: [[1.0]]\n"                         // 11
    "    law: {type: newton, e: 0.5}\n"        // 12
    "integrator:\n"                            // 13
    "  h: 0.001\n"                             // 14
    "  t_end: 1.0\n";                          // 15

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("every example scene loads into the model it describes", "[apps][scene]") {
  for (const char* name : {"bouncing_ball", "linear_oscillator", "slope_friction", "rocking_block", "newtons_cradle"}) {
    INFO(name);
    const Scene s = load_scene(kExamples / (std::string(name) + ".yaml"));
    CHECK(s.name == name);
    CHECK(s.t_end > 0.0);
    CHECK(s.integrator.h > 0.0);
    CHECK_NOTHROW(s.model.validate());
  }

  const Scene bb = load_scene(kExamples / "bouncing_ball.yaml");
  REQUIRE(bb.model.lti.size() == 1);
  const LagrangianLti& ball = bb.model.lti[0];
  CHECK(ball.name == "ball");
  CHECK(ball.M.coeff(0, 0) == 1.0);
  CHECK(ball.f_const[0] == -2.0);
  CHECK(ball.q[0] == 1.0);
  CHECK(ball.v[0] == 0.0);
  REQUIRE(bb.model.interactions.size() == 1);
  const auto& rel = std::get<LinearRelation>(bb.model.interactions[0].relation);
  CHECK(rel.C(0, 0) == 1.0);
  CHECK(rel.b[0] == 0.0);
  CHECK(std::get<NewtonImpactLaw>(bb.model.interactions[0].law).e == 0.5);
  CHECK(bb.t_end == 4.0);
  CHECK(bb.integrator.h == 1e-3);
  CHECK(bb.integrator.theta == 0.5);
  CHECK(bb.integrator.solver == OneStepSolverKind::Lemke);

  // The oscillator's forcing: f_const + F sin(Ω t + π/2) = k ℓ + F cos(Ω t).
  const Scene lo = load_scene(kExamples / "linear_oscillator.yaml");
  const double t = 0.3;
  CHECK(lo.model.lti[0].external_force(t)[0] == Approx(19.739208802178716 + 15.0 * std::cos(8.0 * t)).epsilon(1e-14));

  // The slope's ramp: F(t) = f_const + f1 t.
  const Scene sf = load_scene(kExamples / "slope_friction.yaml");
  const Vector F = sf.model.lti[0].external_force(2.0);
  CHECK(F[0] == Approx(2.0 * 4.330127018922193));
  CHECK(F[1] == Approx(-9.81 + 2.0 * 2.5));
  CHECK(std::get<NewtonImpactFrictionLaw>(sf.model.interactions[0].law).dim == 2);

  // The cradle: 5 spheres, all 10 sphere pairs generated and named after them.
  const Scene nc = load_scene(kExamples / "newtons_cradle.yaml");
  CHECK(nc.model.bodies.count() == 5);
  REQUIRE(nc.model.interactions.size() == 10);
  CHECK(nc.model.interactions[0].name == "s0-s1");
  CHECK(nc.model.interactions[9].name == "s3-s4");
  CHECK(nc.model.bodies.v[0][0] == 1.0);
  CHECK(nc.model.bodies.mass[1] == Approx(7800 * 4.0 / 3.0 * std::numbers::pi * 0.02 * 0.02 * 0.02));

  // The block: one nonlinear system with four corner contacts, gravity from the scene's x–y components.
  const Scene rb = load_scene(kExamples / "rocking_block.yaml");
  REQUIRE(rb.model.nonlinear.size() == 1);
  CHECK(rb.model.interactions.size() == 4);
  Vector f(3);
  rb.model.nonlinear[0].force(0.0, rb.model.nonlinear[0].q, rb.model.nonlinear[0].v, f);
  CHECK(f[1] == -9.81);
}

TEST_CASE("output columns are named after the scene's systems and interactions", "[apps][scene]") {
  const Scene bb = load_scene(kExamples / "bouncing_ball.yaml");
  const std::vector<std::string> expected{"t",           "ball.q0",           "ball.v0",
                                          "floor.gap",   "floor.P0",          "kinetic",
                                          "potential",   "total",             "external_work",
                                          "contact_work", "numerical_dissipation", "damping_work",
                                          "active",      "solver_iterations", "solver_residual",
                                          "newton_iterations"};
  CHECK(TimeSeries(bb).columns() == expected);

  const Scene nc = load_scene(kExamples / "newtons_cradle.yaml");
  const auto cols = TimeSeries(nc).columns();
  CHECK(cols[1] == "s0.q0");
  CHECK(cols[7] == "s0.q6");
  CHECK(cols[8] == "s0.v0");
  CHECK(cols[13] == "s0.v5");
  CHECK(cols[1 + 5 * 13] == "s0-s1.gap");
  CHECK(cols[2 + 5 * 13] == "s0-s1.P0");  // frictionless: one impulse row
}

TEST_CASE("malformed scenes give one line naming file, line, column and field", "[apps][scene][errors]") {
  SECTION("the valid base scene loads") {
    CHECK(error_of(kBall).empty());
  }
  SECTION("YAML syntax error") {
    const std::string msg = error_of(replace(kBall, "    C: [[1.0]]\n", "    C: [[1.0]\n"), "syntax.yaml");
    CHECK(msg.rfind(kPrefix, 0) == 0);
    CHECK(msg.find("syntax.yaml:") != std::string::npos);
    CHECK(msg.find("YAML syntax error") != std::string::npos);
  }
  SECTION("missing required field: at the map that lacks it") {
    CHECK(error_of(replace(kBall, "  h: 0.001\n", ""), "missing.yaml") ==
          located("missing.yaml", 14, 3) + "field 'integrator.h': missing (required)");
  }
  SECTION("missing section") {
    const std::string s = kBall.substr(0, kBall.find("integrator:"));
    CHECK(error_of(s, "nosection.yaml") == located("nosection.yaml", 1, 1) + "field 'integrator': missing (required)");
  }
  SECTION("wrong type") {
    CHECK(error_of(replace(kBall, "h: 0.001", "h: fast"), "type.yaml") ==
          located("type.yaml", 14, 6) + "field 'integrator.h': is 'fast' (expected a positive number)");
    CHECK(error_of(replace(kBall, "q0: [1.0]", "q0: 1.0"), "type2.yaml") ==
          located("type2.yaml", 6, 9) + "field 'lti_systems[0].q0': is '1.0' (expected a list of 1 numbers: the size of M)");
  }
  SECTION("bad matrix size") {
    CHECK(error_of(replace(kBall, "    q0: [1.0]\n", "    q0: [1.0]\n    K: [[1, 0], [0, 1]]\n"), "size.yaml") ==
          located("size.yaml", 7, 8) + "field 'lti_systems[0].K': is 2×2 (expected 1×1: the size of M)");
    CHECK(error_of(replace(kBall, "C: [[1.0]]", "C: [[1.0, 0.0]]"), "size2.yaml") ==
          located("size2.yaml", 11, 8) +
              "field 'interactions[0].C': is 1×2 (expected 1×1: 1 rows for the law, 1 columns for the coordinates of "
              "the systems)");
    CHECK(error_of(replace(kBall, "M: [[1.0]]", "M: [[1.0, 0.0], [0.0]]"), "ragged.yaml") ==
          located("ragged.yaml", 4, 21) + "field 'lti_systems[0].M[1]': has 1 entries (expected 2, like the first row)");
  }
  SECTION("friction rows must match the relation") {
    CHECK(error_of(replace(kBall, "{type: newton, e: 0.5}", "{type: newton_friction, e: 0.5, mu: 0.3, dim: 2}"),
                   "rows.yaml") ==
          located("rows.yaml", 11, 8) +
              "field 'interactions[0].C': is 1×1 (expected 2×1: 2 rows for the law, 1 columns for the coordinates of "
              "the systems)");
  }
  SECTION("unknown key, with a suggestion for a typo") {
    CHECK(error_of("gravty: [0, 0, -9.81]\n" + kBall, "typo.yaml") ==
          located("typo.yaml", 1, 1) +
              "field 'gravty': unknown key (did you mean 'gravity'? expected one of: name, description, gravity, laws, materials, "
              "lti_systems, spheres, lattices, pours, particles, capsules, planes, boxes, drums, cones, meshes, periodic, outflow, planar_blocks, "
              "corotational_beams, "
              "beams, interactions, contacts, "
              "integrator, output)");
    CHECK(error_of(replace(kBall, "  t_end: 1.0\n", "  t_end: 1.0\n  thetta: 0.5\n"), "typo2.yaml")
              .rfind(located("typo2.yaml", 16, 3) + "field 'integrator.thetta': unknown key (did you mean 'theta'?", 0) == 0);
  }
  SECTION("duplicate key") {
    CHECK(error_of(replace(kBall, "  t_end: 1.0\n", "  t_end: 1.0\n  h: 0.01\n"), "dup.yaml") ==
          located("dup.yaml", 16, 3) + "field 'integrator.h': duplicate key (expected each key once)");
  }
  SECTION("unknown system name") {
    CHECK(error_of(replace(kBall, "systems: [ball]", "systems: [bal]"), "sys.yaml") ==
          located("sys.yaml", 10, 15) +
              "field 'interactions[0].systems[0]': unknown system 'bal' (expected the name of an LTI system or a "
              "planar block or a co-rotational beam: ball)");
  }
  SECTION("unknown law name") {
    CHECK(error_of(replace(kBall, "law: {type: newton, e: 0.5}", "law: bouncy"), "law.yaml") ==
          located("law.yaml", 12, 10) +
              "field 'interactions[0].law': unknown law 'bouncy' (expected a name defined under 'laws': none defined, or "
              "an inline law such as {type: newton, e: 0.5})");
  }
  SECTION("negative mass") {
    CHECK(error_of(replace(kBall, "M: [[1.0]]", "M: [[-1.0]]"), "mass.yaml") ==
          located("mass.yaml", 4, 8) +
              "field 'lti_systems[0].M': is not positive definite (expected positive masses: a symmetric positive "
              "definite matrix)");
    const std::string sphere =
        "spheres:\n"
        "  - {name: s, position: [0, 0, 1], radius: 0.1, mass: -2}\n"
        "integrator: {h: 0.01, t_end: 1}\n";
    CHECK(error_of(sphere, "sphere.yaml") ==
          located("sphere.yaml", 2, 55) + "field 'spheres[0].mass': is -2 (expected a positive number)");
  }
  SECTION("out-of-range values") {
    CHECK(error_of(replace(kBall, "e: 0.5", "e: 1.5"), "e.yaml") ==
          located("e.yaml", 12, 28) + "field 'interactions[0].law.e': is 1.5 (expected a number in [0, 1])");
    CHECK(error_of(replace(kBall, "  t_end: 1.0\n", "  t_end: 1.0\n  variant: fancy\n"), "variant.yaml") ==
          located("variant.yaml", 16, 12) +
              "field 'integrator.variant': unknown value 'fancy' (expected one of: standard, dissipative, paoli)");
  }
  SECTION("names are unique across systems and interactions") {
    CHECK(error_of(replace(kBall, "name: floor", "name: ball"), "name.yaml") ==
          located("name.yaml", 8, 11) +
              "field 'interactions[0].name': name 'ball' is already used by lti_systems[0] (expected unique names)");
  }
  SECTION("names that would escape the output directory or break column names") {
    CHECK(error_of(replace(kBall, "name: ball\n", "name: ../etc\n"), "scene_name.yaml") ==
          located("scene_name.yaml", 1, 7) +
              "field 'name': '../etc' has the character '.' (expected letters, digits, '_' or '-': it names the output "
              "directory)");
    CHECK(error_of(replace(kBall, "name: floor", "name: fl,oor"), "comma.yaml") ==
          located("comma.yaml", 8, 11) +
              "field 'interactions[0].name': 'fl,oor' has the character ',' (expected letters, digits, '_' or '-': "
              "names become output column prefixes)");
  }
  SECTION("a sphere needs exactly one of density and mass") {
    const std::string both =
        "spheres:\n"
        "  - {name: s, position: [0, 0, 1], radius: 0.1, mass: 2, density: 1000}\n"
        "integrator: {h: 0.01, t_end: 1}\n";
    CHECK(error_of(both, "both.yaml") ==
          located("both.yaml", 2, 67) + "field 'spheres[0].density': expected exactly one of 'density' or 'mass'");
  }
  SECTION("interaction endpoints of the wrong kind") {
    const std::string s =
        "spheres:\n"
        "  - {name: s, position: [0, 0, 1], radius: 0.1, density: 1000}\n"
        "  - {name: r, position: [0, 0, 3], radius: 0.1, density: 1000}\n"
        "interactions:\n"
        "  - {name: c, type: sphere_plane, systems: [s, r], law: {type: newton, e: 0}}\n"
        "integrator: {h: 0.01, t_end: 1}\n";
    CHECK(error_of(s, "kind.yaml") ==
          located("kind.yaml", 5, 48) + "field 'interactions[0].systems[1]': 'r' is a sphere (expected a plane)");
  }
  SECTION("equalities beside friction load (the mixed NSGS solves them together); two friction dims do not") {
    const std::string s =
        "lti_systems:\n"
        "  - {name: a, M: {diag: [1, 1]}}\n"
        "interactions:\n"
        "  - {name: c, type: linear, systems: [a], C: [[1, 0], [0, 1]], law: {type: newton_friction, e: 0, mu: 1, dim: 2}}\n"
        "  - {name: d, type: linear, systems: [a], C: [[1, 1]], law: {type: equality}}\n"
        "integrator: {h: 0.01, t_end: 1}\n";
    CHECK(error_of(s, "mix.yaml").empty());
    const std::string dims =
        "lti_systems:\n"
        "  - {name: a, M: {diag: [1, 1, 1]}}\n"
        "interactions:\n"
        "  - {name: c, type: linear, systems: [a], C: [[1, 0, 0], [0, 1, 0]], law: {type: newton_friction, e: 0, mu: 1, dim: 2}}\n"
        "  - {name: d, type: linear, systems: [a], C: [[1, 0, 0], [0, 1, 0], [0, 0, 1]], law: {type: newton_friction, e: 0, mu: 1, dim: 3}}\n"
        "integrator: {h: 0.01, t_end: 1}\n";
    CHECK(error_of(dims, "dims.yaml").rfind(located("dims.yaml", 5, 86) + "field 'interactions[1].law': has friction dim 3", 0) == 0);
  }
  SECTION("an empty scene or one without systems") {
    CHECK(error_of("", "empty.yaml").rfind(located("empty.yaml", 1, 1) + "the scene is nothing", 0) == 0);
    CHECK(error_of("integrator: {h: 0.01, t_end: 1}\n", "nosys.yaml").rfind(located("nosys.yaml", 1, 1) + "the scene has no dynamical system", 0) == 0);
  }
  SECTION("every message is a single line") {
    for (const std::string& text : {replace(kBall, "    C: [[1.0]]\n", "    C: [[1.0]\n"), std::string("- a\n- b\n"),
                                    std::string("a: [1, 2\n b: 3\n")}) {
      const std::string msg = error_of(text);
      CHECK(!msg.empty());
      CHECK(msg.find('\n') == std::string::npos);
    }
  }
}

TEST_CASE("a scene file that does not exist is reported by name", "[apps][scene][errors]") {
  try {
    load_scene("/nonexistent/scene.yaml");
    FAIL("no error");
  } catch (const SceneError& e) {
    CHECK(std::string(e.what()) == "/nonexistent/scene.yaml: cannot open the scene file");
  }
}
