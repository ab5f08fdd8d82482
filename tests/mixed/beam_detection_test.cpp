// The detection stage's sphere–beam pairs (engine/detection/SmallPathDetection.hpp): which spheres it lists (over
// the strip and within margin + h (max|v| + the beam's speed bound), below as well as above, past the free end),
// which it leaves out (beside the strip, too far), and that a persisting pair keeps its Interaction object —
// impulse and side — even for a workspace new to the model.
#include <catch2/catch.hpp>
#include <cmath>

#include "CantileverModels.hpp"
#include "engine/MoreauJean.hpp"
#include "engine/detection/SmallPathDetection.hpp"

using namespace talus;

namespace {

int beam_pairs(const Model& m, std::vector<int>* bodies = nullptr, std::vector<double>* sides = nullptr) {
  int n = 0;
  for (std::size_t i = static_cast<std::size_t>(m.detection.first); i < m.interactions.size(); ++i)
    if (const auto* r = std::get_if<BeamSphereContactRelation>(&m.interactions[i].relation)) {
      ++n;
      if (bodies) bodies->push_back(static_cast<int>(m.interactions[i].systems[0].index));
      if (sides) sides->push_back(r->side);
    }
  return n;
}

}  // namespace

TEST_CASE("detection lists the spheres near the beam and only those", "[mixed][detection]") {
  mixedtest::Cantilever c = mixedtest::steel_strip(0.3, 6, 0.03, 0.003);
  const double r = 0.01, top = c.geometry.half_thickness + r;  // centre height of a sphere touching the top
  const std::vector<Eigen::Vector3d> x = {
      {0.10, 0.0, top + 0.0005},     // 0: above, within the margin (a tenth of r = 1 mm)
      {0.20, 0.0, -top - 0.0002},    // 1: below, within the margin
      {0.15, 0.0, top + 0.002},      // 2: above, beyond the margin
      {0.15, 0.016, top},            // 3: its centre beside the strip (|y| > 15 mm): 0.05 mm from the edge line
      {0.305, 0.0, 0.0},             // 4: past the free end, 5 mm from the tip point: gap −6.5 mm (rounded end)
      {0.33, 0.0, 0.0},              // 5: past the free end, 30 mm away
      {0.22, 0.0275, top}};          // 6: beside the strip, 2.5 mm beyond r from its edge
  Model m = mixedtest::cantilever_with_beads(c, x, r, 2500.0, NewtonImpactLaw{0.0}, 0.0, false);
  SmallPathDetection ws;
  detect_contacts(m, ws, 1e-3);  // at rest: the reach is the margin alone
  std::vector<int> bodies;
  std::vector<double> sides;
  REQUIRE(beam_pairs(m, &bodies, &sides) == 4);
  CHECK(bodies == std::vector<int>{0, 1, 3, 4});
  CHECK(sides == std::vector<double>{1.0, -1.0, 1.0, 1.0});
  CHECK(ws.beam_reach == Approx(0.1 * r));
  // Moving spheres widen the reach by h max|v|: sphere 2 (1 mm beyond the margin) is listed when some sphere
  // moves at 1.5 m/s with h = 1e-3.
  m.bodies.v[5] = Eigen::Vector3d(0.0, 0.0, 1.5);
  detect_contacts(m, ws, 1e-3);
  CHECK(beam_pairs(m) == 5);
  CHECK(ws.beam_reach == Approx(0.1 * r + 1.5e-3));
}

TEST_CASE("a persisting bead–beam pair keeps its impulse and side", "[mixed][detection]") {
  mixedtest::Cantilever c = mixedtest::steel_strip(0.3, 6, 0.03, 0.003);
  c.beam.rayleigh_stiffness = 3e-3;
  const double r = 0.01;
  Model m = mixedtest::cantilever_with_beads(c, {{0.2, 0.0, c.geometry.half_thickness + r}}, r, 7800.0,
                                             NewtonImpactLaw{0.0}, -9.81, false);
  MoreauJeanParameters p;
  p.h = 1e-3;
  {
    MoreauJean mj(m, p);
    for (int k = 0; k < 400; ++k) mj.step();  // the vibration of the sudden load has died out
  }
  REQUIRE(beam_pairs(m) == 1);
  const Vector impulse = m.interactions.back().impulse;
  CHECK(impulse[0] == Approx(m.bodies.mass[0] * 9.81 * p.h).epsilon(2e-3));  // the bead's weight over a step
  // A workspace new to the model (an integrator built again) finds the pair by its key and keeps the object.
  SmallPathDetection fresh;
  const bool changed = detect_contacts(m, fresh, p.h);
  CHECK_FALSE(changed);
  REQUIRE(beam_pairs(m) == 1);
  CHECK(m.interactions.back().impulse == impulse);
  // Stepping on with a new integrator: the warm-started pair persists and still carries the weight.
  MoreauJean again(m, p);
  again.step();
  REQUIRE(beam_pairs(m) == 1);
  CHECK(m.interactions.back().impulse[0] == Approx(impulse[0]).epsilon(1e-3));
}
