// The driven paddle and the bead bed (examples/paddle_beads.yaml) with Coulomb friction, μ = 0.3, under
// nonsmooth generalized-α (issue 11): joints, a rheonomous driver and a few dozen frictional contacts found by
// the detection stage meet in one step problem, the friction-contact form with equality blocks
// (NonsmoothGeneralizedAlpha.hpp, solvers/fc/MixedNsgs.hpp). Before it the scheme refused 3-D friction, and
// with planar friction Lemke ended on a secondary ray of the LCP form at step 240.
//
// Checked: the run completes its 2 s; no penetration beyond a stated bound (generalized-α holds gaps at
// position level, so the bound is the Newton and friction-solve tolerance, not h v); the paddle stays on its
// driven path; and the driver's torque (its impulse over h: the driver row's gradient is the unit axis z, so
// Jᵀ P is a torque P/h about z) pushes, positive on average while the paddle touches beads — it supplies the
// work that friction and the inelastic impacts take.
//
// The scene is loaded with its own scheme (moreau_jean) and stepped here by generalized-α: the scene loader's
// scheme check is not part of what is tested.
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "apps/SceneLoader.hpp"
#include "engine/schemes/NonsmoothGeneralizedAlpha.hpp"

#include "tests/SceneText.hpp"

using namespace talus;
using namespace talus::app;

namespace {

using test::read_text;
using test::replace_once;

// Smallest gap over every sphere pair and sphere–floor pair (computed here, not by the detection stage).
double smallest_gap(const Model& m) {
  const RigidBodies& b = m.bodies;
  double g = INFINITY;
  for (int i = 0; i < b.count(); ++i) {
    g = std::min(g, b.x[i].z() - b.radius[i]);
    for (int j = i + 1; j < b.count(); ++j)
      g = std::min(g, (b.x[i] - b.x[j]).norm() - b.radius[i] - b.radius[j]);
  }
  return g;
}

}  // namespace

TEST_CASE("generalized-α runs the driven paddle through a bead bed with Coulomb friction for 2 s",
          "[joints][friction][detection]") {
  // 3-D friction. (Planar friction, dim 2, on this 3-D scene leaves each contact's second tangent frictionless;
  // its step problem has velocity solutions far apart for nearly equal data, and the Newton loop does not settle
  // at t ≈ 0.25 s: docs/schemes.md, Limits.)
  for (const int dim : {3}) {
    INFO("friction dim " << dim);
    const std::string text =
        replace_once(read_text("examples/paddle_beads.yaml"), "  law: {type: newton, e: 0.0}",
                     "  law: {type: newton_friction, e: 0.0, mu: 0.3, dim: " + std::to_string(dim) + "}");
    Scene scene = load_scene_from_string(text, "paddle_beads.yaml");
    Model& m = scene.model;
    REQUIRE(scene.body_names[0] == "paddle");
    REQUIRE(m.interactions[1].name == "drive");
    NonsmoothGeneralizedAlphaParameters p;
    p.h = scene.integrator.h;
    p.coefficients = generalized_alpha_coefficients(scene.scheme.rho_infinity);
    NonsmoothGeneralizedAlpha ga(m, p);
    const std::vector<Eigen::Vector3d> x0(m.bodies.x);
    const Eigen::Vector3d anchor(0.0, 0.0, 0.03);
    const double R = 0.1, omega = 2.0, h = p.h;
    const long steps = std::lround(2.0 / h);
    double worst_gap = INFINITY, path_error = 0.0, torque_pushing = 0.0, most_friction = 0.0;
    long pushing = 0, newton = 0, sweeps = 0;
    const auto start = std::chrono::steady_clock::now();
    for (long k = 1; k <= steps; ++k) {
      const StepReport& rep = ga.step();
      newton += rep.newton_iterations;
      sweeps += rep.solver.iterations;
      worst_gap = std::min(worst_gap, smallest_gap(m));
      const Eigen::Vector3d d = m.bodies.x[0] - anchor;
      path_error = std::max(path_error, (d - R * Eigen::Vector3d(std::cos(omega * k * h), std::sin(omega * k * h),
                                                                 0.0)).norm());
      // Steps where the paddle (body 0) presses a bead: a detected contact on it with a normal impulse.
      bool touching = false;
      for (const Interaction& in : m.interactions)
        if (in.systems.size() == 2 && (in.systems[0].index == 0 || in.systems[1].index == 0) &&
            std::holds_alternative<NewtonImpactFrictionLaw>(in.law) && in.impulse.size() > 0 && in.impulse[0] > 0.0) {
          touching = true;
          double t2 = 0.0;
          for (Index r = 1; r < in.impulse.size(); ++r) t2 += in.impulse[r] * in.impulse[r];
          most_friction = std::max(most_friction, std::sqrt(t2) / in.impulse[0]);
        }
      if (touching) {
        ++pushing;
        torque_pushing += m.interactions[1].impulse[0] / h;
      }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    int moved = 0;
    for (int i = 1; i < m.bodies.count(); ++i)
      if ((m.bodies.x[i] - x0[i]).norm() > 0.01) ++moved;
    std::printf("paddle_beads, generalized-α, friction dim %d, μ = 0.3: %.2f s of CPU-bound run, %ld steps, %.2f "
                "Newton iterations and %.1f NSGS sweeps per step; smallest gap %.2e m; paddle off its path by "
                "%.1e m; %d beads moved > 1 cm; pushing in %ld steps, mean driver torque there %.3e N m; largest "
                "|P_T|/P_N on the paddle %.4f\n",
                dim, seconds, steps, double(newton) / steps, double(sweeps) / steps, worst_gap, path_error, moved,
                pushing, pushing ? torque_pushing / pushing : 0.0, most_friction);
    CHECK(m.time == Approx(2.0));
    CHECK(worst_gap > -1e-8);
    CHECK(path_error < 1e-9);
    CHECK(moved >= 5);
    REQUIRE(pushing > 100);
    CHECK(torque_pushing / pushing > 0.0);
    CHECK(most_friction <= 0.3 * (1.0 + 1e-9));
  }
}
