// The small path's contact detection (engine/detection/SmallPathDetection.hpp) under Moreau–Jean and
// generalized-α: it reproduces the full N² list bit for bit (Newton's cradle), keeps a settling box of
// spheres at O(N) interactions without penetration, and lets a jointed, driven paddle push beads in one model
// (examples/paddle_beads.yaml).
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>

#include "apps/SceneError.hpp"
#include "apps/SceneLoader.hpp"
#include "engine/MoreauJean.hpp"
#include "engine/detection/SmallPathDetection.hpp"
#include "engine/schemes/NonsmoothGeneralizedAlpha.hpp"

#include "tests/SceneText.hpp"

using namespace talus;
using namespace talus::app;

namespace {

using test::read_text;
using test::replace_once;

enum class Scheme { MoreauJean, GeneralizedAlpha };

// Steps the scene's model with the chosen scheme, calling after(step) after each step.
void run(Scene& scene, Scheme scheme, long steps, const std::function<void(long)>& after = {}) {
  if (scheme == Scheme::MoreauJean) {
    MoreauJean mj(scene.model, scene.integrator);
    for (long k = 1; k <= steps; ++k) {
      mj.step();
      if (after) after(k);
    }
  } else {
    NonsmoothGeneralizedAlphaParameters p;
    p.h = scene.integrator.h;
    p.coefficients = generalized_alpha_coefficients(scene.scheme.rho_infinity);
    NonsmoothGeneralizedAlpha ga(scene.model, p);
    for (long k = 1; k <= steps; ++k) {
      ga.step();
      if (after) after(k);
    }
  }
}

const char* name(Scheme s) { return s == Scheme::MoreauJean ? "moreau_jean" : "generalized_alpha"; }

// Smallest gap over every sphere pair and sphere–plane pair of the model (computed here, not by detection).
double smallest_gap(const Model& m) {
  double g = INFINITY;
  const auto& s = m.detection.spheres;
  const RigidBodies& b = m.bodies;
  for (std::size_t i = 0; i < s.size(); ++i) {
    for (const ContactPlane& p : m.detection.planes)
      g = std::min(g, p.normal.dot(b.x[s[i]]) - p.offset - b.radius[s[i]]);
    for (std::size_t j = i + 1; j < s.size(); ++j)
      g = std::min(g, (b.x[s[j]] - b.x[s[i]]).norm() - b.radius[s[i]] - b.radius[s[j]]);
  }
  return g;
}

}  // namespace

TEST_CASE("Newton's cradle with detection is the cradle with the N² list, bit for bit", "[detection]") {
  const std::string full = read_text("examples/newtons_cradle.yaml");
  // margin: 0 leaves only the 2 h max|v| the forecast can close in one step, which must be enough.
  for (const char* margin : {"", "\n  margin: 0"})
    for (Scheme scheme : {Scheme::MoreauJean, Scheme::GeneralizedAlpha}) {
      INFO(name(scheme) << (*margin ? " with margin 0" : ""));
      const std::string detected =
          replace_once(full, "sphere_sphere: true", std::string("detect: true") + margin);
      Scene a = load_scene_from_string(full, "newtons_cradle.yaml");
      Scene b = load_scene_from_string(detected, "newtons_cradle.yaml");
      REQUIRE(a.model.interactions.size() == 10);
      REQUIRE(b.model.interactions.empty());
      REQUIRE(b.model.detection.enabled);
      const long steps = std::lround(a.t_end / a.integrator.h);
      std::size_t most = 0;
      run(b, scheme, steps, [&](long) { most = std::max(most, b.model.interactions.size()); });
      run(a, scheme, steps);
      // Only neighbours are ever close: at most the 4 neighbour pairs are listed, never the 10.
      CHECK(most <= 4);
      CHECK(most >= 1);
      for (int k = 0; k < 5; ++k) {
        INFO("sphere " << k);
        CHECK(a.model.bodies.x[k] == b.model.bodies.x[k]);
        CHECK(a.model.bodies.v[k] == b.model.bodies.v[k]);
      }
      // The cradle did its job: the last sphere leaves at 1 m/s.
      CHECK(b.model.bodies.v[4].x() == Approx(1.0).margin(1e-9));
      CHECK(std::abs(b.model.bodies.v[0].x()) < 1e-9);
    }
}

