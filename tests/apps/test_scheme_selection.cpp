// A scene file picks its time-stepping scheme (issue 5: "each scheme is selectable from a scene file"). The
// two-ball oscillator with elastic impacts (e = 1) has an exactly constant energy E − W_ext, so what a scheme
// loses is numerical: generalized-α (ρ∞ = 0.8) must keep it, Moreau–Jean θ = 1 must visibly damp it — the
// comparison of seed 000 (slides 66–71) — so a wiring that silently ran the wrong scheme fails here.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "apps/SceneError.hpp"
#include "apps/SceneLoader.hpp"
#include "engine/MoreauJean.hpp"
#include "engine/schemes/SchemeSelection.hpp"

using namespace talus;
using namespace talus::app;

namespace {

const std::filesystem::path kScene =
    std::filesystem::path(TALUS_SOURCE_DIR) / "examples" / "two_ball_oscillator.yaml";

// Relative change of E − W_ext over the scene's horizon.
double relative_energy_change(Scene& scene) {
  const long steps = static_cast<long>(scene.t_end / scene.integrator.h + 0.5);
  double work = 0.0, e0 = 0.0, e = 0.0;
  auto account = [&](const StepReport& r, long k) {
    work += r.energy.external_work;
    e = r.energy.total() - work;
    if (k == 0) e0 = r.energy.total() - r.energy.external_work;
  };
  if (scene.scheme.kind == SchemeKind::MoreauJean) {
    MoreauJean mj(scene.model, scene.integrator);
    for (long k = 0; k < steps; ++k) account(mj.step(), k);
  } else {
    const std::unique_ptr<Integrator> it = make_integrator(scene.model, scene.scheme);
    for (long k = 0; k < steps; ++k) account(it->step(scene.model), k);
  }
  return (e - e0) / e0;
}

}  // namespace

TEST_CASE("scene files select the scheme: generalized-alpha keeps the two-ball energy, Moreau-Jean damps it",
          "[apps][schemes]") {
  Scene ga = load_scene(kScene);
  REQUIRE(ga.scheme.kind == SchemeKind::GeneralizedAlpha);
  CHECK(ga.scheme.rho_infinity == 0.8);
  CHECK(ga.scheme.h == ga.integrator.h);
  const double loss_ga = relative_energy_change(ga);
  CHECK(std::abs(loss_ga) < 5e-3);

  Scene mj = load_scene(kScene);
  mj.scheme.kind = SchemeKind::MoreauJean;
  mj.integrator.theta = 1.0;
  const double loss_mj = relative_energy_change(mj);
  // E includes the spring's large preload energy ½qᵀKq, so relative losses look small: θ = 1 loses ~2 %,
  // generalized-α ~0.2 %.
  CHECK(loss_mj < -0.01);
  CHECK(loss_mj < 5.0 * loss_ga);
}

TEST_CASE("an unknown scheme name is refused with the field named", "[apps][schemes]") {
  const std::string text =
      "lti_systems:\n  - {name: m, M: [[1.0]], q0: [1.0], v0: [0.0]}\n"
      "integrator: {scheme: verlet, h: 1.0e-3, t_end: 1.0}\n";
  try {
    load_scene_from_string(text, "bad.yaml");
    FAIL("the scene was accepted");
  } catch (const SceneError& e) {
    const std::string m = e.what();
    CHECK(m.find("bad.yaml:3:") == 0);
    CHECK(m.find("integrator.scheme") != std::string::npos);
    CHECK(m.find("generalized_alpha") != std::string::npos);
  }
}
