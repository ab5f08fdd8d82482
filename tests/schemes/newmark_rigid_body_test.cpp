// Nonsmooth Newmark and HHT with rigid bodies (issue 11: "Newmark/HHT refuse every rigid body"): the positions are
// advanced on the Lie group, q_{k+1} = q_k ∘ exp(Δ) with Δ = h v_k + ½h² a_{k+2β} + ½h Δv^con in velocity
// coordinates, as generalized-α does, and the small path's detection stage runs before each step. Checked
// against Euler's equations of a torque-free symmetric top (second order in h), Newton's cradle (the listed pairs
// and the detected ones, bit for bit; the momentum handed down the row), and a sphere dropped on a floor
// (Newton's law at the impact, the rebound height e² h₀).
#include <catch2/catch.hpp>

#include <cmath>

#include "apps/SceneError.hpp"
#include "apps/SceneLoader.hpp"
#include "engine/Model.hpp"
#include "engine/schemes/NonsmoothNewmark.hpp"
#include "tests/SceneText.hpp"

using namespace talus;
using namespace talus::app;

namespace {

NonsmoothNewmarkParameters scheme_parameters(double h, double alpha) {
  if (alpha > 0.0) return hht_parameters(h, alpha);
  NonsmoothNewmarkParameters p;
  p.h = h;  // γ = ½, β = ¼: the trapezoidal rule
  return p;
}

// A torque-free symmetric top (I₁ = I₂ ≠ I₃) spinning about a tilted axis: in the body frame, ω₃ stays and
// (ω₁, ω₂) turns at Ω = (I₃ − I₁) ω₃ / I₁ (Euler's equations). Returns the largest error of the body-frame ω over
// T = 1 s and the drift of the world angular momentum, relative to their sizes.
struct TopError {
  double omega = 0.0, momentum = 0.0;
};

TopError spin_top(double h, double alpha) {
  const double I1 = 0.02, I3 = 0.05, w_perp = 1.5, w3 = 6.0;
  Model m;
  m.bodies.add_general(Eigen::Vector3d::Zero(), Eigen::Quaterniond::Identity(), 2.0, Eigen::Vector3d(I1, I1, I3), 0.3);
  m.bodies.w[0] = Eigen::Vector3d(w_perp, 0.0, w3);  // world frame = body frame at the start
  const Eigen::Vector3d L0 = Eigen::Vector3d(I1 * w_perp, 0.0, I3 * w3);
  NonsmoothNewmark scheme(m, scheme_parameters(h, alpha));
  const double Omega = (I3 - I1) / I1 * w3;
  TopError e;
  const long steps = std::lround(1.0 / h);
  for (long k = 1; k <= steps; ++k) {
    scheme.step();
    const double t = k * h;
    const Eigen::Matrix3d R = m.bodies.q[0].toRotationMatrix();
    const Eigen::Vector3d wb = R.transpose() * m.bodies.w[0];
    const Eigen::Vector3d exact(w_perp * std::cos(Omega * t), w_perp * std::sin(Omega * t), w3);
    e.omega = std::max(e.omega, (wb - exact).norm() / exact.norm());
    const Eigen::Vector3d L = R * Eigen::Vector3d(I1 * wb.x(), I1 * wb.y(), I3 * wb.z());
    e.momentum = std::max(e.momentum, (L - L0).norm() / L0.norm());
  }
  return e;
}

}  // namespace

TEST_CASE("Newmark and HHT step a torque-free symmetric top as Euler's equations say, to second order in h",
          "[schemes][newmark][bodies]") {
  for (const double alpha : {0.0, 0.1}) {
    const TopError coarse = spin_top(2e-3, alpha), fine = spin_top(1e-3, alpha);
    INFO((alpha > 0 ? "HHT" : "Newmark") << ": body-frame ω error " << coarse.omega << " at h = 2e-3, " << fine.omega
                                         << " at h = 1e-3; angular momentum drift " << coarse.momentum << ", "
                                         << fine.momentum);
    CHECK(fine.omega < 5e-5);
    // Second order: halving h divides the error by about four.
    CHECK(coarse.omega / fine.omega > 3.5);
    CHECK(coarse.omega / fine.omega < 4.5);
    CHECK(fine.momentum < 1e-6);
  }
}

