// `lattices:` in single scenes (apps/SceneLoader.cpp read_lattice): the granular scenes' lattice generator as
// a section of the single-scene schema, mixed with explicit bodies, joints and detected contacts. The sites
// are those of the granular generator (the lattice_stack scene, bit for bit), the spheres are named and
// usable by interactions, they settle on a floor under Moreau–Jean, and bad entries are refused with
// FILE:LINE:COL.
#include <catch2/catch.hpp>
#include <string>

#include "apps/SceneError.hpp"
#include "apps/SceneLoader.hpp"
#include "engine/MoreauJean.hpp"
#include "engine/schemes/NonsmoothGeneralizedAlpha.hpp"
#include "engine/granular/GranularScenes.hpp"
#include "tests/SceneText.hpp"

using namespace talus;
using namespace talus::app;

namespace {

// Line 8 holds the lattice entry (tests below locate errors in it).
const std::string kHead =
    "name: lattice_bed\n"                                                         // 1
    "gravity: [0, 0, -9.81]\n"                                                    // 2
    "spheres:\n"                                                                  // 3
    "  - {name: ball, position: [0.1, 0.1, 0.2], radius: 0.01, density: 7800}\n"  // 4
    "planes:\n"                                                                   // 5
    "  - {name: floor, normal: [0, 0, 1], offset: 0}\n"                           // 6
    "lattices:\n";                                                                // 7
const std::string kTail =
    "contacts:\n"
    "  law: {type: newton, e: 0.0}\n"
    "  detect: true\n"
    "integrator: {scheme: moreau_jean, h: 1.0e-3, t_end: 0.3}\n";

std::string scene(const std::string& lattice_line) { return kHead + lattice_line + kTail; }

std::string error_of(const std::string& text) { return test::scene_error(text, "lattice.yaml"); }

}  // namespace

TEST_CASE("a lattice of a single scene has the granular generator's sites, bit for bit") {
  const std::string entry =
      "  - {name: bed, corner: [0, 0, 0], counts: [3, 3, 2], radius: 0.01, density: 2500, spacing: 2.2, "
      "jitter: 0.05, polydispersity: 0.05, seed: 7}\n";
  const Scene s = load_scene_from_string(scene(entry), "lattice.yaml");
  const RigidBodies& b = s.model.bodies;
  REQUIRE(b.count() == 1 + 18);
  granular::BeadSpec spec;
  spec.radius = 0.01, spec.density = 2500, spec.spacing = 2.2, spec.jitter = 0.05, spec.polydispersity = 0.05;
  spec.seed = 7;
  const granular::GranularScene stack = granular::lattice_stack(spec, 3, 2);
  REQUIRE(stack.model.bodies.spheres() == 18);
  for (int k = 0; k < 18; ++k) {
    CHECK(b.x[1 + k] == stack.model.bodies.x[k]);
    CHECK(b.radius[1 + k] == stack.model.bodies.radius[k]);
    CHECK(b.mass[1 + k] == Approx(stack.model.bodies.mass[k]).epsilon(1e-15));
  }
  CHECK(s.body_names[1] == "bed_0");
  CHECK(s.body_names[18] == "bed_17");
}

TEST_CASE("lattice spheres settle on the floor beside a listed ball and can be named by interactions") {
  const std::string entry =
      "  - {name: bed, corner: [0, 0, 0], counts: [2, 2, 2], radius: 0.01, density: 2500, spacing: 2.2}\n";
  // A spherical joint holds the top corner bead where it is: the name generated for it is found.
  std::string text = scene(entry);
  text +=
      "interactions:\n  - {name: pin, type: spherical_joint, systems: [bed_7], anchor: [0.033, 0.033, "
      "0.033]}\n";
  Scene s = load_scene_from_string(text, "lattice.yaml");
  MoreauJeanParameters p;
  p.h = 1e-3;
  p.theta = 1.0;
  MoreauJean mj(s.model, p);
  for (int k = 0; k < 400; ++k) mj.step();
  const RigidBodies& b = s.model.bodies;
  // bed_0 … bed_3 are the bottom layer: on the floor, at rest (e = 0).
  for (int k = 1; k <= 4; ++k) {
    CHECK(b.x[k].z() == Approx(0.01).margin(2e-4));
    CHECK(b.v[k].norm() < 1e-3);
  }
  // The pinned bead stays at its anchor.
  CHECK((b.x[8] - Eigen::Vector3d(0.033, 0.033, 0.033)).norm() < 1e-6);
}

