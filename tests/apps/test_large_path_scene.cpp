// One scene format for both paths (issue 11 item 5): a single scene with `integrator.path: large` puts its
// spheres in the sphere group, its planes among the walls and its contact law in the material table, and is
// stepped by the granular stepper and written by the granular runner. Written with the generator's lattice
// and box, it is the granular scene lattice_stack bit for bit (so the comparison fails if any value is read
// differently); a run to T and a run to T/2 plus --restart to T end bitwise equal; every key the large path
// does not read is refused at its line.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "apps/GranularOutput.hpp"
#include "apps/LargePathRestart.hpp"
#include "apps/GranularSceneFile.hpp"
#include "tests/apps/GranularFileRun.hpp"
#include "apps/SceneLoader.hpp"
#include "apps/SceneRun.hpp"
#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "tests/SameBits.hpp"
#include "tests/SceneText.hpp"

using namespace talus;
using namespace talus::app;
namespace fs = std::filesystem;

namespace {

using talus::test::same_bits;

std::string num(double x) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", x);
  return b;
}

// The dynamic bodies' part of a store array: the obstacle bodies after them follow from the obstacle tables, where
// two spellings of one plane may differ in the sign of a zero (a normal [-1, 0, 0] against −UnitX).
template <class T>
std::vector<T> dynamic(const std::vector<T>& a, const Model& m) {
  return std::vector<T>(a.begin(), a.begin() + m.bodies.count());
}

// lattice_stack(spec, width, layers) written as a single scene: the same lattice sites, the same five walls
// in box_walls' order, the same law; every number printed to round-trip exactly.
std::string lattice_box_scene(const granular::BeadSpec& s, int width, int layers, double t_end,
                              const std::string& scheme = "moreau_jean") {
  const double side = width * (s.spacing * s.radius);
  std::ostringstream y;
  y << "name: box_of_beads\n"
       "gravity: [0, 0, -9.81]\n"
       "laws:\n"
       "  glass: {type: newton_friction, e: "
    << num(s.restitution) << ", mu: " << num(s.mu)
    << ", dim: 3}\n"
       "lattices:\n"
       "  - {name: bed, corner: [0, 0, 0], counts: ["
    << width << ", " << width << ", " << layers << "], radius: " << num(s.radius)
    << ", density: " << num(s.density) << ", spacing: " << num(s.spacing) << ", jitter: " << num(s.jitter)
    << ", seed: " << s.seed
    << "}\n"
       "planes:\n"
       "  - {name: floor, normal: [0, 0, 1], offset: 0}\n"
       "  - {name: x0, normal: [1, 0, 0], offset: 0}\n"
       "  - {name: x1, normal: [-1, 0, 0], offset: "
    << num(-side)
    << "}\n"
       "  - {name: y0, normal: [0, 1, 0], offset: 0}\n"
       "  - {name: y1, normal: [0, -1, 0], offset: "
    << num(-side)
    << "}\n"
       "contacts: {detect: true, law: glass}\n"
       "integrator: {path: large, scheme: "
    << scheme << ", h: 1.0e-3, t_end: " << num(t_end)
    << "}\n"
       "output: {frame_every: 0.05}\n";
  return y.str();
}