namespace {

// n spheres of radius r, on a jittered lattice above the floor of the box [0, L]² (four walls and a floor),
// falling under gravity; frictionless, e = 0.
std::string box_scene(int per_side, int layers, double r, double L, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> jitter(-0.1 * r, 0.1 * r);
  std::ostringstream s;
  s.precision(17);
  s << "name: box\ngravity: [0, 0, -9.81]\nspheres:\n";
  const double pitch = L / per_side;
  int id = 0;
  for (int k = 0; k < layers; ++k)
    for (int j = 0; j < per_side; ++j)
      for (int i = 0; i < per_side; ++i)
        s << "  - {name: s" << id++ << ", position: [" << (i + 0.5) * pitch + jitter(gen) << ", "
          << (j + 0.5) * pitch + jitter(gen) << ", " << r + 0.001 + k * 2.4 * r + jitter(gen)
          << "], radius: " << r << ", density: 2500}\n";
  s << "planes:\n"
       "  - {name: floor, normal: [0, 0, 1], offset: 0}\n"
       "  - {name: x0, normal: [1, 0, 0], offset: 0}\n"
       "  - {name: x1, normal: [-1, 0, 0], offset: "
    << -L
    << "}\n"
       "  - {name: y0, normal: [0, 1, 0], offset: 0}\n"
       "  - {name: y1, normal: [0, -1, 0], offset: "
    << -L
    << "}\n"
       "contacts: {law: {type: newton, e: 0.0}, detect: true}\n"
       "integrator: {h: 1.0e-3, t_end: 1.0}\n";
  return s.str();
}

}  // namespace

TEST_CASE("a box of 64 spheres settles with O(N) detected contacts and no penetration", "[detection]") {
  const double r = 0.01;
  // Moreau–Jean: four layers of 16 spheres in a 0.1 m box, which pile up. Generalized-α: one layer of 64 in a
  // 0.2 m box. In the 0.1 m box (exactly five diameters) its position-level problem is feasible only to
  // round-off (a wall-to-wall row of spheres is a self-stressed set of contacts; docs/schemes.md "Stacked
  // packings"), and it fails from ~0.18 s on; the test below stacks four layers in a 0.105 m box.
  const std::string piled = box_scene(4, 4, r, 0.1, 7), layer = box_scene(8, 1, r, 0.2, 7);
  for (Scheme scheme : {Scheme::MoreauJean, Scheme::GeneralizedAlpha}) {
    INFO(name(scheme));
    Scene scene = load_scene_from_string(scheme == Scheme::MoreauJean ? piled : layer, "box.yaml");
    // Projected Gauss–Seidel: Lemke's pivoting meets degenerate rays on the pile's redundant contacts.
    scene.integrator.solver = OneStepSolverKind::Psor;
    scene.integrator.solver_tolerance = 1e-10;
    scene.integrator.solver_max_iterations = 100000;
    const int n = scene.model.bodies.count();
    REQUIRE(n == 64);
    // The fastest impact: at most the speed of a fall from the highest centre.
    double top = 0.0;
    const std::vector<Eigen::Vector3d> x0 = scene.model.bodies.x;
    for (int i = 0; i < n; ++i) top = std::max(top, x0[i].z());
    const double v_impact = std::sqrt(2.0 * 9.81 * top), h = scene.integrator.h;
    double worst = INFINITY;
    std::size_t most = 0;
    const long steps = 1500;
    run(scene, scheme, steps, [&](long) {
      worst = std::min(worst, smallest_gap(scene.model));
      most = std::max(most, scene.model.interactions.size());
    });
    const double kinetic = kinetic_energy(scene.model.bodies), at_rest = smallest_gap(scene.model);
    double fall = 0.0;  // the energy released: the loss of potential energy
    for (int i = 0; i < n; ++i)
      fall += scene.model.bodies.mass[i] * 9.81 * (x0[i].z() - scene.model.bodies.x[i].z());
    REQUIRE(fall > 0.0);
    WARN(name(scheme) << ": most interactions " << most << " (N² list: " << n * (n - 1) / 2 + 5 * n
                      << "), worst gap " << worst << " m (bound " << -0.5 * h * v_impact << "), at rest "
                      << at_rest << " m, final kinetic energy " << kinetic << " J of " << fall
                      << " J released");
    // Moreau–Jean (θ = ½) lets an impact at velocity v in by at most (1 − θ) h v before the contact holds;
    // generalized-α holds gaps at position level.
    CHECK(worst > (scheme == Scheme::MoreauJean ? -0.5 * h * v_impact : -1e-9));
    CHECK(at_rest >= worst);                         // nothing sinks further once at rest
    CHECK(kinetic < 1e-6 * fall);                    // at rest
    CHECK(most <= static_cast<std::size_t>(8 * n));  // O(N): a few neighbours and walls per sphere
  }
}

