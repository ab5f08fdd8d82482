// A large-path single scene built in shares (LoadOptions::share; issue 15: a partitioned run's process builds only
// its share of the beads, docs/distributed.md "Who holds what"): the shares of any count put together are the
// scene built whole, bead for bead (ids, positions, radii, masses, velocities, materials), listed spheres, lattices
// and particle files with their own velocities alike; every share knows the whole scene's next id; the memory a
// share reserves is its share's. Scenes whose beads depend on each other (a capsule displaces them, a pour is
// placed among them) or that the partitioned model refuses are built whole.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "apps/SceneError.hpp"
#include "apps/SceneLoader.hpp"
#include "tests/TempDir.hpp"

using namespace talus;
using namespace talus::app;

namespace {

// Two materials, a listed ball, two lattices and a particle file with velocities, in a box of planes.
std::string scene_text() {
  return "name: shares\n"
         "gravity: [0, 0, -9.81]\n"
         "materials: [glass, steel]\n"
         "laws: {glass: {type: newton_friction, e: 0, mu: 0.3, dim: 3}}\n"
         "spheres: [{name: ball, position: [0.1, 0.1, 0.5], radius: 0.02, density: 7800, velocity: [0, 0, -1],\n"
         "           material: steel}]\n"
         "lattices:\n"
         "  - {name: low, corner: [0.0, 0.0, 0.02], counts: [5, 4, 3], radius: 0.01, density: 2500, spacing: 2.2,\n"
         "     jitter: 0.05, seed: 3, material: glass}\n"
         "  - {name: high, corner: [0.0, 0.0, 0.2], counts: [3, 3, 2], radius: 0.012, density: 2500, spacing: 2.2,\n"
         "     velocity: [0.1, 0, 0], material: steel}\n"
         "particles: [{name: pack, file: pack.csv, density: 1000}]\n"
         "planes: [{name: floor, normal: [0, 0, 1], offset: 0}]\n"
         "contacts: {detect: true, law: glass}\n"
         "integrator: {path: large, h: 1.0e-3, t_end: 0.01}\n";
}

struct Bead {
  Eigen::Vector3d x, v;
  double radius, mass;
  int material;
};

std::map<std::uint32_t, Bead> beads_of(const Scene& s) {
  std::map<std::uint32_t, Bead> out;
  const RigidBodies& b = s.model.bodies;
  for (int i = 0; i < b.spheres(); ++i) {
    const bool fresh = out.emplace(b.id[i], Bead{b.x[i], b.v[i], b.radius[i], b.mass[i], b.material[i]}).second;
    CHECK(fresh);  // an id once
  }
  return out;
}

}  // namespace

TEST_CASE("a large-path scene built in shares is the whole scene, bead for bead", "[apps][shares]") {
  test::TempDir t;
  t.write("pack.csv",
          "x, y, z, radius, vx, vy, vz\n"
          "0.3, 0.0, 0.01, 0.01, 0.5, 0, 0\n"
          "0.33, 0.0, 0.012, 0.012, 0, 0, -1\n"
          "0.3, 0.05, 0.02, 0.008, 0, 0.25, 0\n");
  const auto file = t.write("shares.yaml", scene_text());
  const Scene whole = load_scene(file);
  REQUIRE(whole.large_path);
  CHECK(whole.large_path->shares == 1);
  const std::map<std::uint32_t, Bead> all = beads_of(whole);
  REQUIRE(all.size() == 1 + 60 + 18 + 3);
  for (const int shares : {2, 3, 7}) {
    CAPTURE(shares);
    std::map<std::uint32_t, Bead> joined;
    for (int k = 0; k < shares; ++k) {
      LoadOptions o;
      o.share = k, o.shares = shares;
      const Scene part = load_scene(file, o);
      REQUIRE(part.large_path);
      CHECK(part.large_path->shares == shares);
      CHECK(part.model.bodies.next_id[0] == whole.model.bodies.next_id[0]);
      CHECK(part.model.bodies.spheres() <= static_cast<int>(all.size()) / shares + 1);
      CHECK(part.body_names.size() == static_cast<std::size_t>(part.model.bodies.count()));
      CHECK(part.model.walls.size() == whole.model.walls.size());
      for (const auto& [id, bead] : beads_of(part)) CHECK(joined.emplace(id, bead).second);  // in one share only
    }
    REQUIRE(joined.size() == all.size());
    for (const auto& [id, a] : all) {
      const Bead& b = joined.at(id);
      CHECK(a.x == b.x);
      CHECK(a.v == b.v);
      CHECK(a.radius == b.radius);
      CHECK(a.mass == b.mass);
      CHECK(a.material == b.material);
    }
  }
}

