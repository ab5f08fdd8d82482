// Contact laws per pair of materials (engine/Materials.hpp): each contact takes the law of its two materials,
// so two beads in one scene obey two different laws against the same obstacle; scenes that name no material
// run bitwise as before materials existed (the scene keys are checked in tests/apps/test_granular_scene.cpp); restart
// archives carry the material ids.
//   - incline: two rotation-locked beads side by side on one plane of material "rubber", tilted by θ = 15°
//     (tan θ = 0.268): "sticky" (μ = 0.5 against rubber) must stick, its friction force balancing m g sin θ, and
//     "slick" (μ = 0.1) slide with a = g (sin θ − μ cos θ). The pairs against the default "wall" are
//     frictionless, so a stepper that ignored the plane's material would let both slide at g sin θ.
//   - rebound: two beads dropped from 0.1 m on one floor, pairs with e = 0.5 and e = 0.8: each leaves at −e
//     times its arrival speed and rises to e² of its drop height (generalized-α, whose impact law uses the
//     arrival velocity of the step that closes the contact; within 3 %, the O(h) of the impact instant).
//   - default scenes: state_hash after fixed runs, recorded from the commit before materials existed.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>

#include "apps/GranularOutput.hpp"
#include "apps/LargePathRestart.hpp"
#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"

using namespace talus::granular;
using talus::Model;

namespace {

constexpr double kG = 9.81, kR = 0.01;

Eigen::Vector3d contact_force(const SweepContact& c, double h) { return (c.r[0] * c.n + c.r[1] * c.t1 + c.r[2] * c.t2) / h; }

}  // namespace

TEST_CASE("two beads of different materials on one incline: one sticks below tan θ = μ, the other slides") {
  const double th = 15.0 * std::numbers::pi / 180.0, mu_sticky = 0.5, mu_slick = 0.1;
  Model m;
  m.gravity = kG * Eigen::Vector3d(std::sin(th), 0.0, -std::cos(th));
  const talus::MaterialId sticky = m.materials.add("sticky"), slick = m.materials.add("slick");
  const talus::MaterialId rubber = m.materials.add("rubber");
  for (int k = 0; k < m.materials.count(); ++k)
    for (int j = k; j < m.materials.count(); ++j) m.materials.law(k, j) = {0.0, 0.0};
  m.materials.law(sticky, rubber).mu = mu_sticky;
  m.materials.law(rubber, slick).mu = mu_slick;  // either order names the same pair
  m.walls.push_back(talus::contact::Wall{});
  m.wall_material = {rubber};
  // Side by side across the slope, 5 radii apart: they never touch.
  m.bodies.add_sphere(Eigen::Vector3d(0, 0, kR), kR, 2500.0);
  m.bodies.add_sphere(Eigen::Vector3d(0, 5 * kR, kR), kR, 2500.0);
  m.bodies.material[0] = sticky, m.bodies.material[1] = slick;
  m.bodies.inv_inertia[0] = m.bodies.inv_inertia[1] = 0.0;  // blocks: no rolling
  GranularParameters p;
  p.h = 1e-3;
  p.tolerance = 1e-10;
  p.resort_every = 0;  // bead 0 stays bead 0
  GranularStepper s(m, p);
  const int steps = 200;
  for (int k = 0; k < steps; ++k) REQUIRE(s.step().solver.converged());
  const double t = steps * p.h;
  const double a_slide = kG * (std::sin(th) - mu_slick * std::cos(th));
  INFO("sticky: v = " << m.bodies.v[0].transpose() << "; slick: a = " << m.bodies.v[1].x() / t << " (expected " << a_slide << ")");
  CHECK(m.bodies.v[0].norm() <= 1e-9);
  CHECK(std::abs(m.bodies.x[0].x()) <= 1e-9);
  CHECK(m.bodies.v[1].x() / t == Approx(a_slide).epsilon(1e-6));
  REQUIRE(s.contacts().size() == 2);
  for (const SweepContact& c : s.contacts()) {
    const Eigen::Vector3d f = contact_force(c, p.h);
    const double weight = m.bodies.mass[c.b] * kG;
    CHECK(f.z() == Approx(weight * std::cos(th)).epsilon(1e-6));
    if (c.b == 0) {
      CHECK(c.mu == mu_sticky);
      CHECK(-f.x() == Approx(weight * std::sin(th)).epsilon(1e-6));  // friction balances the slope's pull
    } else {
      CHECK(c.mu == mu_slick);
      CHECK(-f.x() == Approx(mu_slick * f.z()).epsilon(1e-6));  // sliding: on the cone's edge
    }
  }
}