TEST_CASE("a driven paddle on a revolute joint pushes a bed of beads in one model", "[detection][joints]") {
  const std::string mj_text = read_text("examples/paddle_beads.yaml");
  const std::string ga_text = replace_once(mj_text, "  scheme: moreau_jean", "  scheme: generalized_alpha");
  for (Scheme scheme : {Scheme::MoreauJean, Scheme::GeneralizedAlpha}) {
    INFO(name(scheme));
    Scene scene =
        load_scene_from_string(scheme == Scheme::MoreauJean ? mj_text : ga_text, "paddle_beads.yaml");
    REQUIRE(scene.scheme.kind ==
            (scheme == Scheme::MoreauJean ? SchemeKind::MoreauJean : SchemeKind::GeneralizedAlpha));
    Model& m = scene.model;
    REQUIRE(scene.body_names[0] == "paddle");
    const int n = m.bodies.count();
    std::vector<Eigen::Vector3d> x0(m.bodies.x);
    const Eigen::Vector3d anchor(0.0, 0.0, 0.03);
    const double R = 0.1, omega = 2.0, h = scene.integrator.h;
    double joint_error = 0.0, angle_error = 0.0;
    std::size_t most = 0;
    run(scene, scheme, std::lround(1.5 / h), [&](long k) {
      const Eigen::Vector3d d = m.bodies.x[0] - anchor;
      joint_error = std::max({joint_error, std::abs(d.z()), std::abs(d.norm() - R)});
      const double t = k * h;
      angle_error = std::max(angle_error,
                             (d - R * Eigen::Vector3d(std::cos(omega * t), std::sin(omega * t), 0.0)).norm());
      most = std::max(most, m.interactions.size());
    });
    int pushed = 0;
    double farthest = 0.0;
    for (int i = 1; i < n; ++i) {
      const double moved = (m.bodies.x[i] - x0[i]).norm();
      farthest = std::max(farthest, moved);
      if (moved > 0.01) ++pushed;
    }
    WARN(name(scheme) << ": " << pushed << " of " << n - 1 << " beads moved more than 1 cm (farthest "
                      << farthest << " m); joint gap " << joint_error << " m, paddle off its driven path by "
                      << angle_error << " m; at most " << most << " interactions");
    CHECK(pushed >= 5);
    CHECK(joint_error < 1e-9);
    CHECK(angle_error < 1e-9);
    CHECK(most < static_cast<std::size_t>(2 + 8 * n));
  }
}