TEST_CASE("a share reserves the memory of its share of a lattice", "[apps][shares]") {
  // 10⁶ lattice sites need about 2.2 GB whole (the large path's estimate); a limit of 1 GB takes a quarter of them.
  const std::string text =
      "gravity: [0, 0, -9.81]\n"
      "lattices: [{name: big, corner: [0, 0, 0.02], counts: [100, 100, 100], radius: 0.01, density: 2500}]\n"
      "planes: [{name: floor, normal: [0, 0, 1], offset: 0}]\n"
      "contacts: {detect: true, law: {type: newton_friction, e: 0, mu: 0.3, dim: 3}}\n"
      "integrator: {path: large, h: 1.0e-3, t_end: 0.01}\n";
  LoadOptions whole;
  whole.max_memory = 1'000'000'000;
  CHECK_THROWS_AS(load_scene_from_string(text, "big.yaml", whole), SceneError);
  LoadOptions quarter = whole;
  quarter.share = 3, quarter.shares = 4;
  const Scene s = load_scene_from_string(text, "big.yaml", quarter);
  CHECK(s.model.bodies.spheres() == 250'000);
  CHECK(s.model.bodies.next_id[0] == 1'000'000);
}

TEST_CASE("scenes whose beads depend on each other are built whole in every share", "[apps][shares]") {
  const std::string base =
      "gravity: [0, 0, -9.81]\n"
      "lattices: [{name: bed, corner: [0, 0, 0.02], counts: [4, 4, 2], radius: 0.01, density: 2500}]\n"
      "planes: [{name: floor, normal: [0, 0, 1], offset: 0}]\n"
      "contacts: {detect: true, law: {type: newton_friction, e: 0, mu: 0.3, dim: 3}}\n"
      "integrator: {path: large, h: 1.0e-3, t_end: 0.01}\n";
  LoadOptions o;
  o.share = 1, o.shares = 2;
  auto with = [&](const std::string& extra) { return load_scene_from_string(base + extra, "extra.yaml", o); };
  const std::string pour = "pours: [{name: p, region: [0, 0, 0.1, 0.08, 0.08, 0.2], count: 10, radius: 0.008, "
                           "density: 2500";
  SECTION("a pour placed among the lattice's beads when the scene is read") {
    const Scene s = with(pour + "}]\n");
    CHECK(s.large_path->shares == 1);
    CHECK(s.model.bodies.spheres() == 32 + 10);
  }
  SECTION("a pour at a rate (its beads enter during the run) keeps the shares") {
    const Scene s = with(pour + ", rate: 100}]\n");
    CHECK(s.large_path->shares == 2);
    CHECK(s.model.bodies.spheres() == 16);
  }
  SECTION("a capsule that displaces generated beads") {
    const Scene s = with("capsules: [{name: rod, position: [0.02, 0.02, 0.03], axis: [1, 0, 0], radius: 0.01, "
                         "half_length: 0.03, density: 7800}]\n");
    CHECK(s.large_path->shares == 1);
    CHECK(s.model.bodies.capsules() == 1);
  }
}
