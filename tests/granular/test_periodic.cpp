// Periodic boundaries (issue 4 item 1; contact/Periodicity.hpp): a bead chain crossing the seam keeps the same
// contacts (same cache keys) and its momentum; a head-on collision across the seam exchanges the velocities
// (e = 1), which only happens if the contact's normal is the minimum-image one; a layer sliding down a rough
// incline, periodic in both horizontal directions, accelerates at g (sin θ − μ cos θ) (it slides rather than
// rolls because tan θ > 3.5 μ, see test_incline.cpp); the chute scene is periodic and keeps all its beads.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"

using namespace talus::granular;
using talus::Model;

namespace {

constexpr double kR = 0.01, kRho = 2500.0;

std::vector<talus::contact::ContactKey> sorted_keys(const GranularStepper& s) {
  std::vector<talus::contact::ContactKey> k = s.contact_keys();
  std::sort(k.begin(), k.end());
  return k;
}

}  // namespace

TEST_CASE("a rolling bead chain crosses the periodic seam with the same contacts and momentum") {
  Model m;
  m.gravity = Eigen::Vector3d(0.0, 0.0, -9.81);  // the granular scenes' gravity (Model's default is none)
  m.materials.law(talus::kBeadMaterial, talus::kBeadMaterial).mu = m.materials.law(talus::kBeadMaterial, talus::kWallMaterial).mu = 0.3;
  m.walls.push_back(talus::contact::Wall{});
  m.periodic.axis[0] = true;
  m.periodic.length = Eigen::Vector3d(12 * kR, 0, 0);
  const double v = 0.5;
  for (int k = 0; k < 6; ++k) {
    m.bodies.add_sphere(Eigen::Vector3d((2 * k + 1) * kR, 0.0, kR), kR, kRho, Eigen::Vector3d(v, 0, 0));
    m.bodies.w[k] = Eigen::Vector3d(0, v / kR, 0);  // rolling without slip: no friction needed
  }
  GranularParameters p;
  p.tolerance = 1e-10;
  GranularStepper s(m, p);
  s.step();
  const std::vector<talus::contact::ContactKey> keys = sorted_keys(s);
  CHECK(keys.size() == 12);  // 6 floor contacts and 6 chain contacts, one of them across the seam
  const int steps = 100;  // 0.2 s at 0.5 m/s: 10 cm, most beads cross the seam
  for (int k = 1; k < 2 * steps; ++k) {
    REQUIRE(s.step().solver.converged());
    REQUIRE(sorted_keys(s) == keys);
  }
  double px = 0.0;
  for (int i = 0; i < m.bodies.spheres(); ++i) {
    px += m.bodies.mass[i] * m.bodies.v[i].x();
    CHECK(m.bodies.x[i].x() >= 0.0);
    CHECK(m.bodies.x[i].x() < 12 * kR);
    CHECK(std::abs(m.bodies.x[i].z() - kR) <= 1e-9);
  }
  CHECK(px == Approx(6 * m.bodies.mass[0] * v).epsilon(1e-12));
  // Bead id 0 started at x = r and travelled v t = 0.1 m: it is at (r + 0.1) mod 0.12.
  const double expected = std::fmod(kR + v * 2 * steps * p.h, 12 * kR);
  for (int i = 0; i < m.bodies.spheres(); ++i)
    if (m.bodies.id[i] == 0) CHECK(m.bodies.x[i].x() == Approx(expected).epsilon(1e-9));
}

TEST_CASE("a head-on collision across the seam exchanges the velocities (e = 1)") {
  Model m;
  m.gravity = Eigen::Vector3d(0.0, 0.0, -9.81);  // the granular scenes' gravity (Model's default is none)
  m.gravity.setZero();
  m.materials.law(talus::kBeadMaterial, talus::kBeadMaterial).e = m.materials.law(talus::kBeadMaterial, talus::kWallMaterial).e = 1.0;
  m.materials.law(talus::kBeadMaterial, talus::kBeadMaterial).mu = 0.0;
  const double L = 10 * kR;
  m.periodic.axis[0] = true;
  m.periodic.length = Eigen::Vector3d(L, 0, 0);
  m.bodies.add_sphere(Eigen::Vector3d(L - 1.5 * kR, 0, 0), kR, kRho, Eigen::Vector3d(1.0, 0, 0));
  m.bodies.add_sphere(Eigen::Vector3d(0.6 * kR, 0, 0), kR, kRho);  // its image at L + 0.6 r is 0.1 r ahead
  GranularParameters p;
  p.tolerance = 1e-12;
  GranularStepper s(m, p);
  for (int k = 0; k < 10; ++k) REQUIRE(s.step().solver.converged());
  const int a = m.bodies.id[0] == 0 ? 0 : 1, b = 1 - a;
  CHECK(std::abs(m.bodies.v[a].x()) <= 1e-9);
  CHECK(m.bodies.v[b].x() == Approx(1.0).epsilon(1e-9));
  CHECK(m.bodies.v[a].norm() + std::abs(m.bodies.v[b].y()) + std::abs(m.bodies.v[b].z()) <= 1e-9);
}