TEST_CASE("Newton's cradle under Newmark and HHT: the detected pairs give the listed ones' steps bit for bit",
          "[schemes][newmark][bodies][detection]") {
  const std::string full = test::read_text("examples/newtons_cradle.yaml");
  for (const char* scheme : {"newmark", "hht"}) {
    INFO(scheme);
    const std::string listed = test::replace_once(full, "integrator:\n  h: 1.0e-4\n  theta: 0.5\n  solver: lemke\n",
                                                  std::string("integrator:\n  scheme: ") + scheme + "\n  h: 1.0e-4\n");
    const std::string detected = test::replace_once(listed, "sphere_sphere: true", "detect: true");
    Scene a = load_scene_from_string(listed, "newtons_cradle.yaml");
    Scene b = load_scene_from_string(detected, "newtons_cradle.yaml");
    REQUIRE(a.model.interactions.size() == 10);
    REQUIRE(b.model.interactions.empty());
    const NonsmoothNewmarkParameters p = scheme_parameters(a.integrator.h, std::string(scheme) == "hht" ? 0.1 : 0.0);
    NonsmoothNewmark sa(a.model, p), sb(b.model, p);
    const long steps = std::lround(a.t_end / a.integrator.h);
    for (long k = 0; k < steps; ++k) sa.step(), sb.step();
    for (int k = 0; k < 5; ++k) {
      INFO("sphere " << k);
      CHECK(a.model.bodies.x[k] == b.model.bodies.x[k]);
      CHECK(a.model.bodies.v[k] == b.model.bodies.v[k]);
    }
    // e = 1: the first sphere's velocity is handed down the row; the last leaves at 1 m/s, the others stay.
    CHECK(b.model.bodies.v[4].x() == Approx(1.0).margin(1e-9));
    for (int k = 0; k < 4; ++k) CHECK(std::abs(b.model.bodies.v[k].x()) < 1e-9);
  }
}

TEST_CASE("a sphere dropped on a floor under HHT rebounds at −e v and rises to e² h₀", "[schemes][newmark][bodies]") {
  const double h0 = 0.2, r = 0.05, e = 0.8, h = 1e-4;
  const std::string text = "gravity: [0, 0, -9.81]\n"
                           "spheres:\n  - {name: ball, position: [0, 0, " +
                           std::to_string(h0 + r) +
                           "], radius: 0.05, density: 2500}\n"
                           "planes:\n  - {name: floor, normal: [0, 0, 1], offset: 0}\n"
                           "contacts: {law: {type: newton, e: 0.8}, detect: true}\n"
                           "integrator: {scheme: hht, hht_alpha: 0.1, h: 1.0e-4, t_end: 0.5}\n";
  Scene s = load_scene_from_string(text, "drop.yaml");
  NonsmoothNewmark scheme(s.model, scheme_parameters(h, 0.1));
  const RigidBodies& b = s.model.bodies;
  double v_before = 0.0, v_after = 0.0, apex = 0.0, lowest = INFINITY;
  bool bounced = false;
  for (long k = 0; k < std::lround(0.5 / h); ++k) {
    const double v0 = b.v[0].z();
    scheme.step();
    lowest = std::min(lowest, b.x[0].z() - r);
    if (!bounced && b.v[0].z() > 0.0) bounced = true, v_before = v0, v_after = b.v[0].z();
    if (bounced) apex = std::max(apex, b.x[0].z() - r);
  }
  INFO("impact " << v_before << " -> " << v_after << " m/s, apex " << apex << " m, lowest gap " << lowest);
  REQUIRE(bounced);
  CHECK(v_before == Approx(-std::sqrt(2 * 9.81 * h0)).epsilon(2e-3));
  // Newton's law at velocity level: U⁺ = −e U⁻ with U⁻ the step's pre-impact velocity.
  CHECK(v_after == Approx(-e * v_before).epsilon(1e-9));
  CHECK(apex == Approx(e * e * h0).epsilon(2e-3));
  // The velocity-level law leaves the contact point within O(h |v|) of the floor, on either side.
  CHECK(std::abs(lowest) < 2.0 * h * std::abs(v_before));
}

TEST_CASE("Schatzman–Paoli still refuses rigid bodies, naming the scheme and the body", "[schemes][bodies]") {
  const std::string text = "spheres:\n  - {name: ball, position: [0, 0, 1], radius: 0.1, mass: 1.0}\n"
                           "integrator: {scheme: schatzman_paoli, h: 1.0e-3, t_end: 1.0}\n";
  CHECK_THROWS_WITH(load_scene_from_string(text, "bad.yaml"),
                    Catch::Contains("integrator.scheme") && Catch::Contains("'ball' is a rigid body") &&
                        Catch::Contains("newmark, hht"));
  for (const char* scheme : {"newmark", "hht"}) {
    std::string ok = text;
    ok.replace(ok.find("schatzman_paoli"), 15, scheme);
    CHECK_NOTHROW(load_scene_from_string(ok, "good.yaml"));
  }
}
