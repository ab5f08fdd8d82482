// Particle sets read from files (apps/ParticleFile.hpp, the scene key `particles:`; issue 14 item 3): a CSV's
// beads land in the model as written, on either path, with their velocities; every malformed file names the file,
// the line (or dataset) and the column; the HDF5 form is read the same (tests/python/test_particles.py writes one
// with h5py).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "apps/ParticleFile.hpp"
#include "apps/SceneError.hpp"
#include "apps/SceneLoader.hpp"
#include "tests/TempDir.hpp"

using namespace talus;
using namespace talus::app;
namespace fs = std::filesystem;

namespace {


std::string scene_text(const std::string& path, const std::string& extra = "") {
  return "gravity: [0, 0, -9.81]\n"
         "laws: {glass: {type: newton_friction, e: 0, mu: 0.3, dim: 3}}\n"
         "contacts: {detect: true, law: glass}\n"
         "planes: [{name: floor, normal: [0, 0, 1], offset: 0}]\n"
         "particles: [{name: pack, file: " + path + ", density: 2500" + extra + "}]\n"
         "integrator: {path: large, h: 1.0e-3, t_end: 0.01}\n";
}

}  // namespace

TEST_CASE("particles from a CSV file join the model as written", "[apps][particles]") {
  test::TempDir t;
  t.write("pack.csv",
          "# a packing from elsewhere\n"
          "id, x, y, z, radius, vx, vy, vz\n"
          "1, 0.0, 0.0, 0.01, 0.01, 0.5, 0, 0\n"
          "2, 0.03, 0.0, 0.012, 0.012, 0, 0, -1\n"
          "\n"
          "3, 0.0, 0.05, 0.02, 0.008, 0, 0.25, 0\n");
  // The file's path relative to the scene's folder.
  const fs::path scene_file = t.write("scene.yaml", scene_text("pack.csv"));
  const Scene s = load_scene(scene_file);
  const RigidBodies& b = s.model.bodies;
  REQUIRE(b.spheres() == 3);
  CHECK(b.x[1] == Eigen::Vector3d(0.03, 0.0, 0.012));
  CHECK(b.radius[2] == 0.008);
  CHECK(b.v[0] == Eigen::Vector3d(0.5, 0, 0));
  CHECK(b.v[1] == Eigen::Vector3d(0, 0, -1));
  CHECK(b.mass[1] == Approx(2500 * 4.0 / 3.0 * M_PI * std::pow(0.012, 3)));
  CHECK(s.body_names[2] == "pack_2");
  // On the small path the same file gives general rigid spheres.
  const Scene small = load_scene_from_string(
      "gravity: [0, 0, -9.81]\nparticles: [{name: p, file: " + (t.dir / "pack.csv").string() +
          ", density: 1000}]\nintegrator: {scheme: moreau_jean, h: 1.0e-3, t_end: 0.01}\n",
      "small.yaml");
  CHECK(small.model.bodies.general() == 3);
  CHECK(small.model.bodies.x[2] == Eigen::Vector3d(0.0, 0.05, 0.02));
  // Without velocity columns, the scene's `velocity`.
  t.write("still.csv", "x,y,z,radius\n0,0,0.5,0.01\n");
  const Scene still = load_scene_from_string(scene_text((t.dir / "still.csv").string(), ", velocity: [0, 0, 2]"), "s.yaml");
  CHECK(still.model.bodies.v[0] == Eigen::Vector3d(0, 0, 2));
}

TEST_CASE("a malformed particle file names the file, the line and the column", "[apps][particles]") {
  test::TempDir t;
  const auto error = [&](const std::string& content, const std::string& name = "bad.csv", const std::string& extra = "") {
    t.write(name, content);
    try {
      load_scene_from_string(scene_text((t.dir / name).string(), extra), "p.yaml");
    } catch (const SceneError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::string at = (t.dir / "bad.csv").string();
  CHECK_THAT(error("x,y,z,radius\n0,0,0,0.01\n0,0,zero,0.01\n"),
             Catch::StartsWith("p.yaml:5:") && Catch::Contains("field 'particles[0].file'") &&
                 Catch::Contains(at + ":3: column 'z': 'zero' is not a finite number"));
  CHECK_THAT(error("x,y,radius\n0,0,0.01\n"), Catch::Contains(at + ":1: no column 'z'"));
  CHECK_THAT(error("x,y,z,radius\n0,0,0,-0.01\n"), Catch::Contains(at + ":2: column 'radius': -0.01 (expected > 0)"));
  CHECK_THAT(error("x,y,z,radius\n0,0,0\n"), Catch::Contains(at + ":2: column 'radius': missing"));
  CHECK_THAT(error("x,y,z,radius,vx\n0,0,0,0.01,1\n"), Catch::Contains("velocity columns must be all of vx, vy, vz or none"));
  CHECK_THAT(error("x,y,z,radius\n"), Catch::Contains(at + ": no particle after the header"));
  CHECK_THAT(error("x,y,z,radius,vx,vy,vz\n0,0,0.5,0.01,0,0,0\n", "bad.csv", ", velocity: [0, 0, 1]"),
             Catch::Contains("field 'particles[0].velocity': is given, but the file has velocities"));
  CHECK_THAT(error("", "bad.dat"), Catch::Contains("unknown particle file type '.dat'"));
  CHECK_THAT(error("not hdf5", "bad.h5"), Catch::Contains("bad.h5: not an HDF5 file"));
  std::string missing = "accepted";
  try {
    load_scene_from_string(scene_text((t.dir / "gone.csv").string()), "p.yaml");
  } catch (const SceneError& e) {
    missing = e.what();
  }
  CHECK_THAT(missing, Catch::Contains("gone.csv: cannot be read"));
}