TEST_CASE("a layer periodic in x and y slides down a rough incline at g (sin θ − μ cos θ)") {
  const double th = 30.0 * std::numbers::pi / 180.0, mu = 0.1, g = 9.81;  // tan θ = 0.58 > 3.5 μ
  Model m;
  m.gravity = g * Eigen::Vector3d(std::sin(th), 0.0, -std::cos(th));
  m.materials.law(talus::kBeadMaterial, talus::kBeadMaterial).mu = m.materials.law(talus::kBeadMaterial, talus::kWallMaterial).mu = mu;
  m.walls.push_back(talus::contact::Wall{});
  m.periodic.axis[0] = m.periodic.axis[1] = true;
  m.periodic.length = Eigen::Vector3d(12 * kR, 8 * kR, 0);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 4; ++j) m.bodies.add_sphere(Eigen::Vector3d((2 * i + 1) * kR, (2 * j + 1) * kR, kR), kR, kRho);
  GranularParameters p;
  p.tolerance = 1e-10;
  GranularStepper s(m, p);
  const int steps = 500;  // 0.5 s: about 4 periods travelled
  for (int k = 0; k < steps; ++k) {
    const GranularStepReport& r = s.step();
    REQUIRE(r.solver.converged());
    REQUIRE(r.contacts == 24 + 24 + 24);  // floor, and the x and y neighbours across both seams
  }
  const double t = steps * p.h, a = g * (std::sin(th) - mu * std::cos(th));
  for (int i = 0; i < m.bodies.spheres(); ++i) {
    CHECK(m.bodies.v[i].x() == Approx(a * t).epsilon(1e-6));
    CHECK(std::abs(m.bodies.v[i].y()) <= 1e-9);
    CHECK(m.bodies.w[i].y() == Approx(5.0 * mu * g * std::cos(th) / (2.0 * kR) * t).epsilon(1e-6));
    CHECK(m.bodies.x[i].y() >= 0.0);
    CHECK(m.bodies.x[i].y() < 8 * kR);
  }
}

TEST_CASE("a period shorter than three contact cells is refused") {
  Model m;
  m.gravity = Eigen::Vector3d(0.0, 0.0, -9.81);  // the granular scenes' gravity (Model's default is none)
  m.periodic.axis[0] = true;
  m.periodic.length = Eigen::Vector3d(5 * kR, 0, 0);
  m.bodies.add_sphere(Eigen::Vector3d(kR, 0, 0), kR, kRho);
  GranularStepper s(m, GranularParameters{});
  CHECK_THROWS_AS(s.step(), std::invalid_argument);
}

TEST_CASE("the chute scene is periodic in the flow direction and keeps every bead") {
  BeadSpec spec;
  spec.n = 27;
  GranularScene sc = chute(spec, 25.0, 20.0);
  REQUIRE(sc.model.periodic.axis[0]);
  CHECK(!std::isfinite(sc.events.remove_beyond_x));
  GranularParameters p;
  GranularStepper s(sc.model, p);
  double worst_pen = 0.0;
  for (int k = 0; k < 300; ++k) {
    const GranularStepReport& r = s.step();
    REQUIRE(r.solver.converged());
    worst_pen = std::max(worst_pen, r.max_penetration);
  }
  const double L = 20.0 * 2.0 * spec.radius;
  CHECK(sc.model.bodies.spheres() == 27);
  double vx = 0.0;
  for (int i = 0; i < sc.model.bodies.spheres(); ++i) {
    CHECK(sc.model.bodies.x[i].x() >= 0.0);
    CHECK(sc.model.bodies.x[i].x() < L);
    vx += sc.model.bodies.v[i].x() / 27;
  }
  CHECK(vx > 0.5);  // flowing down the slope (free fall along it would give 9.81 sin 25° × 0.3 = 1.24 m/s)
  CHECK(worst_pen <= 0.01 * spec.radius);
}

TEST_CASE("a capsule crossing the seam keeps its two floor contacts and hits a bead across it") {
  Model m;
  m.gravity = Eigen::Vector3d(0.0, 0.0, -9.81);  // the granular scenes' gravity (Model's default is none)
  m.materials.law(talus::kBeadMaterial, talus::kBeadMaterial).mu = m.materials.law(talus::kBeadMaterial, talus::kWallMaterial).mu = 0.0;
  m.walls.push_back(talus::contact::Wall{});
  const double L = 16 * kR;
  m.periodic.axis[0] = true;
  m.periodic.length = Eigen::Vector3d(L, 0, 0);
  // A capsule lying along y slides in +x towards the seam; a bead rests just across it.
  m.bodies.add_capsule(Eigen::Vector3d(L - 3 * kR, 0, kR), Eigen::Vector3d::UnitY(), 2 * kR, kR, kRho, Eigen::Vector3d(0.5, 0, 0));
  m.bodies.add_sphere(Eigen::Vector3d(1.5 * kR, 0, kR), kR, kRho);
  GranularParameters p;
  p.tolerance = 1e-12;
  GranularStepper s(m, p);
  const double p0 = m.bodies.mass[m.bodies.capsule(0)] * 0.5;
  for (int k = 0; k < 100; ++k) {
    REQUIRE(s.step().solver.converged());
    int floor = 0;
    for (const GeneralContact& c : s.general_contacts().contacts) floor += c.kind_a == BodyKind::Fixed;
    CHECK(floor == 2);
    const double px = m.bodies.mass[m.bodies.capsule(0)] * m.bodies.v[m.bodies.capsule(0)].x() + m.bodies.mass[0] * m.bodies.v[0].x();
    CHECK(px == Approx(p0).epsilon(1e-9));
  }
  // The gap of 2.5 r across the seam closes at 0.5 m/s after 50 ms; the plastic impact (e = 0) gives the common
  // speed m_c v / (m_c + m_b), with which the capsule's centre crosses the seam 20 ms later.
  const double common = p0 / (m.bodies.mass[m.bodies.capsule(0)] + m.bodies.mass[0]);
  CHECK(m.bodies.v[0].x() == Approx(common).epsilon(1e-6));
  CHECK(m.bodies.x[m.bodies.capsule(0)].x() < 2 * kR);  // wrapped
  CHECK(m.bodies.x[m.bodies.capsule(0)].x() >= 0.0);
  CHECK(m.bodies.x[0].x() > 1.5 * kR);
}
