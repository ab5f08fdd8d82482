// Drift bounds of the bouncing rigid pendulum (seed 004, e = 0.8, h = 2e−3, 5 s) for every scheme, selected by
// name through SchemeSelection.hpp: the bilateral constraints x = l cos θ, y = l sin θ hold to round-off at
// position and velocity level with generalized-α (GGL correction), at position level with Schatzman–Paoli, at
// velocity level with Newmark/HHT (position drift bounded by O(h²) per step), and drift most with Moreau–Jean.
// The drift is recomputed from the state, independently of what the schemes store in the interactions.
#include <catch2/catch.hpp>

#include <cmath>

#include "engine/schemes/SchemeBenchmarkModels.hpp"
#include "engine/schemes/SchemeSelection.hpp"

using namespace talus;

namespace {

struct Drift {
  double position = 0.0, velocity = 0.0, min_gap = 1.0;
};

Drift run(const SchemeChoice& choice) {
  const BouncingPendulumParameters pp;
  Model model = make_bouncing_pendulum(pp);
  const std::unique_ptr<Integrator> integrator = make_integrator(model, choice);
  Drift d;
  for (int i = 0; i < 2500; ++i) {
    integrator->step(model);
    const Vector& q = model.lti[0].q;
    const Vector& v = model.lti[0].v;
    const double l = pp.length, s = std::sin(q[2]), c = std::cos(q[2]);
    d.position = std::max({d.position, std::abs(q[0] - l * c), std::abs(q[1] - l * s)});
    d.velocity = std::max({d.velocity, std::abs(v[0] + l * s * v[2]), std::abs(v[1] - l * c * v[2])});
    d.min_gap = std::min(d.min_gap, q[0] - pp.stop);
  }
  return d;
}

SchemeChoice choice(SchemeKind kind) {
  SchemeChoice c;
  c.kind = kind;
  c.h = 2e-3;
  c.theta = 1.0 / 1.8;
  c.rho_infinity = 0.8;
  return c;
}

}  // namespace

TEST_CASE("scheme names round-trip and unknown names are rejected", "[schemes][selection]") {
  for (SchemeKind k : {SchemeKind::MoreauJean, SchemeKind::Newmark, SchemeKind::Hht, SchemeKind::GeneralizedAlpha,
                       SchemeKind::SchatzmanPaoli})
    CHECK(parse_scheme_kind(to_string(k)) == k);
  CHECK_THROWS_AS(parse_scheme_kind("rk4"), std::invalid_argument);
  SchemeChoice bad = choice(SchemeKind::GeneralizedAlpha);
  bad.rho_infinity = 2.0;
  Model model = make_bouncing_pendulum();
  CHECK_THROWS_AS(make_integrator(model, bad), std::invalid_argument);
}

TEST_CASE("bouncing pendulum drift bounds per scheme (seed 004)", "[schemes][pendulum][drift]") {
  const Drift alpha = run(choice(SchemeKind::GeneralizedAlpha));
  const Drift sp = run(choice(SchemeKind::SchatzmanPaoli));
  const Drift newmark = run(choice(SchemeKind::Newmark));
  const Drift hht = run(choice(SchemeKind::Hht));
  const Drift moreau = run(choice(SchemeKind::MoreauJean));
  INFO("position / velocity drift: generalized-α " << alpha.position << " / " << alpha.velocity << ", SP "
       << sp.position << " / " << sp.velocity << ", Newmark " << newmark.position << " / " << newmark.velocity
       << ", HHT " << hht.position << " / " << hht.velocity << ", Moreau θ = 1/1.8 " << moreau.position << " / "
       << moreau.velocity);
  CHECK(alpha.position < 1e-12);
  CHECK(alpha.velocity < 1e-12);
  CHECK(alpha.min_gap > -1e-12);
  CHECK(sp.position < 1e-12);
  CHECK(newmark.velocity < 1e-10);
  CHECK(hht.velocity < 1e-10);
  CHECK(newmark.position < 1e-4);
  CHECK(hht.position < 1e-4);
  // Moreau–Jean enforces U = 0 only at t_{k+1} with positions from v_{k+θ}: it drifts at both levels.
  CHECK(moreau.position > 100 * alpha.position);
  CHECK(moreau.position < 5e-2);
}