TEST_CASE("bad lattice entries are refused with FILE:LINE:COL and the field") {
  CHECK(error_of(
            scene("  - {name: bed, corner: [0, 0, 0], counts: [2, 0, 2], radius: 0.01, density: 2500}\n")) ==
        "lattice.yaml:8:44: field 'lattices[0].counts': entry 1 is 0.000000 (expected a whole number of "
        "sites, 1 to "
        "1000000)");
  CHECK(error_of(scene("  - {name: bed, corner: [0, 0, 0], counts: [2, 2, 2], radius: 0.01, density: 2500, "
                       "spacing: 1.5}\n"))
            .rfind("lattice.yaml:8:5: field 'lattices[0]': granular scene: lattice spacing too small", 0) ==
        0);
  CHECK(
      error_of(scene("  - {name: ball, corner: [0, 0, 0], counts: [1, 1, 1], radius: 0.01, density: 2500}\n"))
          .empty());
  const std::string clash = error_of(
      "name: s\nspheres:\n  - {name: bed_0, position: [1, 1, 1], radius: 0.01, density: 1}\nlattices:\n"
      "  - {name: bed, corner: [0, 0, 0], counts: [1, 1, 1], radius: 0.01, density: 2500}\n"
      "integrator: {scheme: moreau_jean, h: 1.0e-3, t_end: 0.1}\n");
  CHECK(clash ==
        "lattice.yaml:5:12: field 'lattices[0].name': name 'bed_0' is already used by spheres[0] (expected "
        "unique names)");
  CHECK(error_of(scene("  - {name: bed, corner: [0, 0, 0], counts: [2, 2, 2], radius: 0.01, density: 2500, "
                       "spaceing: 2}\n"))
            .rfind("lattice.yaml:8:84: field 'lattices[0].spaceing': unknown key", 0) == 0);
}

TEST_CASE("examples/lattice_on_beam.yaml: the block strikes the beam and comes to rest on the floor, both schemes") {
  for (const bool ga : {false, true}) {
    INFO((ga ? "generalized_alpha" : "moreau_jean"));
    Scene s = load_scene(std::string(TALUS_SOURCE_DIR) + "/examples/lattice_on_beam.yaml");
    Model& m = s.model;
    REQUIRE(m.bodies.count() == 24);
    const Index tip = m.lti[0].dofs() - 2;  // w of the free end
    double lowest_tip = 0.0;
    const long steps = 800;
    auto run = [&](auto& scheme) {
      for (long k = 0; k < steps; ++k) {
        scheme.step();
        lowest_tip = std::min(lowest_tip, m.lti[0].q[tip]);
      }
    };
    if (ga) {
      NonsmoothGeneralizedAlphaParameters p;
      p.h = s.integrator.h;
      p.coefficients = generalized_alpha_coefficients(s.scheme.rho_infinity);
      NonsmoothGeneralizedAlpha scheme(m, p);
      run(scheme);
    } else {
      MoreauJean scheme(m, s.integrator);
      run(scheme);
    }
    // The beam's own weight alone bends its tip by about 0.9 mm; the 24 beads' impact by well over 5 mm.
    CHECK(lowest_tip < -5e-3);
    // At 0.8 s most beads have rolled off the beam and rest on the floor (z = r), still; the others ride on
    // the vibrating beam (its top face at 6.2 cm, less its deflection). Moreau-Jean holds contacts at velocity
    // level, so the floor impact's penetration stays (below 10 % of r); generalized-alpha corrects positions,
    // so its beads rest at z = r.
    int on_floor = 0;
    for (int i = 0; i < 24; ++i) {
      const double r = m.bodies.radius[i], z = m.bodies.x[i].z();
      if (z < 2.0 * r) {
        ++on_floor;
        CHECK(z < r * 1.001);
        CHECK(z > (ga ? r - 1e-9 : 0.9 * r));
        CHECK(m.bodies.v[i].z() == Approx(0.0).margin(1e-6));
      } else {
        CHECK(z > 0.062 - 3e-3 + 0.9 * r);  // on the beam, not through it
        CHECK(z < 0.062 + 1.1 * r);
      }
    }
    CHECK(on_floor >= 20);
  }
}