TEST_CASE("two beads of different restitution dropped on one floor rebound to e² of their height") {
  const double drop = 0.1, e[2] = {0.5, 0.8};
  Model m;
  m.gravity = Eigen::Vector3d(0.0, 0.0, -kG);
  const talus::MaterialId soft = m.materials.add("soft"), hard = m.materials.add("hard");
  m.materials.law(soft, talus::kWallMaterial).e = e[0];
  m.materials.law(talus::kWallMaterial, hard).e = e[1];
  m.walls.push_back(talus::contact::Wall{});
  m.bodies.add_sphere(Eigen::Vector3d(0, 0, kR + drop), kR, 2500.0);
  m.bodies.add_sphere(Eigen::Vector3d(10 * kR, 0, kR + drop), kR, 2500.0);
  m.bodies.material[0] = soft, m.bodies.material[1] = hard;
  GranularParameters p;
  p.h = 1e-3;
  p.tolerance = 1e-10;
  p.resort_every = 0;
  p.scheme = GranularScheme::GeneralizedAlpha;
  GranularStepper s(m, p);
  double arrival[2] = {0, 0}, departure[2] = {0, 0}, apex[2] = {0, 0}, lowest = 1.0;
  int bounces[2] = {0, 0};
  for (int k = 0; k < 600; ++k) {
    const double before[2] = {m.bodies.v[0].z(), m.bodies.v[1].z()};
    REQUIRE(s.step().solver.converged());
    for (int i = 0; i < 2; ++i) {
      const double after = m.bodies.v[i].z();
      lowest = std::min(lowest, m.bodies.x[i].z() - kR);
      if (before[i] < 0.0 && after > 0.0 && bounces[i]++ == 0) arrival[i] = before[i], departure[i] = after;
      if (bounces[i] == 1) apex[i] = std::max(apex[i], m.bodies.x[i].z() - kR);
    }
  }
  for (int i = 0; i < 2; ++i) {
    INFO("bead " << i << ": e = " << e[i] << ", apex " << apex[i] << " m, expected " << e[i] * e[i] * drop << " m");
    REQUIRE(bounces[i] >= 1);
    CHECK(departure[i] == Approx(-e[i] * arrival[i]).epsilon(1e-9));
    CHECK(apex[i] == Approx(e[i] * e[i] * drop).epsilon(0.03));
  }
  CHECK(lowest >= -1e-12);
}

TEST_CASE("scenes that name no material run bitwise as before materials existed") {
  // state_hash after these runs, recorded with the commit before the material table (4b76d57); the same runs
  // cover bead–bead, bead–wall, bead–box, capsule and drum contacts, Moreau–Jean and generalized-α, e = 0 and
  // e > 0.
  auto run = [](GranularScene sc, GranularParameters p, int steps) {
    GranularStepper s(sc.model, p);
    for (int k = 0; k < steps; ++k) s.step();
    return talus::state_hash(sc.model.bodies);
  };
  BeadSpec spec;
  spec.n = 125;
  GranularParameters p;
  CHECK(run(bead_stack(spec), p, 200) == 0xdaf882eaa972e353ull);
  BeadSpec caps = spec;
  caps.capsule_fraction = 0.2, caps.restitution = 0.3, caps.mu = 0.4;
  // Re-recorded when Moreau–Jean's impact law began to apply to contacts closed within the step (e > 0;
  // tests/granular/test_moreau_jean_restitution.cpp): this run has e = 0.3.
  CHECK(run(bead_stack(caps), p, 200) == 0x249887a3bb51e811ull);
  GranularParameters ga = p;
  ga.scheme = GranularScheme::GeneralizedAlpha;
  BeadSpec bouncy = spec;
  bouncy.restitution = 0.5;
  CHECK(run(bead_stack(bouncy), ga, 200) == 0xf50d6cc93cf20ce7ull);
  CHECK(run(drum(spec, 5.0, 4.0, 0.3, 1e-2), p, 100) == 0x7b9c688be6139548ull);
  BeadSpec chute_spec = spec;
  chute_spec.n = 100;
  CHECK(run(chute(chute_spec, 25.0, 30.0, true, 2.0), p, 100) == 0xab56cb80e3deb720ull);
}

