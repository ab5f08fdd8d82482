// The "one engine" scene (examples/beads_paddle_cantilever.yaml): a driven paddle on a revolute joint
// sweeping beads, and a cluster of beads falling onto an FE cantilever, in one model, under Moreau–Jean and
// under generalized-α. It must run to its end without failure, keep every contact's penetration below a
// stated bound (computed here from the positions, not from detection's lists; the bounds are at the check),
// keep the paddle on its joint, and the cluster must actually strike and bend the beam. Plus the loader's
// refusals for the `beams:` key.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

#include "apps/SceneError.hpp"
#include "apps/SceneLoader.hpp"
#include "engine/MoreauJean.hpp"
#include "engine/schemes/NonsmoothGeneralizedAlpha.hpp"
#include "tests/SceneText.hpp"

using namespace talus;
using namespace talus::app;

namespace {

using test::read_text;
using test::replace_once;

const char* kExample = "examples/beads_paddle_cantilever.yaml";

// Smallest gap over every sphere pair, sphere–plane pair and sphere–beam pair (spheres over the strip). The
// side of the beam a sphere is on is tracked here: it may change only where the sphere is beside the strip or
// past an end; over the strip a sphere keeps its side, so one that went through the beam shows as a negative
// gap.
struct GapMonitor {
  std::vector<double> side;  // per sphere of detection.spheres, for beam 0
  double plane = INFINITY, pair = INFINITY, on_beam = INFINITY;  // the smallest of each kind so far

  double smallest(const Model& m) {
    double g = INFINITY;
    const auto& s = m.detection.spheres;
    const RigidBodies& b = m.bodies;
    const ContactBeam& beam = m.detection.beams.at(0);
    const Vector& q = m.lti[beam.lti].q;
    side.resize(s.size(), 0.0);
    for (std::size_t i = 0; i < s.size(); ++i) {
      for (const ContactPlane& p : m.detection.planes)
        plane = std::min(plane, p.normal.dot(b.x[s[i]]) - p.offset - b.radius[s[i]]);
      for (std::size_t j = i + 1; j < s.size(); ++j)
        pair = std::min(pair, (b.x[s[j]] - b.x[s[i]]).norm() - b.radius[s[i]] - b.radius[s[j]]);
      const contact::SpherePose pose{b.x[s[i]], Eigen::Vector4d(1, 0, 0, 0), b.radius[s[i]]};
      const BeamContactGeometry& geo = beam.geometry;
      const double along = (b.x[s[i]] - geo.origin).dot(geo.axis);
      const BeamSphereContact c = beam_sphere_contact(geo, side[i] != 0.0 ? side[i] : 1.0, q, pose);
      if (side[i] == 0.0 || !c.over_strip || along <= 0.0 || along >= geo.length)
        side[i] = beam_sphere_side(geo, q, b.x[s[i]]);
      else
        on_beam = std::min(on_beam, c.gap);
    }
    return std::min({g, plane, pair, on_beam});
  }
};

std::string error_of(const std::string& text) { return test::scene_error(text, "mixed.yaml"); }

}  // namespace

