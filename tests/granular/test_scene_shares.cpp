// A share of a generated scene (BeadSpec::keep_begin, keep_end; issue 15: each process of a partitioned run builds
// only its share of the beads). What it cannot fake: for every generator, the shares of 1, 2, 3 and 7 processes put
// together are the whole scene's beads bead for bead (ids, positions, velocities, radii, masses, materials drawn by
// rules) with the same walls, events and next id; perturbed_stack drops its ball from the same point whichever
// share a process holds.
#include <catch2/catch.hpp>
#include <functional>
#include <string>

#include "engine/granular/GranularScenes.hpp"

using namespace talus::granular;

namespace {

using Generator = std::function<GranularScene(const BeadSpec&)>;

void require_shares_make_the_whole(const std::string& name, const Generator& make, BeadSpec spec,
                                   const std::vector<BeadMaterialRule>& rules = {}) {
  GranularScene whole = make(spec);
  if (!rules.empty()) assign_bead_materials(whole.model, rules, 7);
  const talus::RigidBodies& w = whole.model.bodies;
  const long n = w.spheres();
  REQUIRE(n > 10);
  for (int shares : {1, 2, 3, 7}) {
    std::vector<int> seen(static_cast<std::size_t>(n), 0);
    for (int k = 0; k < shares; ++k) {
      BeadSpec part = spec;
      part.keep_begin = n * k / shares, part.keep_end = n * (k + 1) / shares;
      GranularScene sc = make(part);
      if (!rules.empty()) assign_bead_materials(sc.model, rules, 7);
      const talus::RigidBodies& b = sc.model.bodies;
      INFO(name << ": share " << k << " of " << shares);
      REQUIRE(b.spheres() == part.keep_end - part.keep_begin);
      CHECK(b.next_id == w.next_id);
      CHECK(sc.model.walls.size() == whole.model.walls.size());
      CHECK(sc.events.drop_position == whole.events.drop_position);
      CHECK(sc.events.remove_below_z == whole.events.remove_below_z);
      for (int i = 0; i < b.spheres(); ++i) {
        const std::uint32_t id = b.id[i];
        REQUIRE(static_cast<long>(id) >= part.keep_begin);
        REQUIRE(static_cast<long>(id) < part.keep_end);
        ++seen[id];
        const int j = static_cast<int>(id);  // the whole scene holds its beads in id order
        REQUIRE(w.id[j] == id);
        CHECK(b.x[i] == w.x[j]);
        CHECK(b.v[i] == w.v[j]);
        CHECK(b.radius[i] == w.radius[j]);
        CHECK(b.mass[i] == w.mass[j]);
        CHECK(b.inv_inertia[i] == w.inv_inertia[j]);
        CHECK(b.material[i] == w.material[j]);
      }
    }
    for (long j = 0; j < n; ++j) REQUIRE(seen[static_cast<std::size_t>(j)] == 1);
  }
}

}  // namespace

TEST_CASE("scene shares: every generator's shares put together are the whole scene, bead for bead") {
  BeadSpec spec;
  spec.n = 500;
  spec.polydispersity = 0.05;
  require_shares_make_the_whole("bead_stack", [](const BeadSpec& s) { return bead_stack(s); }, spec);
  require_shares_make_the_whole("silo", [](const BeadSpec& s) { return silo(s, 4.0); }, spec);
  require_shares_make_the_whole("chute", [](const BeadSpec& s) { return chute(s, 25.0, 60.0, true, 0.0); }, spec);
  require_shares_make_the_whole("perturbed_stack", [](const BeadSpec& s) { return perturbed_stack(s); }, spec);
  BeadSpec mono;  // the stack-height scenes take one radius
  require_shares_make_the_whole("lattice_stack", [](const BeadSpec& s) { return lattice_stack(s, 6, 5); }, mono);
  require_shares_make_the_whole("packed_box", [](const BeadSpec& s) { return packed_box(s, 5, 4); }, mono);
  require_shares_make_the_whole("pyramid", [](const BeadSpec& s) { return pyramid(s, 5); }, mono);
  require_shares_make_the_whole("bead_column", [](const BeadSpec& s) { return bead_column(s, 30); }, mono);
  require_shares_make_the_whole("drum", [](const BeadSpec& s) { return drum(s, 6.0, 4.0, 0.3, 0.01); }, mono);
}

TEST_CASE("scene shares: materials drawn by rules follow the bead, not its place in a share") {
  BeadSpec spec;
  spec.n = 400;
  spec.polydispersity = 0.04;
  GranularScene probe = bead_stack(spec);
  const auto second = probe.model.materials.add("second");
  require_shares_make_the_whole(
      "bead_stack with rules",
      [&](const BeadSpec& s) {
        GranularScene sc = bead_stack(s);
        (void)sc.model.materials.add("second");
        return sc;
      },
      spec, {{second, 0.4, 0.0, 0.0101}});
}

TEST_CASE("scene shares: perturbed_stack's ball starts above the top layer's beads") {
  BeadSpec spec;
  spec.n = 300;
  const GranularScene sc = perturbed_stack(spec);
  double top = 0.0;
  for (int i = 0; i < sc.model.bodies.spheres(); ++i) top = std::max(top, sc.model.bodies.x[i].z());
  CHECK(sc.events.drop_position.z() == top + 2.0 * spec.radius + sc.events.drop_radius);
}

TEST_CASE("scene shares: capsules cannot be split into shares") {
  BeadSpec spec;
  spec.n = 200;
  spec.capsule_fraction = 0.2;
  spec.keep_end = 100;
  CHECK_THROWS_WITH(bead_stack(spec), Catch::Contains("capsules"));
}