TEST_CASE("persisting detected pairs keep their outputs, new ones start from zero", "[detection]") {
  Scene scene = load_scene_from_string(read_text("examples/paddle_beads.yaml"), "paddle_beads.yaml");
  Model& m = scene.model;
  SmallPathDetection ws;
  const double h = 1e-3;
  // Each detected interaction is marked with a code of its bodies (and −1 for the floor).
  const auto code = [](const Interaction& in) {
    return 1000.0 * static_cast<double>(in.systems[0].index) +
           (in.systems.size() == 2 ? static_cast<double>(in.systems[1].index) : -1.0);
  };
  REQUIRE(detect_contacts(m, ws, h));
  const std::size_t first = m.listed_interactions();
  REQUIRE(first == 2);
  const std::size_t n0 = m.interactions.size() - first;
  CHECK(n0 == 24);  // the beads on the floor; no bead touches another or the paddle yet
  for (std::size_t i = first; i < m.interactions.size(); ++i) {
    CHECK(m.interactions[i].impulse.size() == 1);
    CHECK(m.interactions[i].impulse[0] == 0.0);
    m.interactions[i].impulse[0] = code(m.interactions[i]);
  }
  CHECK_FALSE(detect_contacts(m, ws, h));  // nothing moved: the same list
  // Bead 3 lifted off the floor: its floor contact goes, the others keep their marks.
  const Eigen::Vector3d x3 = m.bodies.x[3];
  m.bodies.x[3].z() += 0.05;
  CHECK(detect_contacts(m, ws, h));
  CHECK(m.interactions.size() - first == n0 - 1);
  for (std::size_t i = first; i < m.interactions.size(); ++i) {
    CHECK(m.interactions[i].systems[0].index != 3);
    CHECK(m.interactions[i].impulse[0] == code(m.interactions[i]));
  }
  // Put back, it is a new contact: zero outputs (as an inactive pair of the full list), the others kept.
  m.bodies.x[3] = x3;
  CHECK(detect_contacts(m, ws, h));
  CHECK(m.interactions.size() - first == n0);
  for (std::size_t i = first; i < m.interactions.size(); ++i) {
    const Interaction& in = m.interactions[i];
    CHECK(in.impulse[0] == (in.systems[0].index == 3 ? 0.0 : code(in)));
  }
  // A second workspace on the same model (an integrator built again) finds the same pairs and keeps them.
  SmallPathDetection again;
  CHECK_FALSE(detect_contacts(m, again, h));
  for (std::size_t i = first; i < m.interactions.size(); ++i) {
    const Interaction& in = m.interactions[i];
    CHECK(in.impulse[0] == (in.systems[0].index == 3 ? 0.0 : code(in)));
  }
  // The detected list is in the loader's order: sphere–plane pairs by body.
  for (std::size_t i = first + 1; i < m.interactions.size(); ++i)
    CHECK(m.interactions[i - 1].systems[0].index < m.interactions[i].systems[0].index);
}

TEST_CASE("contacts: detect is read with its margin and refused where it cannot run", "[detection][scene]") {
  const std::string text = read_text("examples/paddle_beads.yaml");
  const Scene scene = load_scene_from_string(
      replace_once(text, "detect: true", "detect: true\n  margin: 0.002"), "paddle_beads.yaml");
  CHECK(scene.model.detection.margin == 0.002);
  CHECK(scene.model.detection.spheres.size() == 25);
  CHECK(scene.model.detection.planes.size() == 1);
  const auto error_of = [](const std::string& t) -> std::string {
    try {
      load_scene_from_string(t, "paddle_beads.yaml");
    } catch (const SceneError& e) {
      return e.what();
    }
    return "(accepted)";
  };
  const std::string both =
      error_of(replace_once(text, "detect: true", "detect: true\n  sphere_sphere: true"));
  CHECK(both.find("paddle_beads.yaml:") == 0);
  CHECK(both.find("together with detect") != std::string::npos);
  const std::string margin = error_of(replace_once(text, "detect: true", "detect: false\n  margin: 0.1"));
  CHECK(margin.find("only read with detect: true") != std::string::npos);
  const std::string ed = error_of(replace_once(text, "  scheme: moreau_jean", "  scheme: event_driven"));
  CHECK(ed.find("event_driven") != std::string::npos);
  CHECK(ed.find("detect") != std::string::npos);
}

