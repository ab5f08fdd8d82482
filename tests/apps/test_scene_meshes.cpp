// Triangle-mesh walls from files (apps/MeshFile.hpp, the scene key `meshes:`; issue 14 items 1 and 4): ASCII and
// binary STL and OBJ give the same mesh, placed as asked; a bead dropped on a flat STL floor steps bit for bit as
// on the analytic plane; every bad file or mesh names the scene's field and the file's problem; the lifter drum
// example's bars (a moving mesh) lift beads above the drum's axis, which friction alone cannot at its speed, and
// its run writes the mesh where it is at every frame.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>

#include "apps/Cli.hpp"
#include "apps/MeshFile.hpp"
#include "apps/SceneError.hpp"
#include "apps/SceneLoader.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "tests/SceneText.hpp"
#include "tests/TempDir.hpp"
#include "tests/contact/MeshShapes.hpp"

using namespace talus;
using namespace talus::app;
namespace fs = std::filesystem;

namespace {


// A binary STL (80-byte header, count, per triangle a normal, three vertices as float and a 16-bit attribute).
void write_binary_stl(const fs::path& file, const contact::TriangleMesh& m) {
  std::ofstream out(file, std::ios::binary);
  const char header[80] = "talus test";
  out.write(header, 80);
  const std::uint32_t n = static_cast<std::uint32_t>(m.faces());
  out.write(reinterpret_cast<const char*>(&n), 4);
  for (int t = 0; t < m.faces(); ++t) {
    float v[12];
    for (int k = 0; k < 3; ++k) v[k] = static_cast<float>(m.normals[t][k]);
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 3; ++k) v[3 + 3 * i + k] = static_cast<float>(m.vertices[m.triangles[t][i]][k]);
    out.write(reinterpret_cast<const char*>(v), sizeof v);
    const std::uint16_t attr = 0;
    out.write(reinterpret_cast<const char*>(&attr), 2);
  }
}

std::string scene_text(const std::string& meshes, bool large = true) {
  return "gravity: [0, 0, -9.81]\n"
         "laws: {glass: {type: newton_friction, e: 0, mu: 0.3, dim: 3}}\n"
         "contacts: {detect: true, law: glass}\n"
         "spheres: [{name: ball, position: [0.0137, 0.0211, 0.05], radius: 0.01, density: 2500}]\n" +
         meshes + "integrator: {" + (large ? "path: large, " : "scheme: moreau_jean, ") + "h: 1.0e-3, t_end: 0.01}\n";
}

