// A bead resting on a horizontal cantilever, contact found by the detection stage: once the vibration has
// died out (stiffness-proportional damping), the tip deflection is the textbook δ = P a²(3L − a)/(6 EI) of a
// point load P = m g at the contact abscissa a, under Moreau–Jean and under generalized-α. The load sits
// between nodes, so the check goes through the Hermite interpolation of the contact Jacobian (the element's
// consistent nodal load), not only through nodal forces. With friction the same bead rolls down the slope of
// the bent beam without slipping (the tangential rows, the sphere's spin included).
#include <catch2/catch.hpp>
#include <cmath>

#include "CantileverModels.hpp"
#include "engine/MoreauJean.hpp"
#include "engine/schemes/NonsmoothGeneralizedAlpha.hpp"

using namespace talus;

namespace {

struct Result {
  double tip = 0.0, analytic = 0.0, a = 0.0, slid = 0.0;
  double slip = 0.0;  // |U_T| of the contact after the last step (friction rows only)
};

Result rest_bead(bool generalized_alpha, const NonsmoothLaw& law = NewtonImpactLaw{0.0}) {
  // Steel strip 0.3 m × 3 cm × 3 mm (EI = 13.5 N m²), 8 elements; a steel bead of 1 cm radius at a = 0.2 m
  // (element 5, ξ = 1/3), touching the top face at rest. The beam's own weight is left out (transverse load
  // 0) so that the bead's weight is the only load; gravity acts on the bead.
  mixedtest::Cantilever c = mixedtest::steel_strip(0.3, 8, 0.03, 0.003);
  // ζ ≈ a_K ω / 2 ≈ 0.6 for the bead-on-beam mode (ω ≈ 390 rad/s): settled within 0.1 s.
  c.beam.rayleigh_stiffness = 3e-3;
  const double r = 0.01, a0 = 0.2;
  const Eigen::Vector3d x0(a0, 0.0, c.geometry.half_thickness + r);
  Model m = mixedtest::cantilever_with_beads(c, {x0}, r, 7800.0, law, -9.81, false);
  const double h = 1e-3;
  const int steps = 400;
  if (generalized_alpha) {
    NonsmoothGeneralizedAlphaParameters p;
    p.h = h;
    NonsmoothGeneralizedAlpha scheme(m, p);
    for (int k = 0; k < steps; ++k) scheme.step();
  } else {
    MoreauJeanParameters p;
    p.h = h;
    MoreauJean scheme(m, p);
    for (int k = 0; k < steps; ++k) scheme.step();
  }
  REQUIRE(m.interactions.size() == 1);
  const Interaction& in = m.interactions[0];
  REQUIRE(std::holds_alternative<BeamSphereContactRelation>(in.relation));
  // The frictionless bead creeps down the slope (≈ 5e-4 rad) towards the tip; the load point is where it is.
  const contact::SpherePose pose{m.bodies.x[0], Eigen::Vector4d(1, 0, 0, 0), r};
  const BeamSphereContact now = beam_sphere_contact(c.geometry, 1.0, m.lti[0].q, pose);
  Result res;
  if (in.velocity.size() > 1) res.slip = in.velocity.tail(in.velocity.size() - 1).norm();
  res.a = now.s;
  res.slid = m.bodies.x[0].x() - a0;
  const double P = m.bodies.mass[0] * 9.81, L = c.beam.length, EI = c.beam.young * c.beam.second_moment;
  res.analytic = -P * res.a * res.a * (3.0 * L - res.a) / (6.0 * EI);
  res.tip = m.lti[0].q[beam_deflection_dof(c.beam, c.beam.elements)];
  CHECK(std::abs(now.gap) < 1e-9);  // resting on the face, neither above it nor in it
  return res;
}

}  // namespace

TEST_CASE("a bead resting on a cantilever bends it as P a²(3L − a)/(6 EI)", "[mixed][beam-contact][statics]") {
  for (bool ga : {false, true}) {
    const Result r = rest_bead(ga);
    const double error = std::abs(r.tip / r.analytic - 1.0);
    WARN((ga ? "generalized-α" : "Moreau–Jean") << ": tip " << r.tip << " m, analytic " << r.analytic
                                                 << " m at a = " << r.a << " m (the bead slid " << r.slid
                                                 << " m), relative error " << error);
    CHECK(r.tip < 0.0);
    CHECK(error < 2e-3);
    CHECK(std::abs(r.slid) < 2e-3);
  }
}

TEST_CASE("with Coulomb friction the bead rolls down the bent beam without slipping", "[mixed][beam-contact][statics][friction]") {
  // The tangential rows (BeamSphereContact.hpp): t1 along the beam in its plane, the beam's surface point turning
  // with the section. With μ = 0.5 the bead on the small slope (≈ 5e-4 rad) does not slide but rolls, so it
  // travels 5/7 of the frictionless slide (a solid sphere rolling down a slope: acceleration 5/7 g sin θ), with
  // no slip at the contact, and the deflection is the same. Moreau–Jean takes 3-D friction, generalized-α
  // planar friction (dim 2, along t1).
  for (bool ga : {false, true}) {
    const Result free = rest_bead(ga);
    const Result r = rest_bead(ga, NewtonImpactFrictionLaw{0.0, 0.5, ga ? 2 : 3});
    const double error = std::abs(r.tip / r.analytic - 1.0), ratio = r.slid / free.slid;
    WARN((ga ? "generalized-α, 2-D friction" : "Moreau–Jean, 3-D friction")
         << ": tip " << r.tip << " m, analytic " << r.analytic << " m at a = " << r.a << " m (error " << error
         << "); the bead rolled " << r.slid << " m, " << ratio << " of the frictionless slide (5/7 = "
         << 5.0 / 7.0 << "), slip velocity " << r.slip << " m/s");
    CHECK(ratio == Approx(5.0 / 7.0).epsilon(3e-3));
    CHECK(r.slip < 1e-9);
    CHECK(error < 2e-3);
  }
}