TEST_CASE("a co-rotational beam shares the paddle's model with the detected beads", "[detection][beams]") {
  // The beam is planar (x–y) and has no contact relation with spheres: it only shares the model and the step.
  const std::string text = read_text("examples/paddle_beads.yaml");
  const std::string beam = replace_once(
      text, "planes:\n",
      "corotational_beams:\n"
      "  - {name: arm, length: 0.3, elements: 6, EA: 1.0e4, EI: 2.0, rho_A: 1.0, hinge: [0.5, 0.0],\n"
      "     angular_velocity: 4.0}\n"
      "planes:\n");
  for (Scheme scheme : {Scheme::MoreauJean, Scheme::GeneralizedAlpha}) {
    INFO(name(scheme));
    const auto with_scheme = [&](const std::string& t) {
      return scheme == Scheme::MoreauJean
                 ? t
                 : replace_once(t, "  scheme: moreau_jean", "  scheme: generalized_alpha");
    };
    Scene a = load_scene_from_string(with_scheme(text), "paddle_beads.yaml");
    Scene b = load_scene_from_string(with_scheme(beam), "paddle_beads.yaml");
    REQUIRE(b.model.nonlinear.size() == 1);
    run(a, scheme, 800);
    run(b, scheme, 800);
    double diff = 0.0;
    for (int i = 0; i < a.model.bodies.count(); ++i)
      diff = std::max(diff, (a.model.bodies.x[i] - b.model.bodies.x[i]).norm());
    const double turned = b.model.nonlinear[0].q[0];  // θ₀ at the hinge
    WARN(name(scheme) << ": beads and paddle differ by " << diff << " m with the beam; the beam turned "
                      << turned << " rad");
    // Moreau–Jean steps the rigid bodies apart from the beam's Newton loop: the same bits. Generalized-α
    // iterates the whole system to its Newton tolerance: the same to that tolerance.
    CHECK(diff <= (scheme == Scheme::MoreauJean ? 0.0 : 1e-9));
    CHECK(turned == Approx(4.0 * 0.8).epsilon(0.01));
  }
}