TEST_CASE("beads, a driven paddle and a struck FE cantilever run in one model under both schemes",
          "[mixed][scene]") {
  const std::string mj_text = read_text(kExample);
  const std::string ga_text = replace_once(mj_text, "  scheme: moreau_jean", "  scheme: generalized_alpha");
  for (bool ga : {false, true}) {
    const char* name = ga ? "generalized_alpha" : "moreau_jean";
    INFO(name);
    Scene scene = load_scene_from_string(ga ? ga_text : mj_text, "beads_paddle_cantilever.yaml");
    Model& m = scene.model;
    REQUIRE(m.lti.size() == 1);
    REQUIRE(m.detection.beams.size() == 1);
    REQUIRE(scene.body_names[0] == "paddle");
    const double h = scene.integrator.h;
    const long steps = std::lround(scene.t_end / h);
    const Eigen::Vector3d anchor(0.0, 0.0, 0.03);
    double worst_gap = INFINITY, joint_error = 0.0, tip_low = 0.0, beam_impulse = 0.0;
    GapMonitor gaps;
    worst_gap = gaps.smallest(m);
    int most = 0;
    const Index tip = m.lti[0].dofs() - 2;  // w of the free end
    const auto after = [&] {
      worst_gap = std::min(worst_gap, gaps.smallest(m));
      const Eigen::Vector3d d = m.bodies.x[0] - anchor;
      joint_error = std::max({joint_error, std::abs(d.z()), std::abs(d.norm() - 0.1)});
      tip_low = std::min(tip_low, m.lti[0].q[tip]);
      most = std::max(most, static_cast<int>(m.interactions.size()));
      for (const Interaction& in : m.interactions)
        if (std::holds_alternative<BeamSphereContactRelation>(in.relation)) beam_impulse += in.impulse[0];
    };
    if (ga) {
      NonsmoothGeneralizedAlphaParameters p;
      p.h = h;
      p.coefficients = generalized_alpha_coefficients(scene.scheme.rho_infinity);
      NonsmoothGeneralizedAlpha scheme(m, p);
      for (long k = 0; k < steps; ++k) {
        scheme.step();
        after();
      }
    } else {
      MoreauJean scheme(m, scene.integrator);
      for (long k = 0; k < steps; ++k) {
        scheme.step();
        after();
      }
    }
    // The beam's own weight bends its tip by q L⁴/(8 EI) ≈ 0.88 mm; the cluster (12 × 2.26 g) adds more.
    WARN(name << ": smallest gap " << worst_gap << " m (sphere-floor " << gaps.plane << ", sphere-sphere "
              << gaps.pair << ", sphere-beam " << gaps.on_beam << "), joint error " << joint_error
              << " m, lowest tip " << tip_low << " m, Σ bead–beam normal impulses " << beam_impulse
              << " N s, at most " << most << " interactions");
    // Penetration bounds. Generalized-α closes the gaps at position level: round-off. Moreau–Jean with θ = ½
    // moves by h v_{k+½}: a contact the forecast g + h U_k <= 0 activates at approach speed |U_k| ends the
    // step at g >= −h |U_k| / 2, and it keeps that overlap (no position correction). The fastest approach
    // here is the cluster's upper layer, about 0.93 m/s after its 4.4 cm fall: h |U| / 2 ≈ 0.47 mm (8 % of a
    // 6 mm radius).
    CHECK(worst_gap > (ga ? -1e-9 : -5e-4));
    CHECK(joint_error < 1e-9);
    CHECK(tip_low < -1.2e-3);    // below the self-weight sag: the cluster struck and loaded the beam
    CHECK(beam_impulse > 0.05);  // the cluster's momentum at impact is 12 × 2.26 g × 0.8 m/s ≈ 0.022 N s
    CHECK(m.time == Approx(scene.t_end));
  }
}

TEST_CASE("the beams key: positions in errors and refusals of what is not supported", "[mixed][scene]") {
  const std::string text = read_text(kExample);
  const std::string skew =
      error_of(replace_once(text, "deflection: [0.0, 0.0, 1.0]", "deflection: [0.3, 0.0, 1.0]"));
  CHECK(skew.find("mixed.yaml:") == 0);
  CHECK(skew.find("beams[0].deflection") != std::string::npos);
  CHECK(skew.find("not normal to axis") != std::string::npos);
  const std::string elements = error_of(replace_once(text, "elements: 10", "elements: 0"));
  CHECK(elements.find("beams[0].elements") != std::string::npos);
  const std::string width = error_of(replace_once(text, "width: 0.03", "width: -0.03"));
  CHECK(width.find("beams[0].width") != std::string::npos);
  const std::string unknown = error_of(replace_once(text, "length: 0.2,", "length: 0.2, lenght: 0.2,"));
  CHECK(unknown.find("lenght") != std::string::npos);
  // Without detection a sphere would go through the beam: refused.
  const std::string listed = error_of(replace_once(text, "detect: true ", "sphere_plane: true "));
  CHECK(listed.find("detect: true") != std::string::npos);
  CHECK(listed.find("cantilever") != std::string::npos);
}
