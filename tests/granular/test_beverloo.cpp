// Beverloo's law (issue 4 physics list): the mass discharge rate of a flat-bottom silo through a circular
// orifice of diameter D is W = C ρ_b √g (D − k d)^{5/2}, independent of the fill height once it exceeds the
// orifice size (C ≈ 0.58, k ≈ 1.5 for glass beads of diameter d).
//
// Small-N version, sized for the test suite: a square silo of side 28 r (14 d) holding 1210 beads, the beads that
// leave through the orifice re-injected above the free surface so that the head stays constant and the flow
// reaches a steady state whatever the orifice (the usual device of discrete-element Beverloo studies). The
// rate is counted over a window after the start-up transient, for three orifices, and fitted with k = 1.5:
// the exponent must be 5/2 within the scatter such small counts allow, and C of the order of Beverloo's.
// The orifices are 4, 5 and 6 bead diameters. The first version used 3.5, 4.25 and 5: at 3.5 d the flow is
// intermittent (arches form and break; 3.5 d is near the clogging regime of 3-D silos), so its count carried the
// fit, and the exponent moved from 2.19 to 1.95 when only the sweep's rounding changed (2026-12-07: two sweep
// blocks instead of one). Measured with the present orifices under three roundings (1, 2 and 4 sweep blocks):
// exponent 2.39, 2.26, 2.42, C = 0.54–0.56 (e.g. 58, 129, 236 beads in the 0.4 s window).
// scripts/beverloo.py runs the check on examples/silo.yaml at larger N (no re-injection, quasi-steady part).
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "engine/granular/GranularStepper.hpp"

using namespace talus::granular;
using talus::Model;

namespace {

constexpr double kRadius = 0.01, kDensity = 2500.0, kG = 9.81;

struct Discharge {
  double beads_per_second = 0.0;
  long counted = 0;
  int worst_sweeps = 0;
  bool all_converged = true;
};

Discharge discharge(double orifice_diameters, double t_transient, double t_window) {
  Model m;
  m.gravity = Eigen::Vector3d(0.0, 0.0, -9.81);  // the granular scenes' gravity (Model's default is none)
  const double r = kRadius, side = 28.0 * r, pitch = side / 11.0, layer_pitch = 2.4 * r;
  const int per_row = 11, layers = 10;
  m.materials.law(talus::kBeadMaterial, talus::kBeadMaterial).mu = m.materials.law(talus::kBeadMaterial, talus::kWallMaterial).mu = 0.3;
  m.walls = talus::contact::box_walls(Eigen::Vector3d::Zero(), Eigen::Vector3d(side, side, 1.0));
  m.walls[0].hole_centre = Eigen::Vector3d(0.5 * side, 0.5 * side, 0.0);
  m.walls[0].hole_radius = orifice_diameters * r;
  std::mt19937_64 gen(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int l = 0; l < layers; ++l)
    for (int i = 0; i < per_row; ++i)
      for (int j = 0; j < per_row; ++j)
        m.bodies.add_sphere(Eigen::Vector3d((i + 0.5) * pitch + 0.1 * r * u(gen), (j + 0.5) * pitch + 0.1 * r * u(gen),
                                    (l + 0.5) * layer_pitch),
                    r * (1.0 + 0.05 * u(gen)), kDensity);
  GranularParameters p;
  p.h = 1e-3;
  GranularStepper stepper(m, p);
  Discharge out;
  const int transient = static_cast<int>(std::lround(t_transient / p.h));
  const int total = transient + static_cast<int>(std::lround(t_window / p.h));
  for (int k = 0; k < total; ++k) {
    const GranularStepReport& rep = stepper.step();
    out.all_converged = out.all_converged && rep.solver.converged();
    out.worst_sweeps = std::max(out.worst_sweeps, rep.solver.iterations);
    // Re-inject the beads 4 r below the floor 3 r above the highest bead, at rest, at a random free spot.
    double top = 0.0;
    for (const auto& x : m.bodies.x) top = std::max(top, x.z());
    for (int i = 0; i < m.bodies.spheres(); ++i) {
      if (m.bodies.x[i].z() > -4.0 * r) continue;
      if (k >= transient) ++out.counted;
      for (int attempt = 0;; ++attempt) {
        const Eigen::Vector3d x(0.5 * side + (0.5 * side - 1.2 * r) * u(gen), 0.5 * side + (0.5 * side - 1.2 * r) * u(gen),
                                top + (3.0 + 0.5 * (attempt / 20)) * r);
        bool free = true;
        for (int j = 0; j < m.bodies.spheres() && free; ++j)
          free = j == i || (m.bodies.x[j] - x).norm() > m.bodies.radius[j] + m.bodies.radius[i] + 0.2 * r;
        if (free) {
          m.bodies.x[i] = x, m.bodies.v[i].setZero(), m.bodies.w[i].setZero();
          break;
        }
      }
    }
  }
  out.beads_per_second = out.counted / t_window;
  return out;
}

}  // namespace

TEST_CASE("Beverloo: the discharge rate of a silo grows like (D - 1.5 d)^(5/2)") {
  const double d = 2.0 * kRadius, mass = kDensity * 4.0 / 3.0 * M_PI * std::pow(kRadius, 3);
  const std::vector<double> orifices = {4.0, 5.0, 6.0};  // D / d
  std::vector<double> lx, ly;
  double c_sum = 0.0;
  for (double D : orifices) {
    const Discharge q = discharge(D, 0.25, 0.4);
    INFO("D = " << D << " d: " << q.counted << " beads in the window, " << q.beads_per_second
                << " beads/s, worst sweeps " << q.worst_sweeps);
    REQUIRE(q.all_converged);
    REQUIRE(q.counted >= 10);
    const double w = q.beads_per_second * mass;  // kg/s
    lx.push_back(std::log((D - 1.5) * d));
    ly.push_back(std::log(w));
    // C of W = C ρ_b √g (D − k d)^{5/2} with ρ_b = 0.6 ρ (random packing).
    c_sum += w / (0.6 * kDensity * std::sqrt(kG) * std::pow((D - 1.5) * d, 2.5));
  }
  const double mx = (lx[0] + lx[1] + lx[2]) / 3.0, my = (ly[0] + ly[1] + ly[2]) / 3.0;
  double sxy = 0.0, sxx = 0.0;
  for (int k = 0; k < 3; ++k) sxy += (lx[k] - mx) * (ly[k] - my), sxx += (lx[k] - mx) * (lx[k] - mx);
  const double exponent = sxy / sxx, c_mean = c_sum / 3.0;
  INFO("fitted exponent " << exponent << " (Beverloo: 2.5), mean C " << c_mean << " (Beverloo: about 0.58)");
  CHECK(exponent == Approx(2.5).margin(0.5));
  CHECK(c_mean >= 0.3);
  CHECK(c_mean <= 1.0);
}