TEST_CASE("a four-layer box of spheres settles under generalized-α as under Moreau–Jean", "[detection][stacked]") {
  // 64 spheres in four layers of 16, frictionless, e = 0, in a 0.105 m box (5.25 diameters: no row of spheres
  // fits wall to wall exactly; docs/schemes.md "Stacked packings" says why an exact fit is still a limit). The
  // position-level problem of generalized-α is then a singular positive semidefinite LCP (218 contact rows on
  // 192 translations at 0.16 s): Lemke alone ended on an ill-conditioned basis at step 563; the dual active-set
  // method solves it (with Lemke after it when it fails, which the report would say).
  const double r = 0.01, L = 0.105, g = 9.81;
  const std::string text = box_scene(4, 4, r, L, 7);
  const long steps = 400;
  std::vector<double> heights[2];
  for (Scheme scheme : {Scheme::GeneralizedAlpha, Scheme::MoreauJean}) {
    INFO(name(scheme));
    Scene scene = load_scene_from_string(text, "box.yaml");
    const RigidBodies& b = scene.model.bodies;
    const int n = b.count();
    REQUIRE(n == 64);
    const auto mechanical = [&] {
      double e = kinetic_energy(b);
      for (int i = 0; i < n; ++i) e += b.mass[i] * g * b.x[i].z();
      return e;
    };
    const double e0 = mechanical();
    double worst_gap = INFINITY, most_energy = -INFINITY, most_contact_work = -INFINITY;
    long rescued = 0;
    if (scheme == Scheme::GeneralizedAlpha) {
      NonsmoothGeneralizedAlphaParameters p;
      p.h = scene.integrator.h;
      p.coefficients = generalized_alpha_coefficients(scene.scheme.rho_infinity);
      NonsmoothGeneralizedAlpha ga(scene.model, p);
      for (long k = 1; k <= steps; ++k) {
        const StepReport& report = ga.step();  // a failed solve throws StepFailure, naming the step and contacts
        rescued += !report.solver.message.empty();
        worst_gap = std::min(worst_gap, smallest_gap(scene.model));
        most_energy = std::max(most_energy, mechanical() - e0);
        most_contact_work = std::max(most_contact_work, report.energy.contact_work);
      }
    } else {
      scene.integrator.solver = OneStepSolverKind::Psor;
      scene.integrator.solver_tolerance = 1e-10;
      scene.integrator.solver_max_iterations = 100000;
      run(scene, scheme, steps, [&](long) { worst_gap = std::min(worst_gap, smallest_gap(scene.model)); });
    }
    double fall = 0.0;
    for (int i = 0; i < n; ++i) heights[scheme == Scheme::MoreauJean].push_back(b.x[i].z());
    const double kinetic = kinetic_energy(b);
    fall = e0 - mechanical();
    WARN(name(scheme) << ": worst gap " << worst_gap << " m, final kinetic energy " << kinetic << " J of " << fall
                      << " J released; most mechanical energy above the start " << most_energy
                      << " J, most contact work in a step " << most_contact_work << " J, steps solved by Lemke after "
                      << "the active-set method " << rescued);
    CHECK(rescued < steps / 10);  // the active-set method solves the step's problem in most steps
    // Nearly settled at 0.4 s (400 steps keep the test near a minute; the degenerate position problems begin at
    // 0.16 s): both keep well under 3 % of the released energy (measured 0.3 % for Moreau–Jean; at 1 s it is at
    // rest, 1e-19 J, while generalized-α keeps 1.4 % in frictionless spheres still sliding in the pile: its impacts
    // with e = 0 dissipate, its smooth part does not).
    CHECK(kinetic < 0.03 * fall);
    if (scheme == Scheme::GeneralizedAlpha) {
      CHECK(worst_gap > -1e-9);             // gaps held at position level
      CHECK(most_energy <= 1e-12 * fall);   // the step never creates energy
      CHECK(most_contact_work <= 1e-12 * fall);  // nor does any impact (e = 0)
    }
  }
  // The same layers. Sorted heights, averaged over each layer of 16, agree with Moreau–Jean's to 0.15 r (measured
  // at 0.4 s: 5e-5, 9.1e-4, 4.8e-4, 1.14e-3 m; Moreau–Jean's floor layer sits 5e-5 m into the floor).
  for (auto& h : heights) std::sort(h.begin(), h.end());
  for (int layer = 0; layer < 4; ++layer) {
    double ga = 0.0, mj = 0.0;
    for (int i = 16 * layer; i < 16 * (layer + 1); ++i) {
      ga += heights[0][i] / 16.0;
      mj += heights[1][i] / 16.0;
    }
    WARN("layer " << layer << ": mean height " << ga << " m (generalized-α), " << mj << " m (Moreau–Jean)");
    CHECK(std::abs(ga - mj) < 0.15 * r);
  }
}

TEST_CASE("an unsolved friction step names the contacts where its residual is left, with their bodies and places",
          "[detection]") {
  // Twelve touching beads (spacing 2 r) on the floor with 3-D friction, and an NSGS budget of 2 sweeps: the first
  // step cannot reach 1e-12. The message must point at contacts, not only list "'detected'" interactions.
  const std::string text = R"(name: unsolved
gravity: [0.0, 0.0, -9.81]
lattices:
  - {name: c, corner: [0.0, 0.0, 0.0], counts: [2, 2, 3], radius: 0.01, density: 2500, spacing: 2.0}
planes:
  - {name: floor, normal: [0.0, 0.0, 1.0], offset: 0.0}
contacts:
  law: {type: newton_friction, e: 0.0, mu: 0.3, dim: 3}
  detect: true
integrator: {scheme: moreau_jean, h: 1.0e-3, t_end: 0.01, theta: 1.0, max_iterations: 2}
)";
  Scene scene = load_scene_from_string(text, "unsolved.yaml");
  MoreauJean scheme(scene.model, scene.integrator);
  std::string message;
  try {
    for (int k = 0; k < 10; ++k) scheme.step();
  } catch (const StepFailure& e) {
    message = e.what();
  }
  INFO(message);
  REQUIRE_THAT(message, Catch::Contains("largest contact residuals: "));
  // Each named contact says which body (by its index in the store) and where, and what it touches.
  CHECK_THAT(message, Catch::Contains("'detected' (body "));
  CHECK_THAT(message, Catch::Contains(") with the plane n = (0, 0, 1), offset 0)") ||
                          Catch::Contains(") with body "));
}