fs::path scratch(const char* name) {
  const fs::path d = fs::temp_directory_path() / ("talus_large_path_" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

fs::path write(const fs::path& dir, const std::string& text) {
  const fs::path f = dir / "scene.yaml";
  std::ofstream(f) << text;
  return f;
}

// The one runner on a loaded scene into `out`, continuing from `restart` when given; quiet unless asked.
int run_into(Scene& scene, const fs::path& out, std::ostream& log, const fs::path& restart = {}, bool quiet = true) {
  RunOptions o = talus::test::quiet_run(out, log);
  o.progress = !quiet;
  o.restart = restart;
  return run_scene(scene, o).exit_status();
}

int run(const fs::path& scene_file, const fs::path& out, const fs::path& restart = {}) {
  Scene scene = load_scene(scene_file);
  std::ostringstream log;
  return run_into(scene, out, log, restart);
}

}  // namespace

TEST_CASE("a single scene with path: large steps bit for bit as the granular scene it spells out",
          "[apps][large_path]") {
  granular::BeadSpec spec;
  const int width = 4, layers = 3;
  for (const std::string scheme : {"moreau_jean", "generalized_alpha"}) {
    INFO(scheme);
    granular::GranularScene reference = granular::lattice_stack(spec, width, layers);
    Scene scene = load_scene_from_string(lattice_box_scene(spec, width, layers, 0.2, scheme), "box.yaml");
    REQUIRE(scene.large_path);
    Model& m = scene.model;
    REQUIRE(m.bodies.spheres() == width * width * layers);
    REQUIRE(m.bodies.count() == m.bodies.spheres());
    REQUIRE(m.walls.size() == 5);
    CHECK(scene.body_names.front() == "bed_0");
    CHECK(scene.large_path->params.solver == granular::GranularSolver::Anderson);
    CHECK(same_bits(m.bodies.x, reference.model.bodies.x));
    CHECK(same_bits(m.bodies.mass, reference.model.bodies.mass));

    granular::GranularParameters p = scene.large_path->params;
    granular::GranularParameters q;
    q.solver = granular::GranularSolver::Anderson;
    q.scheme = scheme == "generalized_alpha" ? granular::GranularScheme::GeneralizedAlpha
                                             : granular::GranularScheme::MoreauJean;
    granular::GranularStepper a(m, p), b(reference.model, q);
    // The beads fall 0.1 r onto the floor and each layer onto the one below, and settle with friction.
    long contacts = 0;
    for (int k = 0; k < 200; ++k) {
      contacts += a.step().contacts;
      b.step();
    }
    CHECK(contacts > 0);
    CHECK(same_bits(dynamic(m.bodies.x, m), dynamic(reference.model.bodies.x, reference.model)));
    CHECK(same_bits(dynamic(m.bodies.v, m), dynamic(reference.model.bodies.v, reference.model)));
    CHECK(same_bits(dynamic(m.bodies.w, m), dynamic(reference.model.bodies.w, reference.model)));
    // The pile rests on the floor: no bead below its radius by more than the solver's penetration.
    for (int i = 0; i < m.bodies.spheres(); ++i) CHECK(m.bodies.x[i].z() > 0.99 * spec.radius);
  }
}

TEST_CASE("a large-path scene writes the granular run's files and restarts bit for bit",
          "[apps][large_path]") {
  const fs::path dir = scratch("restart");
  granular::BeadSpec spec;
  const fs::path full = write(dir / ".", lattice_box_scene(spec, 3, 3, 0.12));
  const fs::path half_dir = scratch("half");
  const fs::path half = write(half_dir, lattice_box_scene(spec, 3, 3, 0.06));
  REQUIRE(run(full, dir / "full") == 0);
  REQUIRE(run(half, dir / "half") == 0);
  REQUIRE(run(full, dir / "continued", dir / "half" / "restart.h5") == 0);
  for (const char* f :
       {"beads.pvd", "contacts.pvd", "run.json", "measures.csv", "profile.txt", "restart.h5"})
    CHECK(fs::is_regular_file(dir / "full" / f));
  nlohmann::json j;
  std::ifstream(dir / "full" / "run.json") >> j;
  CHECK(j["status"] == "completed");
  CHECK(j["path"] == "large");
  CHECK(j["parameters"]["generator"] == "explicit");
  CHECK(j["scene"] == "box_of_beads");
  CHECK(j["model"]["beads"] == 27);
  CHECK(j["steps"] == 120);
  CHECK(j["parameters"]["solver"] == "anderson");

  Model a, b;
  RestartExtras ea, eb;
  read_restart(dir / "full" / "restart.h5", a, &ea);
  read_restart(dir / "continued" / "restart.h5", b, &eb);
  CHECK(a.step == 120);
  CHECK(b.step == 120);
  CHECK(same_bits(a.bodies.x, b.bodies.x));
  CHECK(same_bits(a.bodies.v, b.bodies.v));
  CHECK(same_bits(a.bodies.w, b.bodies.w));
  CHECK(same_bits(ea.cache.impulses, eb.cache.impulses));
  // The continued run started where the half run ended, not at t = 0.
  nlohmann::json c;
  std::ifstream(dir / "continued" / "run.json") >> c;
  CHECK(c["steps"] == 60);
  CHECK(c["final_step"] == 120);
  CHECK(c["restarted_from"]["step"] == 60);
  CHECK_THAT(c["restarted_from"]["settings"].get<std::string>(), Catch::StartsWith("moreau_jean h=0.001 solver=anderson"));
  CHECK(c["restarted_from"]["continues_bitwise"] == true);
  CHECK(c["start_time"].get<double>() == Approx(0.06));

  // The one archive layout (apps/RestartArchive.hpp): the header names the path, scene, scheme and settings.
  CHECK(ea.header.format == kRestartFormat);
  CHECK(ea.header.path == "large");
  CHECK(ea.header.scene == "box_of_beads");
  CHECK(ea.header.scheme == "moreau_jean");
  CHECK_THAT(ea.header.settings, Catch::StartsWith("moreau_jean h=0.001 solver=anderson tolerance="));
  CHECK(ea.h == 1e-3);
  // Each path refuses the other's archive, saying which wrote it.
  {
    Scene small = load_scene(fs::path(TALUS_SOURCE_DIR) / "examples" / "bouncing_ball.yaml");
    RunOptions so;
    so.out_dir = dir / "refused";
    so.restart = dir / "full" / "restart.h5";
    CHECK_THROWS_WITH(run_scene(small, so),
                      Catch::Contains("attribute /@path: the archive was written by a large-path run") &&
                          Catch::Contains("of scene 'box_of_beads'; this scene runs on the small path"));
    small.t_end = 0.05;
    so.out_dir = dir / "small";
    so.restart.clear();
    REQUIRE(run_scene(small, so).restart_written);
    Model m;
    CHECK_THROWS_WITH(read_restart(dir / "small" / "restart.h5", m),
                      Catch::Contains("written by a small-path run") && Catch::Contains("this scene runs on the large path"));
  }

  // A large-path archive continues under other settings too (settle, then change the solver), said in the log.
  {
    Scene other = load_scene(full);
    other.large_path->params.solver = granular::GranularSolver::MatrixFree;
    std::ostringstream log;
    REQUIRE(run_into(other, dir / "other_solver", log, dir / "half" / "restart.h5", false) == 0);
    nlohmann::json oj;
    std::ifstream(dir / "other_solver" / "run.json") >> oj;
    CHECK(oj["restarted_from"]["continues_bitwise"] == false);
    CHECK_THAT(log.str(), Catch::Contains("was written under 'moreau_jean h=0.001 solver=anderson") &&
                              Catch::Contains("this run steps under 'moreau_jean h=0.001 solver=matrix_free") &&
                              Catch::Contains("not a bitwise continuation"));
    std::ostringstream same_log;
    Scene same = load_scene(full);
    REQUIRE(run_into(same, dir / "same_solver", same_log, dir / "half" / "restart.h5", false) == 0);
    CHECK_THAT(same_log.str(), !Catch::Contains("not a bitwise continuation"));
  }

  // An archive past the end leaves no step to run: refused, naming the flag.
  Scene scene = load_scene(half);
  std::ostringstream log;
  try {
    run_into(scene, dir / "none", log, dir / "full" / "restart.h5");
    FAIL("a restart past t_end was accepted");
  } catch (const SceneError& e) {
    CHECK_THAT(e.what(), Catch::Contains("--restart ") && Catch::Contains("no step would run"));
  }
  fs::remove_all(dir.parent_path());
}

TEST_CASE("keys the large path does not read are refused at their line", "[apps][large_path]") {
  granular::BeadSpec spec;
  const std::string good = lattice_box_scene(spec, 2, 2, 0.01);
  REQUIRE(test::scene_error(good, "s.yaml", "ok") == "ok");
  using test::replace_once;
  using test::scene_error;
  const auto error = [&](const std::string& from, const std::string& to) {
    return scene_error(replace_once(good, from, to), "s.yaml", "accepted");
  };
  // Line 14 holds the integrator; the laws are on line 4.
  CHECK_THAT(
      error("h: 1.0e-3", "h: 1.0e-3, theta: 0.5"),
      Catch::StartsWith("s.yaml:14:") &&
          Catch::EndsWith("field 'integrator.theta': is not read by path: large (its keys: scheme, path, h, "
                          "t_end, solver, tolerance, max_sweeps, threads, anderson_memory, anderson_every, "
                          "anderson_warm, contact_order, partitions, multilevel_pre_sweeps, "
                          "multilevel_post_sweeps, multilevel_plain_first, multilevel_routing)"));
  CHECK_THAT(error("scheme: moreau_jean", "scheme: newmark"),
             Catch::StartsWith("s.yaml:14:") &&
                 Catch::Contains("field 'integrator.scheme': unknown value 'newmark'"));
  CHECK_THAT(
      error("path: large", "path: huge"),
      Catch::Contains("field 'integrator.path': unknown value 'huge' (expected one of: small, large)"));
  CHECK_THAT(
      error("h: 1.0e-3", "h: 1.0e-3, solver: lemke"),
      Catch::Contains("field 'integrator.solver': unknown value 'lemke'") && Catch::Contains("anderson"));
  CHECK_THAT(error("h: 1.0e-3", "h: 1.0e-3, threads: 0"),
             Catch::Contains("field 'integrator.threads': is 0 (expected an integer from 1 to"));
  CHECK_THAT(error("dim: 3", "dim: 2"),
             Catch::StartsWith("s.yaml:13:") && Catch::Contains("field 'contacts.law': has "
                                                                "dim 2 friction (expected dim: 3"));
  CHECK_THAT(error("{detect: true, law: glass}", "{law: glass, sphere_plane: true}"),
             Catch::Contains("field 'contacts.sphere_plane': is not read by the large path"));
  CHECK_THAT(error("{detect: true, law: glass}", "{detect: false, law: glass}"),
             Catch::Contains("field 'contacts.detect': expected detect: true"));
  CHECK_THAT(error("contacts: {detect: true, law: glass}\n", ""), Catch::Contains("no 'contacts' section"));
  CHECK_THAT(error("output: {frame_every: 0.05}", "output: {every: 2}"),
             Catch::Contains("field 'output.every': is not read by integrator.path: large"));
  CHECK_THAT(error("planes:\n", "lti_systems: [{name: s, M: [[1]]}]\nplanes:\n"),
             Catch::Contains("field 'lti_systems': is not stepped by the large path"));
  // The small path refuses the large path's keys, naming them.
  CHECK_THAT(error("path: large, scheme: moreau_jean, h: 1.0e-3", "h: 1.0e-3, threads: 2"),
             Catch::Contains("field 'integrator.threads': is only read with path: large"));
  CHECK_THAT(error("path: large, scheme: moreau_jean, h: 1.0e-3, t_end: 0.01}\noutput: {frame_every: 0.05}",
                   "h: 1.0e-3, t_end: 0.01}\noutput: {frame_every: 0.05, threads: 2}"),
             Catch::Contains("field 'output.threads': unknown key"));
  // Both paths write ParaView frames every frame_every seconds (the small path: of its rigid bodies).
  CHECK(error("path: large, scheme: moreau_jean, h: 1.0e-3, t_end: 0.01}\noutput: {frame_every: 0.05}",
              "h: 1.0e-3, t_end: 0.01}\noutput: {frame_every: 0.05}") == "accepted");
  CHECK_THAT(error("output: {frame_every: 0.05}", "output: {frame_every: 0}"),
             Catch::Contains("field 'output.frame_every': is 0 (expected a positive number)"));
}

TEST_CASE("a listed sphere of given mass joins the beads on the large path", "[apps][large_path]") {
  const std::string text =
      "gravity: [0, 0, -9.81]\n"
      "laws: {bounce: {type: newton, e: 0.5}}\n"
      "spheres:\n"
      "  - {name: ball, position: [0, 0, 0.5], radius: 0.1, mass: 2.0, velocity: [0.1, 0, 0]}\n"
      "planes: [{name: floor, normal: [0, 0, 1], point: [0, 0, 0]}]\n"
      "contacts: {detect: true, law: bounce}\n"
      "integrator: {path: large, scheme: generalized_alpha, h: 1.0e-3, t_end: 1.0, solver: matrix_free}\n";
  Scene scene = load_scene_from_string(text, "ball.yaml");
  REQUIRE(scene.large_path);
  Model& m = scene.model;
  REQUIRE(m.bodies.spheres() == 1);
  CHECK(m.bodies.mass[0] == Approx(2.0).epsilon(1e-14));
  CHECK(m.bodies.v[0].x() == 0.1);
  CHECK(m.materials.law(kBeadMaterial, kWallMaterial).mu == 0.0);
  CHECK(m.materials.law(kBeadMaterial, kWallMaterial).e == 0.5);
  // Frictionless Newton impact with e = 0.5 under generalized-α (the large path's Moreau–Jean lands a bead on
  // the wall at the end of a step and loses most of its restitution: docs/granular.md): the ball falls 0.4 m,
  // and after the first impact it rises to e² of its fall (to the step's O(h)), sliding on at its horizontal
  // speed.
  granular::GranularStepper stepper(m, scene.large_path->params);
  bool hit = false;
  double apex = 0.0;
  for (int k = 0; k < 600; ++k) {
    stepper.step();
    if (!hit && m.bodies.v[0].z() > 0.0) hit = true;
    if (hit) apex = std::max(apex, m.bodies.x[0].z() - 0.1);
  }
  CHECK(hit);
  CHECK(apex == Approx(0.25 * 0.4).epsilon(0.05));
  CHECK(m.bodies.v[0].x() == 0.1);
}

TEST_CASE("examples/trough.yaml: the beads settle inside the four planes of the trough",
          "[apps][large_path]") {
  Scene scene = load_scene(fs::path(TALUS_SOURCE_DIR) / "examples" / "trough.yaml");
  REQUIRE(scene.large_path);
  Model& m = scene.model;
  REQUIRE(m.bodies.spheres() == 801);  // the boulder and the lattice's 800
  REQUIRE(m.walls.size() == 4);
  CHECK(scene.body_names.front() == "boulder");  // spheres: are read before lattices:
  granular::GranularStepper stepper(m, scene.large_path->params);
  // 0.25 s: the bed has landed in the V (the boulder is still falling); every bead clears every plane up to
  // the solver's penetration, and every step reached the tolerance (a failed step throws).
  double worst = 0.0;
  for (int k = 0; k < 250; ++k) worst = std::max(worst, stepper.step().max_penetration);
  CHECK(worst < 1e-3 * 0.01);
  for (int i = 0; i < m.bodies.spheres(); ++i)
    for (const contact::Wall& w : m.walls)
      CHECK(w.normal.dot(m.bodies.x[i]) - w.offset - m.bodies.radius[i] > -1e-5);
  // The lowest beads sit in the V's bottom: below the lattice's first layer (z = 0.091) by a few radii.
  double lowest = 1.0;
  for (int i = 1; i <= 800; ++i) lowest = std::min(lowest, m.bodies.x[i].z());
  CHECK(lowest < 0.05);
}

namespace {

std::string vec(const Eigen::Vector3d& v) {
  return "[" + num(v.x()) + ", " + num(v.y()) + ", " + num(v.z()) + "]";
}

std::string plane(const char* name, const contact::Wall& w) {
  std::string s =
      std::string("  - {name: ") + name + ", normal: " + vec(w.normal) + ", offset: " + num(w.offset);
  if (w.hole_radius > 0.0)
    s += ", hole: {centre: " + vec(w.hole_centre) + ", radius: " + num(w.hole_radius) + "}";
  return s + "}\n";
}

// The header every generator's spelled-out scene shares: gravity, the beads' law (BeadSpec defaults).
std::string header(const Eigen::Vector3d& gravity, const granular::BeadSpec& s) {
  return "gravity: " + vec(gravity) + "\nlaws: {glass: {type: newton_friction, e: " + num(s.restitution) +
         ", mu: " + num(s.mu) + ", dim: 3}}\ncontacts: {detect: true, law: glass}\n";
}

// Steps both models with the granular defaults (anderson) and requires the same bits.
void require_same_steps(Model& a, Model& b, int steps) {
  granular::GranularParameters p;
  p.solver = granular::GranularSolver::Anderson;
  granular::GranularStepper sa(a, p), sb(b, p);
  long contacts = 0;
  for (int k = 0; k < steps; ++k) {
    contacts += sa.step().contacts;
    sb.step();
  }
  CHECK(contacts > 0);
  CHECK(same_bits(dynamic(a.bodies.x, a), dynamic(b.bodies.x, b)));
  CHECK(same_bits(dynamic(a.bodies.v, a), dynamic(b.bodies.v, b)));
  CHECK(same_bits(dynamic(a.bodies.w, a), dynamic(b.bodies.w, b)));
}

}  // namespace

TEST_CASE("the granular generators' containers spelled out in the one format step bit for bit",
          "[apps][large_path]") {
  granular::BeadSpec spec;
  SECTION("drum: a rotating drum, periodic along its axis, its beads listed") {
    granular::GranularScene g = granular::drum(spec, 5.0, 4.0, 0.35, 0.05);
    const contact::Drum& d = g.model.drums[0];
    std::string y = header(g.model.gravity, spec) + "drums:\n  - {name: drum, centre: " + vec(d.centre) +
                    ", axis: [0, 1, 0], radius: " + num(d.radius) +
                    ", angular_velocity: " + num(d.angular_velocity) + "}\nperiodic: {y: [0, " +
                    num(g.model.periodic.length.y()) + "]}\nspheres:\n";
    for (int i = 0; i < g.model.bodies.spheres(); ++i)
      y += "  - {name: b" + std::to_string(i) + ", position: " + vec(g.model.bodies.x[i]) +
           ", radius: " + num(g.model.bodies.radius[i]) + ", density: " + num(spec.density) + "}\n";
    y += "integrator: {path: large, h: 1.0e-3, t_end: 1}\n";
    Scene scene = load_scene_from_string(y, "drum.yaml");
    REQUIRE(scene.model.bodies.spheres() == g.model.bodies.spheres());
    require_same_steps(scene.model, g.model, 150);
  }
  SECTION("drum: its bed by the generator's fill rule (a lattice in the drum)") {
    granular::GranularScene g = granular::drum(spec, 5.0, 4.0, 0.35, 0.05);
    const contact::Drum& d = g.model.drums[0];
    const std::string drum = "drums:\n  - {name: drum, centre: " + vec(d.centre) + ", axis: [0, 1, 0], radius: " +
                             num(d.radius) + ", angular_velocity: " + num(d.angular_velocity) + "}\nperiodic: {y: [0, " +
                             num(g.model.periodic.length.y()) + "]}\n";
    const std::string y = header(g.model.gravity, spec) + drum +
                          "lattices:\n  - {name: bed, drum: drum, fill: 0.35, radius: 0.01, density: 2500}\n"
                          "integrator: {path: large, h: 1.0e-3, t_end: 1}\n";
    Scene scene = load_scene_from_string(y, "drum.yaml");
    REQUIRE(scene.model.bodies.spheres() == g.model.bodies.spheres());
    CHECK(same_bits(scene.model.bodies.x, g.model.bodies.x));
    CHECK(same_bits(scene.model.bodies.radius, g.model.bodies.radius));
    CHECK(scene.body_names.front() == "bed_0");
    require_same_steps(scene.model, g.model, 150);
    // Its errors name the field.
    const std::string base = header(g.model.gravity, spec) + drum + "lattices:\n  - {name: bed, ";
    const std::string tail = ", radius: 0.01, density: 2500}\nintegrator: {path: large, h: 1.0e-3, t_end: 1}\n";
    CHECK_THROWS_WITH(load_scene_from_string(base + "drum: mill, fill: 0.35" + tail, "drum.yaml"),
                      Catch::Contains("field 'lattices[0].drum': 'mill' is not a drum of the scene"));
    CHECK_THROWS_WITH(load_scene_from_string(base + "drum: drum, fill: 0.7" + tail, "drum.yaml"),
                      Catch::Contains("field 'lattices[0].fill': is 0.700000"));
    CHECK_THROWS_WITH(load_scene_from_string(base + "drum: drum, fill: 0.35, spacing: 2.0, jitter: 0.1" + tail, "drum.yaml"),
                      Catch::Contains("lattice spacing too small"));
  }
  SECTION("chute: inclined gravity, periodic along the flow, a box obstacle") {
    spec.n = 27;  // three layers of 3 × 3
    granular::GranularScene g = granular::chute(spec, 25.0, 60.0, true, 2.0);
    const double period = g.model.periodic.length.x();
    const contact::Box& b = g.model.boxes[0];
    const std::string y =
        header(g.model.gravity, spec) + "periodic: {x: [0, " + num(period) + "]}\nplanes:\n" +
        plane("floor", g.model.walls[0]) + plane("y0", g.model.walls[1]) + plane("y1", g.model.walls[2]) +
        "boxes:\n  - {name: step, centre: " + vec(b.centre) + ", half_extents: " + vec(b.half_extent) +
        "}\nlattices:\n  - {name: bed, corner: [0, 0, 0], counts: [3, 3, 3], radius: 0.01, density: 2500, "
        "jitter: 0.05}\nintegrator: {path: large, h: 1.0e-3, t_end: 1}\n";
    Scene scene = load_scene_from_string(y, "chute.yaml");
    // The beads do not reach the step in 0.2 s: its reading is checked field by field.
    REQUIRE(scene.model.boxes.size() == 1);
    CHECK(scene.model.boxes[0].centre == b.centre);
    CHECK(scene.model.boxes[0].half_extent == b.half_extent);
    CHECK(scene.model.boxes[0].axes == b.axes);
    require_same_steps(scene.model, g.model, 200);
  }
}

TEST_CASE("a silo spelled out in the one format discharges bit for bit as the granular silo",
          "[apps][large_path]") {
  const fs::path dir = scratch("silo");
  granular::BeadSpec spec;
  spec.n = 64;
  const granular::GranularScene g = granular::silo(spec, 3.0);
  const auto& w = g.model.walls;
  const std::string single = header(g.model.gravity, spec) + "planes:\n" + plane("floor", w[0]) +
                             plane("x0", w[1]) + plane("x1", w[2]) + plane("y0", w[3]) + plane("y1", w[4]) +
                             "lattices:\n  - {name: bed, corner: [0, 0, 0], counts: [4, 4, 4], radius: 0.01, "
                             "density: 2500, jitter: 0.05}\n"
                             "outflow: {below_z: " +
                             num(g.events.remove_below_z) +
                             "}\n"
                             "integrator: {path: large, h: 1.0e-3, t_end: 0.4}\noutput: {frame_every: 0.1}\n";
  const fs::path generated = dir / "silo_generated.yaml";
  std::ofstream(generated)
      << "granular: {scene: silo, n: 64, orifice_diameters: 3, t_end: 0.4, frame_every: 0.1}\n";
  std::ostringstream log;
  REQUIRE(talus::test::run_granular_file(generated, {}, talus::test::quiet_run(dir / "generated", log)) == 0);
  REQUIRE(run(write(dir, single), dir / "single") == 0);
  nlohmann::json a, b;
  std::ifstream(dir / "generated" / "run.json") >> a;
  std::ifstream(dir / "single" / "run.json") >> b;
  CHECK(a["results"]["removed_beads"].get<long>() > 0);
  CHECK(a["results"]["removed_beads"] == b["results"]["removed_beads"]);
  CHECK(a["results"]["discharge_rate_kg_per_s"] == b["results"]["discharge_rate_kg_per_s"]);
  Model ma, mb;
  read_restart(dir / "generated" / "restart.h5", ma);
  read_restart(dir / "single" / "restart.h5", mb);
  CHECK(same_bits(ma.bodies.x, mb.bodies.x));
  CHECK(same_bits(ma.bodies.v, mb.bodies.v));
  fs::remove_all(dir.parent_path());
}

TEST_CASE("the large path's obstacles are checked where they are written", "[apps][large_path]") {
  const std::string base =
      "gravity: [0, 0, -9.81]\n"                                                                          // 1
      "laws: {glass: {type: newton_friction, e: 0, mu: 0.3, dim: 3}}\n"                                   // 2
      "contacts: {detect: true, law: glass}\n"                                                            // 3
      "spheres: [{name: a, position: [0, 0, 0.1], radius: 0.01, density: 2500}]\n"                        // 4
      "periodic: {y: [0, 0.1]}\n"                                                                         // 5
      "planes: [{name: floor, normal: [0, 0, 1], offset: 0, hole: {centre: [0, 0, 0], radius: 0.02}}]\n"  // 6
      "drums: [{name: d, centre: [0, 0, 0.2], axis: [0, 1, 0], radius: 0.2, angular_velocity: 1}]\n"      // 7
      "integrator: {path: large, h: 1.0e-3, t_end: 0.01}\n";                                              // 8
  REQUIRE(test::scene_error(base, "o.yaml", "ok") == "ok");
  const auto error = [&](const std::string& from, const std::string& to) {
    return test::scene_error(test::replace_once(base, from, to), "o.yaml", "accepted");
  };
  CHECK_THAT(error("centre: [0, 0, 0]", "centre: [0, 0, 0.5]"),
             Catch::StartsWith("o.yaml:6:") && Catch::Contains("field 'planes[0].hole.centre': is 0.5") &&
                 Catch::Contains("off the plane"));
  CHECK_THAT(error("normal: [0, 0, 1]", "normal: [0, 1, 1]"),
             Catch::Contains("field 'planes[0].normal': is not perpendicular to the periodic axis y"));
  CHECK_THAT(error("axis: [0, 1, 0]", "axis: [1, 0, 0]"),
             Catch::Contains("field 'drums[0].axis': expected a coordinate axis that 'periodic' wraps"));
  CHECK_THAT(error("periodic: {y: [0, 0.1]}", "periodic: {y: [0.1, 0]}"),
             Catch::Contains("field 'periodic.y': expected lower < upper"));
  CHECK_THAT(error("periodic: {y: [0, 0.1]}", "periodic: {x: [0, 1], y: [0, 0.1]}\noutflow: {beyond_x: 2}"),
             Catch::Contains("field 'outflow.beyond_x': is along the periodic axis x"));
  // The small path refuses them, naming the key.
  CHECK_THAT(error("path: large, ", ""),
             Catch::StartsWith("o.yaml:5:") &&
                 Catch::Contains("field 'periodic': is only read with integrator.path: large"));
  const std::string small = test::replace_once(
      test::replace_once(test::replace_once(base, "path: large, ", ""), "periodic: {y: [0, 0.1]}\n", ""),
      "drums: [{name: d, centre: [0, 0, 0.2], axis: [0, 1, 0], radius: 0.2, angular_velocity: 1}]\n", "");
  CHECK_THAT(test::scene_error(small, "o.yaml"),
             Catch::StartsWith("o.yaml:5:") &&
                 Catch::Contains("field 'planes[0].hole': is only read with integrator.path: large"));
}

TEST_CASE("a plane moving along its normal carries a bead on the large path", "[apps][large_path]") {
  // A piston rising at 0.1 m/s under a bead at rest on it, and a floor shaken at A ω² = 0.5 g under another
  // (never leaving it): each bead follows its plane to the solver's tolerance.
  const std::string text =
      "gravity: [0, 0, -9.81]\n"
      "laws: {glass: {type: newton_friction, e: 0, mu: 0.3, dim: 3}}\n"
      "contacts: {detect: true, law: glass}\n"
      "spheres:\n"
      "  - {name: a, position: [0, 0, 0.01], radius: 0.01, density: 2500}\n"
      "  - {name: b, position: [1, 0, 0.01], radius: 0.01, density: 2500}\n"
      "planes:\n"
      "  - {name: piston, normal: [0, 0, 1], offset: 0, speed: 0.1}\n"
      "integrator: {path: large, h: 1.0e-3, t_end: 0.5, solver: matrix_free, tolerance: 1.0e-10}\n";
  Scene scene = load_scene_from_string(text, "piston.yaml");
  Model& m = scene.model;
  REQUIRE(m.walls.size() == 1);
  CHECK(m.walls[0].speed == 0.1);
  granular::GranularStepper stepper(m, scene.large_path->params);
  for (int k = 0; k < 500; ++k) stepper.step();
  for (int i = 0; i < 2; ++i) {
    CHECK(m.bodies.x[i].z() == Approx(0.01 + 0.05).margin(1e-6));
    CHECK(m.bodies.v[i].z() == Approx(0.1).margin(1e-6));
  }

  const double A = 0.5 * 9.81 / std::pow(2 * std::numbers::pi * 5.0, 2);  // 5 Hz
  Scene shaken = load_scene_from_string(
      test::replace_once(text, "speed: 0.1", "amplitude: " + num(A) + ", frequency: 5"), "shaken.yaml");
  granular::GranularStepper s2(shaken.model, shaken.large_path->params);
  double worst = 0.0;
  for (int k = 0; k < 500; ++k) {
    s2.step();
    const double plate = A * std::sin(2 * std::numbers::pi * 5.0 * shaken.model.time);
    worst = std::max(worst, std::abs(shaken.model.bodies.x[0].z() - 0.01 - plate));
  }
  CHECK(worst < 1e-3 * A);
}

TEST_CASE("materials on the large path: a pair's law decides whether a bead rolls or slides",
          "[apps][large_path]") {
  // On a 15° slope of "rubber", a "grippy" bead (μ = 0.5 ≥ 2/7 tan θ) rolls without slipping, a = 5/7 g sin
  // θ, and a "slick" one (μ = 0.02 < 2/7 tan θ) slides as it spins, a = g (sin θ − μ cos θ); every other pair
  // is frictionless, so a loader that ignored a material would let that bead slide at g sin θ.
  const double th = 15.0 * std::numbers::pi / 180.0, g = 9.81;
  const std::string text =
      "gravity: " + vec(g * Eigen::Vector3d(std::sin(th), 0.0, -std::cos(th))) +
      "\n"
      "materials: [grippy, slick, rubber]\n"
      "laws:\n"
      "  smooth: {type: newton, e: 0}\n"
      "  grip: {type: newton_friction, e: 0, mu: 0.5, dim: 3}\n"
      "  slip: {type: newton_friction, e: 0, mu: 0.02, dim: 3}\n"
      "spheres:\n"
      "  - {name: a, position: [0, 0, 0.01], radius: 0.01, density: 2500, material: grippy}\n"
      "  - {name: b, position: [0, 0.05, 0.01], radius: 0.01, density: 2500, material: slick}\n"
      "planes: [{name: slope, normal: [0, 0, 1], offset: 0, material: rubber}]\n"
      "contacts:\n"
      "  detect: true\n"
      "  law: smooth\n"
      "  pairs: [{materials: [grippy, rubber], law: grip}, {materials: [rubber, slick], law: slip}]\n"
      "integrator: {path: large, h: 1.0e-3, t_end: 1, solver: matrix_free, tolerance: 1.0e-12}\n";
  Scene scene = load_scene_from_string(text, "slope.yaml");
  Model& m = scene.model;
  REQUIRE(m.materials.count() == 5);
  CHECK(m.wall_material == std::vector<MaterialId>{4});
  granular::GranularStepper stepper(m, scene.large_path->params);
  const int steps = 200;
  for (int k = 0; k < steps; ++k) stepper.step();
  const double t = steps * 1e-3;
  for (int i = 0; i < 2; ++i) {
    const bool grippy = m.bodies.material[i] == 2;
    const double a = grippy ? 5.0 / 7.0 * g * std::sin(th) : g * (std::sin(th) - 0.02 * std::cos(th));
    INFO((grippy ? "grippy" : "slick") << ": a = " << m.bodies.v[i].x() / t << ", expected " << a);
    CHECK(m.bodies.v[i].x() / t == Approx(a).epsilon(1e-6));
  }

  const auto error = [&](const std::string& from, const std::string& to) {
    return test::scene_error(test::replace_once(text, from, to), "slope.yaml", "accepted");
  };
  CHECK_THAT(error("material: slick}", "material: slik}"),
             Catch::StartsWith("slope.yaml:9:") &&
                 Catch::Contains("field 'spheres[1].material': unknown material 'slik'"));
  CHECK_THAT(error("[grippy, slick, rubber]", "[grippy, slick, wall]"),
             Catch::Contains("field 'materials[2]': 'wall' is defined twice"));
  CHECK_THAT(
      error("{materials: [rubber, slick], law: slip}", "{materials: [rubber, grippy], law: slip}"),
      Catch::Contains(
          "field 'contacts.pairs[1].materials': the pair rubber/grippy is given twice (first at line 14)"));
  CHECK_THAT(error("law: slip}", "law: bounce}"), Catch::Contains("field 'contacts.pairs[1].law'"));

  // Rolling resistance: contacts.rolling_friction for every pair, a pair's own over it. The grippy bead then rolls
  // with a = 5/7 g (sin θ − μ_r cos θ) (tests/granular/test_rolling_resistance.cpp).
  Scene rolling = load_scene_from_string(
      test::replace_once(test::replace_once(text, "  law: smooth\n", "  law: smooth\n  rolling_friction: 0.05\n"),
                         "law: grip}", "law: grip, rolling_friction: 0.1}"),
      "slope.yaml");
  CHECK(rolling.model.materials.law(2, 4).rolling == 0.1);
  CHECK(rolling.model.materials.law(3, 4).rolling == 0.05);
  granular::GranularStepper rs(rolling.model, rolling.large_path->params);
  for (int k = 0; k < steps; ++k) rs.step();
  for (int i = 0; i < 2; ++i)
    if (rolling.model.bodies.material[i] == 2)
      CHECK(rolling.model.bodies.v[i].x() / t == Approx(5.0 / 7.0 * g * (std::sin(th) - 0.1 * std::cos(th))).epsilon(1e-6));
  CHECK_THAT(error("  law: smooth\n", "  law: smooth\n  rolling_friction: -1\n"),
             Catch::Contains("field 'contacts.rolling_friction': is -1 (expected a number >= 0)"));
  CHECK_THAT(error("law: grip}", "law: grip, rolling_friction: x}"),
             Catch::Contains("field 'contacts.pairs[0].rolling_friction'"));
}

TEST_CASE(
    "a driven paddle in a bead bed, spelled out in the one format, runs bit for bit as the granular scene",
    "[apps][large_path]") {
  // examples/paddle_bed.yaml's mechanism in a smaller bed: a capsule on a revolute joint about the box's
  // vertical centre line, turned by a driver at 3 rad/s through 8 × 8 × 4 beads (those it overlaps removed).
  const fs::path dir = scratch("paddle");
  const std::string mechanism_capsule =
      "{name: paddle, position: [0.035, 0.022, 0.0185], axis: [0, 0, 1], radius: 0.003, half_length: 0.0145";
  const std::string hinge =
      "{name: hinge, type: revolute_joint, systems: [paddle], anchor: [0.022, 0.022, 0.0185], axis: [0, 0, "
      "1]}";
  const std::string motor = "{name: motor, type: driver, systems: [paddle], axis: [0, 0, 1], rate: 3.0}";
  const fs::path generated = dir / "generated.yaml";
  std::ofstream(generated) << "granular:\n  scene: lattice_stack\n  width: 8\n  layers: 4\n  radius: 0.0025\n"
                              "  polydispersity: 0.05\n  mu: 0.4\n  t_end: 0.06\n  frame_every: 0.02\n"
                              "  capsules: [" +
                                  mechanism_capsule + "}]\n  joints: [" + hinge + ", " + motor + "]\n";
  granular::BeadSpec spec;
  spec.radius = 0.0025, spec.polydispersity = 0.05, spec.mu = 0.4;
  const auto walls = granular::lattice_stack(spec, 8, 4).model.walls;
  const std::string single =
      header(Eigen::Vector3d(0, 0, -9.81), spec) +
      "lattices: [{name: bed, corner: [0, 0, 0], counts: [8, 8, 4], radius: 0.0025, density: 2500, jitter: "
      "0.05, "
      "polydispersity: 0.05}]\nplanes:\n" +
      plane("floor", walls[0]) + plane("x0", walls[1]) + plane("x1", walls[2]) + plane("y0", walls[3]) +
      plane("y1", walls[4]) + "capsules: [" + mechanism_capsule + ", density: 2500}]\n" + "interactions: [" +
      hinge + ", " + motor + "]\n" +
      "integrator: {path: large, h: 1.0e-3, t_end: 0.06}\noutput: {frame_every: 0.02}\n";
  std::ostringstream log;
  REQUIRE(talus::test::run_granular_file(generated, {}, talus::test::quiet_run(dir / "generated", log)) == 0);
  const fs::path single_file = write(dir, single);
  const Scene scene = load_scene(single_file);
  CHECK(scene.model.bodies.capsules() == 1);
  CHECK(scene.model.bodies.spheres() < 256);  // the beads in the paddle's way made room
  CHECK(scene.body_names.back() == "paddle");
  REQUIRE(run(single_file, dir / "single") == 0);
  Model a, b;
  read_restart(dir / "generated" / "restart.h5", a);
  read_restart(dir / "single" / "restart.h5", b);
  REQUIRE(a.bodies.count() == b.bodies.count());
  CHECK(same_bits(a.bodies.x, b.bodies.x));
  CHECK(same_bits(a.bodies.q, b.bodies.q));
  CHECK(same_bits(a.bodies.w, b.bodies.w));
  std::ifstream ja(dir / "generated" / "joints.csv"), jb(dir / "single" / "joints.csv");
  std::stringstream ta, tb;
  ta << ja.rdbuf(), tb << jb.rdbuf();
  CHECK(ta.str().size() > 100);
  CHECK(ta.str() == tb.str());

  // Joints hold capsules on the large path, and bodies may not leave while they do.
  CHECK_THAT(
      test::scene_error(test::replace_once(single, "systems: [paddle], anchor", "systems: [bed_0], anchor"),
                        "p.yaml"),
      Catch::Contains(
          "field 'interactions[0].systems[0]': 'bed_0' is a sphere (expected a capsule: on the large "
          "path joints join capsules"));
  CHECK_THAT(test::scene_error(single + "outflow: {below_z: -1}\n", "p.yaml"),
             Catch::Contains("field 'interactions': holds joints, but 'outflow' removes or adds bodies"));
  fs::remove_all(dir.parent_path());
}

namespace {

// A gated container scene stepped to its gate's opening and on to `end`, with its outflow between steps.
struct GatedRun {
  long removed_closed = 0, removed = 0;  // beads out before the gate opened, and by `end`
  double worst_penetration = 0.0;
};
GatedRun run_gated(Scene& scene, double end, const std::function<void(const Model&)>& at_opening) {
  Model& m = scene.model;
  granular::GranularStepper stepper(m, scene.large_path->params);
  std::vector<char> flags;
  GatedRun out;
  const auto run_to = [&](double t) {
    while (m.time < t - 1e-9) {
      out.worst_penetration = std::max(out.worst_penetration, stepper.step().max_penetration);
      const int before = m.bodies.spheres();
      granular::remove_escaped_bodies(m, scene.large_path->events, flags);
      out.removed += before - m.bodies.spheres();
    }
  };
  double open = INFINITY;
  for (const contact::Wall& w : m.walls) open = std::min(open, w.open_at);
  run_to(open);
  out.removed_closed = out.removed;
  at_opening(m);
  run_to(end);
  return out;
}

// An example of examples/ with `--set` overrides (a smaller copy of it for a test).
Scene load_example(const std::string& file, const std::vector<std::string>& sets) {
  LoadOptions o;
  for (const std::string& kv : sets) o.overrides.push_back(parse_override(kv));
  return load_scene(fs::path(TALUS_SOURCE_DIR) / "examples" / file, o);
}

}  // namespace

TEST_CASE("cones and gates on the large path: examples/conical_hopper.yaml holds its beads, then drains",
          "[apps][large_path]") {
  // The example with fewer beads, a lower pour and an earlier gate (the same cones, gate and outflow).
  Scene scene = load_example("conical_hopper.yaml", {"pours[0].count=400", "pours[0].region=[-0.075, -0.075, 0.16, 0.075, 0.075, 0.3]",
                                                    "planes[0].open_at=0.35"});
  REQUIRE(scene.large_path);
  Model& m = scene.model;
  REQUIRE(m.cones.size() == 2);
  CHECK(m.cones[0].half_angle() == Approx(std::numbers::pi / 6).epsilon(1e-5));
  CHECK(m.cones[1].radius_bottom == m.cones[1].radius_top);
  REQUIRE(m.walls.size() == 1);
  CHECK(m.walls[0].open_at == 0.35);
  REQUIRE(m.bodies.spheres() == 400);
  // Settled on the gate inside the shells: nothing left, nothing outside the hopper's wall.
  const GatedRun r = run_gated(scene, 1.0, [](const Model& at) {
    for (int i = 0; i < at.bodies.spheres(); ++i) {
      const Eigen::Vector3d& x = at.bodies.x[i];
      CHECK(x.z() > -1e-4);
      const double wall = x.z() < 0.15 ? 0.03 + x.z() * std::tan(std::numbers::pi / 6) : 0.116603;
      CHECK(std::hypot(x.x(), x.y()) < wall);
    }
  });
  CHECK(r.removed_closed == 0);
  CHECK(r.removed > 350);  // the gate opened: the hopper drains (the last beads may still be on their way)
  const double worst = r.worst_penetration;
  // The pour lands at about 2 m/s, which the tolerance 1e-4 leaves at ~1.2e-3 r of penetration in a box of planes
  // too (measured: 6.0e-6 m there, 7.1e-6 m in the cones to t = 0.35 s). Without the cone's curvature term in
  // the normal target (GranularStepper::narrow) beads sliding round the hopper's wall sank 3.4e-5 m (6.7e-3 r).
  CHECK(worst < 5e-3 * 0.005);
}

TEST_CASE("examples/cylindrical_silo.yaml: a cylinder on a floor with an orifice holds its beads, then drains",
          "[apps][large_path]") {
  Scene scene = load_example("cylindrical_silo.yaml", {"pours[0].count=300", "planes[1].open_at=0.3",
                                                      "pours[0].region=[-0.038, -0.038, 0.01, 0.038, 0.038, 0.25]"});
  REQUIRE(scene.model.cones.size() == 1);
  REQUIRE(scene.model.walls.size() == 2);
  const GatedRun r = run_gated(scene, 0.8, [](const Model& at) {
    for (int i = 0; i < at.bodies.spheres(); ++i) {
      CHECK(at.bodies.x[i].z() > -1e-4);
      CHECK(std::hypot(at.bodies.x[i].x(), at.bodies.x[i].y()) < 0.06);
    }
  });
  CHECK(r.removed_closed == 0);
  CHECK(r.removed > 20);  // through the orifice once the gate opened
  CHECK(r.worst_penetration < 5e-3 * 0.005);
}

TEST_CASE("cones are checked where they are written", "[apps][large_path]") {
  const std::string base =
      "gravity: [0, 0, -9.81]\n"                                                             // 1
      "laws: {glass: {type: newton_friction, e: 0, mu: 0.3, dim: 3}}\n"                      // 2
      "contacts: {detect: true, law: glass}\n"                                               // 3
      "spheres: [{name: a, position: [0, 0.02, 0.1], radius: 0.01, density: 2500}]\n"        // 4
      "cones: [{name: c, base: [0, 0, 0], height: 0.3, radius_bottom: 0.02, radius_top: 0.2}]\n"  // 5
      "integrator: {path: large, h: 1.0e-3, t_end: 0.01}\n";                                 // 6
  REQUIRE(test::scene_error(base, "c.yaml", "ok") == "ok");
  const auto error = [&](const std::string& from, const std::string& to) {
    return test::scene_error(test::replace_once(base, from, to), "c.yaml", "accepted");
  };
  CHECK_THAT(error("radius_bottom: 0.02, ", "radius: 0.1, radius_bottom: 0.02, "),
             Catch::StartsWith("c.yaml:5:") && Catch::Contains("field 'cones[0].radius': is given with radius_bottom"));
  CHECK_THAT(error("radius_bottom: 0.02, ", ""),
             Catch::Contains("expected 'radius' (a cylinder) or both 'radius_bottom' and 'radius_top'"));
  CHECK_THAT(error("height: 0.3", "height: 0"), Catch::Contains("field 'cones[0].height'"));
  CHECK_THAT(error("path: large, ", ""), Catch::Contains("field 'cones': is only read with integrator.path: large"));
  // Capsules meet cones (contact::capsule_cone_points).
  CHECK(error("cones: [", "capsules: [{name: k, position: [0, 0, 0.2], radius: 0.01, half_length: 0.02, density: 1000}]\ncones: [") ==
        "accepted");
  CHECK_THAT(error("integrator:", "planes: [{name: g, normal: [0, 0, 1], offset: 0, open_at: -1}]\nintegrator:"),
             Catch::Contains("field 'planes[0].open_at'"));
}

namespace {

// Beads over a steel FE cantilever on the large path (examples/beam_pile_large.yaml, smaller).
std::string beam_scene(double t_end, const std::string& integrator_extra = "") {
  return "name: beads_on_beam\n"
         "gravity: [0, 0, -9.81]\n"
         "lattices:\n"
         "  - {name: c, corner: [0.02, -0.132, 0.075], counts: [6, 2, 3], radius: 0.004, density: 2500, spacing: 2.2,\n"
         "     jitter: 0.05, seed: 3}\n"
         "beams:\n"
         "  - {name: cantilever, origin: [-0.05, -0.12, 0.06], axis: [1, 0, 0], deflection: [0, 0, 1], length: 0.2,\n"
         "     elements: 10, width: 0.03, thickness: 0.004, young: 2.0e11, density: 7800, rayleigh_stiffness: 2.0e-4}\n"
         "planes:\n"
         "  - {name: floor, normal: [0, 0, 1], offset: 0}\n"
         "contacts: {detect: true, law: {type: newton_friction, e: 0, mu: 0.3, dim: 3}}\n"
         "integrator: {path: large, h: 1.0e-3, t_end: " +
         num(t_end) + integrator_extra + "}\n" + "output: {frame_every: 0.02}\n";
}

// Runs the beam scene (with `extra` in its integrator) to 0.12 s, to 0.06 s, and to 0.12 s again from the second
// run's archive; checks that the first and the last end in the same bits (beads and beam) with the beam bent, and
// gives back both archives' extras and the scene file.
fs::path beam_scene_restarts_bitwise(const std::string& extra, const fs::path& dir, const fs::path& half_dir,
                                     RestartExtras& ea, RestartExtras& eb) {
  const fs::path full = write(dir / ".", beam_scene(0.12, extra));
  const fs::path half = write(half_dir, beam_scene(0.06, extra));
  REQUIRE(run(full, dir / "full") == 0);
  REQUIRE(run(half, dir / "half") == 0);
  REQUIRE(run(full, dir / "continued", dir / "half" / "restart.h5") == 0);
  Scene a = load_scene(full), b = load_scene(full);
  read_restart(dir / "full" / "restart.h5", a.model, &ea);
  read_restart(dir / "continued" / "restart.h5", b.model, &eb);
  CHECK(a.model.step == 120);
  CHECK(same_bits(a.model.bodies.x, b.model.bodies.x));
  CHECK(same_bits(a.model.bodies.v, b.model.bodies.v));
  REQUIRE(a.model.lti.size() == 1);
  CHECK((a.model.lti[0].q.array() == b.model.lti[0].q.array()).all());
  CHECK((a.model.lti[0].v.array() == b.model.lti[0].v.array()).all());
  CHECK(a.model.lti[0].q.minCoeff() < -1e-7);  // the beads landed on the beam: it bends down
  return full;
}

}  // namespace

TEST_CASE("beads on an FE beam on the large path: frames of the beam, a bitwise restart, refusals at their line",
          "[apps][large_path][beam]") {
  const fs::path dir = scratch("beam");
  const fs::path half_dir = scratch("beam_half");
  RestartExtras ea, eb;
  const fs::path full = beam_scene_restarts_bitwise("", dir, half_dir, ea, eb);
  CHECK(fs::is_regular_file(dir / "full" / "beams.pvd"));
  CHECK(fs::is_regular_file(dir / "full" / "beams_00006.vtp"));
  // The cache holds beam contacts.
  std::size_t beam_contacts = 0;
  for (contact::ContactKey k : ea.cache.keys)
    beam_contacts += contact::is_obstacle_key(k) && contact::obstacle_kind(k) == contact::KeyObstacle::Beam;
  CHECK(beam_contacts > 0);
  CHECK(same_bits(ea.cache.impulses, eb.cache.impulses));
  // The contact network's frame draws the bead-beam contacts too: lines from a point of the beam's top face
  // (z = 0.062 m, bent by micrometres; the strip spans y in [-0.135, -0.105]) to the bead's centre.
  {
    std::ifstream in(dir / "full" / "contacts_00006.vtp");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::size_t from = text.find('>', text.find("Name=\"points\"")) + 1;
    std::istringstream points(text.substr(from, text.find("</DataArray>", from) - from));
    std::vector<double> p;
    for (double x; points >> x;) p.push_back(x);
    int on_beam = 0;
    for (std::size_t k = 0; k + 5 < p.size(); k += 6)
      on_beam += p[k] > -0.05 && p[k] < 0.15 && p[k + 1] > -0.136 && p[k + 1] < -0.104 && std::abs(p[k + 2] - 0.062) < 5e-4 &&
                 p[k + 5] > p[k + 2];
    CHECK(on_beam > 0);
  }

  // A beam bent beyond the linear theory (this one 20 000 times softer) is named once in the run's log.
  {
    std::string soft = beam_scene(0.12);
    soft.replace(soft.find("young: 2.0e11"), 13, "young: 1.0e7");
    Scene scene = load_scene(write(half_dir, soft));
    std::ostringstream log;
    REQUIRE(run_into(scene, dir / "soft", log, {}, false) == 0);
    const std::string text = log.str();
    CHECK_THAT(text, Catch::Contains("warning: beam 'cantilever' deflects by") && Catch::Contains("of its length"));
    CHECK(text.find("warning: beam") == text.rfind("warning: beam"));
  }
  // --dump-fclib would leave the beam contacts out of the dumped problem: refused before the run.
  {
    Scene scene = load_scene(full);
    std::ostringstream log;
    RunOptions o = talus::test::quiet_run(dir / "dump_run", log);
    o.dump_fclib = dir / "dump";
    CHECK_THROWS_WITH(run_scene(scene, o), Catch::Contains("--dump-fclib: this scene has FE beams"));
  }
  // An archive of another scene (no beam) is refused, naming the dataset.
  Scene other = load_scene(full);
  other.model.lti.clear();
  CHECK_THROWS_WITH(read_restart(dir / "full" / "restart.h5", other.model),
                    Catch::Contains("/beams/dofs") && Catch::Contains("1 beams, but the scene has 0"));

  // What the large path does not step with a beam is refused at its line.
  auto refused = [&](const std::string& text, const std::string& what) {
    try {
      load_scene(write(half_dir, text));
      FAIL("accepted: " << text);
    } catch (const SceneError& e) {
      CHECK_THAT(e.what(), Catch::Contains(what));
    }
  };
  refused(beam_scene(0.1, ", scheme: generalized_alpha, theta: 0.5"), "generalized_alpha reads rho_infinity instead");
  refused(beam_scene(0.1, ", rho_infinity: 0.5"), "moreau_jean reads theta instead");
  refused(beam_scene(0.1, ", scheme: generalized_alpha, rho_infinity: 1.5"), "integrator.rho_infinity");
  refused(beam_scene(0.1, ", solver: multilevel"), "does not step FE beams");
  refused(beam_scene(0.1, ", theta: 1.5"), "expected 0 <= theta <= 1");
  refused(lattice_box_scene(granular::BeadSpec{}, 2, 2, 0.01).replace(
              lattice_box_scene(granular::BeadSpec{}, 2, 2, 0.01).find("h: 1.0e-3"), 9, "h: 1.0e-3, theta: 0.5"),
          "field 'integrator.theta': is not read by path: large");
  refused(lattice_box_scene(granular::BeadSpec{}, 2, 2, 0.01).replace(
              lattice_box_scene(granular::BeadSpec{}, 2, 2, 0.01).find("h: 1.0e-3"), 9, "h: 1.0e-3, rho_infinity: 0.5"),
          "field 'integrator.rho_infinity': is not read by path: large");
  fs::remove_all(dir.parent_path());
}

TEST_CASE("beads on an FE beam under generalized-alpha on the large path: a bitwise restart", "[apps][large_path][beam]") {
  // The beams' a_n and ṽ̇_n are part of the state (engine/granular/BeamContacts.hpp): the archive holds them, and a
  // run to T/2 continued to T ends bit for bit as the run to T.
  const fs::path dir = scratch("beam_ga");
  RestartExtras ea, eb;
  beam_scene_restarts_bitwise(", scheme: generalized_alpha, rho_infinity: 0.6", dir, scratch("beam_ga_half"), ea, eb);
  REQUIRE(ea.has_beam_accelerations);
  CHECK(ea.beam_a == eb.beam_a);
  CHECK(ea.beam_vdot == eb.beam_vdot);
  std::size_t beam_contacts = 0;
  for (contact::ContactKey k : ea.position_cache.keys)
    beam_contacts += contact::is_obstacle_key(k) && contact::obstacle_kind(k) == contact::KeyObstacle::Beam;
  CHECK(beam_contacts > 0);  // the position corrections' warm start holds the beam contacts too
  std::ifstream in(dir / "full" / "run.json");
  const nlohmann::json summary = nlohmann::json::parse(in);
  CHECK(summary["parameters"]["rho_infinity"] == 0.6);
  CHECK(summary["results"]["beam_coupling_resolves"].get<long>() > 0);
  fs::remove_all(dir.parent_path());
}

TEST_CASE("examples/rods_on_beam.yaml: rods and beads land on the cantilever and none passes through it",
          "[apps][large_path][beam][capsule]") {
  // Capsules meet FE beams (engine/granular/BeamContacts.hpp): before, a rod fell through the strip. The first
  // 0.25 s: the rods land on the beam (four across its width, two along it), the beads follow.
  const fs::path file = fs::path(TALUS_SOURCE_DIR) / "examples" / "rods_on_beam.yaml";
  const fs::path dir = scratch("rods");
  LoadOptions lo;
  lo.overrides.push_back({"--t-end 0.25", "integrator.t_end", "0.25"});
  Scene scene = load_scene(file, lo);
  std::ostringstream log;
  REQUIRE(run_into(scene, dir / "out", log) == 0);
  // The largest kinetic energy of the beads (measures.csv's ke_translation) over the run.
  auto peak_ke = [](const fs::path& measures) {
    std::ifstream in(measures);
    std::string line;
    std::getline(in, line);
    const std::string before = line.substr(0, line.find("ke_translation"));
    const auto column = static_cast<std::size_t>(std::count(before.begin(), before.end(), ','));
    double peak = 0.0;
    while (std::getline(in, line)) {
      std::istringstream row(line);
      std::string cell;
      for (std::size_t k = 0; k <= column; ++k) std::getline(row, cell, ',');
      peak = std::max(peak, std::stod(cell));
    }
    return peak;
  };
  auto landed = [&](const Scene& scene, const fs::path& out) {
    nlohmann::json j;
    std::ifstream(out / "run.json") >> j;
    CHECK(j["model"]["capsules"] == 7);
    CHECK(j["model"]["beams"] == 1);
    CHECK(j["results"]["max_penetration_over_r"].get<double>() < 0.05);
    // Every rod whose centre is over the strip (y in [-0.135, -0.105], x in [-0.05, 0.15]) lies on its top face
    // (z = 0.062 m, bent by micrometres), its axis within its radius of it; the others have fallen to the floor.
    const RigidBodies& b = scene.model.bodies;
    int on_beam = 0;
    for (int c = 0; c + 1 < b.capsules(); ++c) {  // the last capsule is the paddle
      const int i = b.capsule(c);
      INFO("rod " << c << " at " << b.x[i].transpose());
      CHECK(b.x[i].z() > 0.0);
      if (b.x[i].y() > -0.135 && b.x[i].y() < -0.105 && b.x[i].x() > -0.05 && b.x[i].x() < 0.15 && b.x[i].z() > 0.03) {
        ++on_beam;
        CHECK(b.x[i].z() > 0.062 + 0.95 * b.radius[i] - 1e-4);
      }
    }
    CHECK(on_beam >= 4);
    const Vector& q = scene.model.lti[0].q;
    CHECK(q.minCoeff() < -1e-7);  // the beam bends under them
  };
  landed(scene, dir / "out");
  // The same under generalized-α (the beam's two coupled problems, BeamContacts.hpp): the rods land as well, and
  // the pile takes no energy from the scheme (its peak kinetic energy within a fifth of Moreau–Jean's).
  {
    LoadOptions ga = lo;
    ga.overrides.push_back({"--set integrator.scheme=generalized_alpha", "integrator.scheme", "generalized_alpha"});
    Scene g = load_scene(file, ga);
    REQUIRE(run_into(g, dir / "ga", log) == 0);
    landed(g, dir / "ga");
    const double mj = peak_ke(dir / "out" / "measures.csv"), alpha = peak_ke(dir / "ga" / "measures.csv");
    WARN("beads' peak kinetic energy over 0.25 s: Moreau-Jean " << mj << " J, generalized-alpha " << alpha << " J");
    CHECK(alpha > 0.0);
    CHECK(std::abs(alpha / mj - 1.0) < 0.2);
  }
  // A run to 0.125 s continued from its archive ends in the bits of the straight run: the rods' beam contacts
  // (keyed by capsule and feature) warm-start from the archived cache like the beads'.
  LoadOptions half;
  half.overrides.push_back({"--t-end 0.125", "integrator.t_end", "0.125"});
  Scene first = load_scene(file, half), second = load_scene(file, lo);
  REQUIRE(run_into(first, dir / "half", log) == 0);
  REQUIRE(run_into(second, dir / "continued", log, dir / "half" / "restart.h5") == 0);
  Scene sa = load_scene(file), sc = load_scene(file);
  Model &a = sa.model, &c = sc.model;
  RestartExtras ea, ec;
  read_restart(dir / "out" / "restart.h5", a, &ea);
  read_restart(dir / "continued" / "restart.h5", c, &ec);
  CHECK(a.step == 250);
  CHECK(same_bits(a.bodies.x, c.bodies.x));
  CHECK(same_bits(a.bodies.w, c.bodies.w));
  CHECK((a.lti[0].q.array() == c.lti[0].q.array()).all());
  CHECK(same_bits(ea.cache.impulses, ec.cache.impulses));
  int capsule_beam_keys = 0;
  for (contact::ContactKey k : ea.cache.keys)
    capsule_beam_keys += contact::is_obstacle_key(k) && contact::obstacle_kind(k) == contact::KeyObstacle::Beam &&
                         contact::key_touches(k, contact::KeyBody::Capsule);
  CHECK(capsule_beam_keys >= 4);
  fs::remove_all(dir.parent_path());
}

TEST_CASE("examples/drum_lattice.yaml holds the bed and the drum of examples/drum.yaml bit for bit",
          "[apps][large_path][drum]") {
  const fs::path examples = fs::path(TALUS_SOURCE_DIR) / "examples";
  const Scene one = load_scene(examples / "drum_lattice.yaml");
  const Scene generated = load_granular_scene(examples / "drum.yaml", {});
  REQUIRE(one.large_path);
  const Model &a = one.model, &b = generated.model;
  REQUIRE(a.bodies.spheres() == 246);
  REQUIRE(b.bodies.spheres() == 246);
  CHECK(same_bits(a.bodies.x, b.bodies.x));
  CHECK(same_bits(a.bodies.radius, b.bodies.radius));
  CHECK(same_bits(a.bodies.mass, b.bodies.mass));
  REQUIRE(a.drums.size() == 1);
  CHECK(a.drums[0].radius == b.drums[0].radius);
  CHECK(a.drums[0].angular_velocity == b.drums[0].angular_velocity);
  CHECK(a.periodic.length.y() == b.periodic.length.y());
  CHECK(one.large_path->params.h == generated.large_path->params.h);
  CHECK(one.t_end == generated.t_end);
  CHECK(one.obstacle_names == std::vector<std::string>{"drum"});
}

TEST_CASE("a joint from a capsule to a named moving plane: the rod rides the rising floor", "[apps][large_path][joints]") {
  const std::string y =
      "gravity: [1.5, 0.0, -9.81]\n"
      "laws: {glass: {type: newton_friction, e: 0.0, mu: 0.3, dim: 3}}\n"
      "planes:\n  - {name: floor, normal: [0, 0, 1], offset: 0.0, speed: 0.05}\n"
      "capsules:\n  - {name: rod, position: [0, 0, 0.03], axis: [1, 0, 0], radius: 0.01, half_length: 0.04, density: 2500}\n"
      "interactions:\n  - {name: slide, type: prismatic_joint, systems: [rod, floor], anchor: [0, 0, 0.03], axis: [1, 0, 0]}\n"
      "contacts: {detect: true, law: glass}\n"
      "integrator: {path: large, h: 1.0e-3, t_end: 0.3, tolerance: 1.0e-10}\n";
  Scene scene = load_scene_from_string(y, "piston.yaml");
  Model& m = scene.model;
  REQUIRE(m.bodies.obstacles() == 1);
  const int rod = m.bodies.capsule(0), floor = m.bodies.obstacle_body(0);
  REQUIRE(m.interactions.size() == 1);
  CHECK(m.interactions[0].systems[1].index == floor);
  granular::GranularStepper s(m, scene.large_path->params);
  for (int k = 0; k < 300; ++k) REQUIRE(s.step().solver.converged());
  CHECK(m.bodies.x[rod].z() - m.bodies.x[floor].z() == Approx(0.03).epsilon(1e-9));
  CHECK(m.bodies.v[rod].x() == Approx(1.5 * m.time).epsilon(1e-9));
  // Errors name the field: a bead, or a mesh carried by a capsule, is not a joint's second body.
  const std::string bead = y.substr(0, y.find("capsules:")) +
                           "spheres:\n  - {name: ball, position: [0.3, 0, 0.1], radius: 0.01, density: 2500}\n" +
                           y.substr(y.find("capsules:"));
  std::string bad = bead;
  bad.replace(bad.find("systems: [rod, floor]"), 21, "systems: [rod, ball]");
  CHECK_THROWS_WITH(load_scene_from_string(bad, "piston.yaml"),
                    Catch::Contains("field 'interactions[0].systems[1]': 'ball' is a sphere (expected a capsule or a "
                                    "plane or an obstacle: on the large path a joint's second body"));
}