std::string error_of(const std::string& text) {
  try {
    load_scene_from_string(text, "m.yaml");
  } catch (const SceneError& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("ASCII and binary STL and OBJ give the same mesh, placed as asked", "[apps][meshes]") {
  test::TempDir t;
  // Coordinates exact in single precision (binary STL stores floats).
  const contact::TriangleMesh g = test::flat_grid(-0.25, 0.25, -0.125, 0.125, 4, 2);
  write_stl(t.dir / "grid.stl", g, "grid");
  write_binary_stl(t.dir / "grid_bin.stl", g);
  const contact::TriangleMesh a = read_mesh(t.dir / "grid.stl"), b = read_mesh(t.dir / "grid_bin.stl");
  REQUIRE(a.faces() == g.faces());
  REQUIRE(b.faces() == g.faces());
  CHECK(a.vertices.size() == g.vertices.size());  // welded back from the STL's triangle soup
  CHECK(a.boundary_edges == g.boundary_edges);
  for (int k = 0; k < a.faces(); ++k)
    for (int i = 0; i < 3; ++i) CHECK(a.vertices[a.triangles[k][i]] == b.vertices[b.triangles[k][i]]);
  CHECK(a.area() == Approx(0.5 * 0.25).epsilon(1e-14));
  // An OBJ with a quad and a triangle: the quad is split in two.
  t.write("quad.obj", "# a unit square and a roof triangle\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 2 0.5 0\n"
                      "f 1 2 3 4\nf 2 5 3\n");
  const contact::TriangleMesh q = read_mesh(t.dir / "quad.obj");
  CHECK(q.faces() == 3);
  CHECK(q.area() == Approx(1.5).epsilon(1e-14));
  // Placement: millimetres to metres, a quarter turn about z, then a shift.
  MeshPlacement p;
  p.scale = 1e-3;
  p.rotation = Eigen::AngleAxisd(std::numbers::pi / 2, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  p.translation = Eigen::Vector3d(0, 0, 0.5);
  t.write("mm.obj", "v 0 0 0\nv 1000 0 0\nv 0 1000 0\nf 1 2 3\n");
  const contact::TriangleMesh mm = read_mesh(t.dir / "mm.obj", p);
  bool found = false;
  for (const auto& v : mm.vertices) found |= (v - Eigen::Vector3d(0, 1, 0.5)).norm() < 1e-15;
  CHECK(found);
}

TEST_CASE("a bead dropped on an STL floor steps bit for bit as on the plane", "[apps][meshes]") {
  test::TempDir t;
  write_stl(t.dir / "floor.stl", test::flat_grid(-0.5, 0.5, -0.5, 0.5, 8, 8), "floor");
  const fs::path on_mesh = t.write("mesh.yaml", scene_text("meshes: [{name: floor, file: floor.stl}]\n"));
  Scene sm = load_scene(on_mesh);
  Scene sp = load_scene_from_string(scene_text("planes: [{name: floor, normal: [0, 0, 1], offset: 0}]\n"), "p.yaml");
  REQUIRE(sm.model.meshes.size() == 1);
  REQUIRE(sm.large_path);
  granular::GranularStepper a(sm.model, sm.large_path->params), b(sp.model, sp.large_path->params);
  for (int k = 0; k < 200; ++k) {
    a.step();
    b.step();
  }
  CHECK(sm.model.bodies.x[0] == sp.model.bodies.x[0]);
  CHECK(sm.model.bodies.v[0] == sp.model.bodies.v[0]);
  CHECK(sm.model.bodies.x[0].z() == Approx(0.01).epsilon(1e-9));
}

TEST_CASE("a bad mesh file names the scene's field and the file's problem", "[apps][meshes]") {
  test::TempDir t;
  const std::string dir = t.dir.string();
  CHECK_THAT(error_of(scene_text("meshes: [{name: m, file: " + dir + "/gone.stl}]\n")),
             Catch::StartsWith("m.yaml:5:") && Catch::Contains("field 'meshes[0].file'") &&
                 Catch::Contains("gone.stl: no such file"));
  // Two triangles whose shared edge runs the same way.
  t.write("flip.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 3 4\n");
  CHECK_THAT(error_of(scene_text("meshes: [{name: m, file: " + dir + "/flip.obj}]\n")),
             Catch::Contains("flip.obj': the edge from (1, 0, 0) to (0, 1, 0) runs the same way in triangles 0 and 1"));
  t.write("open.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
  CHECK_THAT(error_of(scene_text("meshes: [{name: m, file: " + dir + "/open.obj, closed: true}]\n")),
             Catch::Contains("is open: 3 edges have one triangle"));
  t.write("garbage.stl", "solid x\n facet normal 0 0 1\n  outer loop\n   vertex 0 0\n");
  CHECK_THAT(error_of(scene_text("meshes: [{name: m, file: " + dir + "/garbage.stl}]\n")),
             Catch::Contains("field 'meshes[0].file'") && Catch::Contains("garbage.stl: "));
  t.write("ok.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
  const std::string ok = "meshes: [{name: m, file: " + dir + "/ok.obj";
  CHECK_THAT(error_of(scene_text(ok + ", scale: 0}]\n")), Catch::Contains("field 'meshes[0].scale'"));
  CHECK_THAT(error_of(scene_text(ok + ", colour: red}]\n")), Catch::Contains("unknown key"));
  CHECK_THAT(error_of(scene_text(ok + "}]\n", false)), Catch::Contains("is only read with integrator.path: large"));
  const std::string capsule = "capsules: [{name: c, position: [0, 0, 1], axis: [1, 0, 0], half_length: 0.1, "
                              "radius: 0.01, density: 1000}]\n";
  CHECK(error_of(scene_text(ok + "}]\n" + capsule)) == "accepted");
  CHECK(error_of(scene_text(ok + ", motion: {angular_velocity: 1}}]\n" + capsule)) == "accepted");
  CHECK(error_of(scene_text(ok + ", translation: [0, 0, -0.5], rotation: {axis: [1, 0, 0], angle: 0.1}, "
                                 "material: wall}]\n")) == "accepted");
}

TEST_CASE("the lifter drum's bars lift beads above its axis, and each frame has the mesh where it is", "[apps][meshes]") {
  // The example with fewer beads (a bed a few beads deep) for 0.8 s.
  LoadOptions o;
  o.overrides = {parse_override("pours[0].count=150"), parse_override("integrator.t_end=0.8")};
  Scene s = load_scene(fs::path(TALUS_SOURCE_DIR) / "examples/lifter_drum.yaml", o);
  REQUIRE(s.model.mesh_moves(0));
  granular::GranularStepper st(s.model, s.large_path->params);
  double top = -1.0;
  for (int k = 0; k < 1600; ++k) {
    REQUIRE(st.step().solver.converged());
    for (int i = 0; i < s.model.bodies.spheres(); ++i) top = std::max(top, s.model.bodies.x[i].z());
  }
  // In a smooth drum at Fr = 0.1 (μ = 0.3: a dynamic angle of about 24°, docs/granular.md) this bed's surface
  // stays below z = −0.04 m; carried by the bars, beads pass over the axis (z = 0).
  CHECK(top > 0.02);
  // None left the drum (radius 0.1 m about y, 0 < y < 0.06 m).
  for (int i = 0; i < s.model.bodies.spheres(); ++i) {
    const Eigen::Vector3d& x = s.model.bodies.x[i];
    CHECK(std::hypot(x.x(), x.z()) < 0.1);
    CHECK((x.y() > 0.0 && x.y() < 0.06));
  }
  // A short run writes meshes_NNNNN.vtp per frame and meshes.pvd.
  test::TempDir t;
  std::vector<std::string> args = {"talus", "run", std::string(TALUS_SOURCE_DIR) + "/examples/lifter_drum.yaml",
                                   "--set", "pours[0].count=50", "--set", "integrator.t_end=0.04",
                                   "--out", (t.dir / "out").string(), "--no-plot", "--quiet"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  REQUIRE(app::cli_main(static_cast<int>(argv.size()), argv.data()) == 0);
  CHECK(fs::exists(t.dir / "out/meshes.pvd"));
  CHECK(fs::exists(t.dir / "out/meshes_00002.vtp"));
  CHECK_FALSE(fs::exists(t.dir / "out/meshes.vtp"));
}

TEST_CASE("a pour around a mesh obstacle places no bead into it", "[apps][meshes]") {
  // The rock of the mesh chute inside the pour's region: every bead clear of it (and of the floor).
  const std::string text = "gravity: [0, 0, -9.81]\n"
                           "laws: {glass: {type: newton_friction, e: 0, mu: 0.3, dim: 3}}\n"
                           "contacts: {detect: true, law: glass}\n"
                           "planes: [{name: floor, normal: [0, 0, 1], point: [0, 0, 0]}]\n"
                           "meshes: [{name: rock, file: " + std::string(TALUS_SOURCE_DIR) +
                           "/examples/meshes/boulder.stl, translation: [0, 0, 0.05]}]\n"
                           "pours: [{name: p, region: [-0.1, -0.1, 0.0, 0.1, 0.1, 0.12], count: 300, radius: 0.005, "
                           "density: 2500, seed: 4}]\n"
                           "integrator: {path: large, h: 1.0e-3, t_end: 0.01}\n";
  const Scene s = load_scene_from_string(text, "pour.yaml");
  const contact::TriangleMesh& rock = *s.model.meshes[0];
  REQUIRE(s.model.bodies.spheres() == 300);
  int near_rock = 0;
  for (int i = 0; i < 300; ++i) {
    const Eigen::Vector3d& x = s.model.bodies.x[i];
    double d = INFINITY;
    for (int t = 0; t < rock.faces(); ++t) {
      int f;
      d = std::min(d, (x - contact::nearest_on_triangle(rock, t, x, f)).norm());
    }
    CHECK(d >= 0.005);
    near_rock += d < 0.01;
    // Not inside the closed rock either: a ray up from the centre crosses its surface an even number of times
    // (counted here on the triangles' projections, independently of contact::inside_closed_mesh).
    int crossings = 0;
    for (int t = 0; t < rock.faces(); ++t) {
      const auto& tri = rock.triangles[t];
      const Eigen::Vector3d &a = rock.vertices[tri[0]], &b = rock.vertices[tri[1]], &c = rock.vertices[tri[2]];
      // The triangle's projection on the xy plane contains x (barycentric signs) and lies above it.
      const auto cross2 = [](const Eigen::Vector3d& p, const Eigen::Vector3d& q, const Eigen::Vector3d& r) {
        return (q.x() - p.x()) * (r.y() - p.y()) - (q.y() - p.y()) * (r.x() - p.x());
      };
      const double w0 = cross2(b, c, x), w1 = cross2(c, a, x), w2 = cross2(a, b, x);
      if (!((w0 > 0 && w1 > 0 && w2 > 0) || (w0 < 0 && w1 < 0 && w2 < 0))) continue;
      const double z = (w0 * a.z() + w1 * b.z() + w2 * c.z()) / (w0 + w1 + w2);
      crossings += z > x.z();
    }
    CHECK(crossings % 2 == 0);
  }
  CHECK(near_rock > 5);  // beads did fill the space around the rock
}

TEST_CASE("a mesh blade carried by a driven shaft loads its motor", "[apps][meshes]") {
  // examples/mesh_paddle.yaml with a smaller bed, with and without the blade: the beads it sweeps resist the
  // motor, the bare shaft hardly at all.
  const std::string text = test::read_text("examples/mesh_paddle.yaml");
  const std::string small = test::replace_once(test::replace_once(text, "count: 1000", "count: 400"), "t_end: 0.6",
                                               "t_end: 0.3");
  const std::string bare = test::replace_once(small, "  - {name: blade, file: meshes/blade.obj, body: shaft}\n",
                                              "  []\n");
  double torque[2];
  for (int with_blade = 0; with_blade < 2; ++with_blade) {
    Scene s = load_scene_from_string(with_blade ? small : bare, std::string(TALUS_SOURCE_DIR) + "/examples/mesh_paddle.yaml");
    REQUIRE(s.model.meshes.size() == static_cast<std::size_t>(with_blade));
    granular::GranularStepper st(s.model, s.large_path->params);
    double sum = 0.0;
    int n = 0;
    for (int k = 0; k < 300; ++k) {
      REQUIRE(st.step().solver.converged());
      // The motor (joint 1): its row's impulse over the step is its torque times h.
      if (k >= 200) sum += st.joint_impulses()[st.joint_row_start()[1]] / 1e-3, ++n;
    }
    torque[with_blade] = sum / n;
  }
  INFO("motor torque without the blade " << torque[0] << " N m, with " << torque[1] << " N m");
  CHECK(std::abs(torque[1]) > 100.0 * std::abs(torque[0]));
  CHECK(torque[1] > 2e-4);  // resisting the turn
}