TEST_CASE("a table naming the default laws again gives the same run bitwise") {
  // The laws are looked up per pair: beads of a material whose laws equal the defaults step exactly as "bead".
  BeadSpec spec;
  spec.n = 125;
  spec.restitution = 0.2;
  GranularScene plain = bead_stack(spec), named = bead_stack(spec);
  const talus::MaterialId glass = named.model.materials.add("glass"), steel = named.model.materials.add("steel");
  // Glass and steel beads in a steel box, every pair with bead_stack's one law (μ, e).
  for (talus::MaterialId k : {glass, steel})
    for (talus::MaterialId j : {glass, steel}) named.model.materials.law(k, j) = {spec.mu, spec.restitution};
  named.model.wall_material.assign(named.model.walls.size(), steel);
  assign_bead_materials(named.model, {{glass, 0.5}, {steel, 0.5}}, 7);
  int counts[4] = {0, 0, 0, 0};
  for (int i = 0; i < named.model.bodies.spheres(); ++i) ++counts[named.model.bodies.material[i]];
  CHECK(counts[talus::kBeadMaterial] == 0);
  CHECK(counts[glass] > 40);
  CHECK(counts[steel] > 40);
  GranularParameters p;
  GranularStepper a(plain.model, p), b(named.model, p);
  for (int k = 0; k < 150; ++k) a.step(), b.step();
  CHECK(talus::state_hash(plain.model.bodies) == talus::state_hash(named.model.bodies));
}

TEST_CASE("restart archives keep the material ids, and archives without them load as the default material") {
  BeadSpec spec;
  spec.n = 27;
  GranularScene sc = bead_stack(spec);
  const talus::MaterialId glass = sc.model.materials.add("glass");
  assign_bead_materials(sc.model, {{glass, 0.5}}, 3);
  const auto dir = std::filesystem::temp_directory_path() / ("talus_test_" + std::to_string(::getpid()) + "_materials");
  std::filesystem::create_directories(dir);
  talus::app::write_restart(dir / "with.h5", sc.model);
  GranularScene back = bead_stack(spec);
  back.model.materials.add("glass");
  talus::app::read_restart(dir / "with.h5", back.model);
  // The beads' ids (the reader also places the five walls as obstacle bodies after them, of material "wall").
  const auto beads = [](const talus::Model& m) {
    return std::vector<talus::MaterialId>(m.bodies.material.begin(), m.bodies.material.begin() + m.bodies.count());
  };
  CHECK(beads(back.model) == beads(sc.model));
  CHECK(back.model.bodies.obstacles() == 5);
  int glass_beads = 0;
  for (auto k : beads(back.model)) glass_beads += k == glass;
  CHECK(glass_beads > 5);
  CHECK(glass_beads < 22);
  // The scene's table must hold the archive's ids.
  GranularScene plain = bead_stack(spec);
  CHECK_THROWS_WITH(talus::app::read_restart(dir / "with.h5", plain.model),
                    Catch::Contains("/beads/material") && Catch::Contains("below the 2 materials"));
  // Without materials the archive has no material dataset, and reads back as "bead".
  GranularScene none = bead_stack(spec);
  talus::app::write_restart(dir / "without.h5", none.model);
  GranularScene loaded = bead_stack(spec);
  loaded.model.materials.add("glass");
  loaded.model.bodies.material.assign(loaded.model.bodies.count(), glass);
  talus::app::read_restart(dir / "without.h5", loaded.model);
  for (auto k : beads(loaded.model)) CHECK(k == talus::kBeadMaterial);
  std::filesystem::remove_all(dir);
}
