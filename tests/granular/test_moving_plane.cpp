// Moving planes (issue 4 item 1; contact/Shapes.hpp Wall::speed, amplitude, frequency): the wall's velocity is
// part of the contacts' relative velocity, so a bead resting on a floor that rises at constant speed is carried
// with it, and a floor shaken as A sin(2π f t) throws a resting bead off exactly when its downward acceleration
// exceeds g, i.e. when A (2π f)² > g, at the phase sin(2π f t₀) = g / (A (2π f)²); below that it never does.
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>

#include "engine/granular/GranularStepper.hpp"

using namespace talus::granular;
using talus::Model;

namespace {

constexpr double kR = 0.01, kRho = 2500.0, kG = 9.81;

// Normal impulse of the bead's floor contact in the last step (0 when there was none).
double floor_impulse(const GranularStepper& s) {
  for (const SweepContact& c : s.contacts())
    if (c.a < 0) return c.r[0];
  return 0.0;
}

struct Shaken {
  double first_free_time = -1.0;  // start of the first step without a floor reaction after contact was made
  double max_gap = 0.0;
};

Shaken shake(double amplitude, double frequency, double h, int steps) {
  Model m;
  m.gravity = Eigen::Vector3d(0.0, 0.0, -9.81);  // the granular scenes' gravity (Model's default is none)
  talus::contact::Wall floor;
  floor.amplitude = amplitude, floor.frequency = frequency;
  m.walls.push_back(floor);
  m.bodies.add_sphere(Eigen::Vector3d(0, 0, kR), kR, kRho);
  GranularParameters p;
  p.h = h;
  p.tolerance = 1e-12;
  GranularStepper s(m, p);
  Shaken out;
  for (int k = 0; k < steps; ++k) {
    const double t = m.time;
    REQUIRE(s.step().solver.converged());
    if (out.first_free_time < 0 && k > 0 && floor_impulse(s) == 0.0) out.first_free_time = t;
    out.max_gap = std::max(out.max_gap, m.bodies.x[0].z() - kR - floor.displacement(m.time));
  }
  return out;
}

}  // namespace

TEST_CASE("a bead on a floor rising at constant speed moves with it") {
  Model m;
  m.gravity = Eigen::Vector3d(0.0, 0.0, -9.81);  // the granular scenes' gravity (Model's default is none)
  talus::contact::Wall floor;
  floor.speed = 0.2;
  m.walls.push_back(floor);
  m.bodies.add_sphere(Eigen::Vector3d(0, 0, kR), kR, kRho);
  GranularParameters p;
  p.tolerance = 1e-12;
  GranularStepper s(m, p);
  for (int k = 0; k < 300; ++k) {
    REQUIRE(s.step().solver.converged());
    // Carried from the first step on: a per-step impulse m (g h + speed) then m g h.
    CHECK(m.bodies.v[0].z() == Approx(0.2).epsilon(1e-9));
    CHECK(floor_impulse(s) == Approx(m.bodies.mass[0] * (kG * p.h + (k == 0 ? 0.2 : 0.0))).epsilon(1e-9));
  }
  CHECK(m.bodies.x[0].z() == Approx(kR + 0.2 * m.time).epsilon(1e-9));
}

TEST_CASE("a descending piston floor lets the bead fall with it but never through it") {
  Model m;
  m.gravity = Eigen::Vector3d(0.0, 0.0, -9.81);  // the granular scenes' gravity (Model's default is none)
  talus::contact::Wall floor;
  floor.speed = -0.05;  // slower than the bead's free fall after 5 ms
  m.walls.push_back(floor);
  m.bodies.add_sphere(Eigen::Vector3d(0, 0, kR), kR, kRho);
  GranularParameters p;
  p.tolerance = 1e-12;
  GranularStepper s(m, p);
  for (int k = 0; k < 200; ++k) {
    REQUIRE(s.step().solver.converged());
    CHECK(m.bodies.x[0].z() - kR - floor.displacement(m.time) >= -1e-12);
  }
  CHECK(m.bodies.v[0].z() == Approx(-0.05).epsilon(1e-9));
}

TEST_CASE("a floor shaken with A (2π f)² > g throws the bead off at the predicted phase") {
  const double A = 1e-3, f = 20.0, w = 2.0 * std::numbers::pi * f, h = 1e-5;
  REQUIRE(A * w * w > kG);
  const double t0 = std::asin(kG / (A * w * w)) / w;
  const Shaken s = shake(A, f, h, static_cast<int>(1.5 * t0 / h));
  INFO("predicted lift-off " << t0 << " s, first free step " << s.first_free_time << " s");
  CHECK(std::abs(s.first_free_time - t0) <= 3.0 * h);
}

TEST_CASE("a floor shaken with A (2π f)² < g never throws the bead off") {
  const double A = 0.5e-3, f = 20.0, w = 2.0 * std::numbers::pi * f;
  REQUIRE(A * w * w < kG);
  const Shaken s = shake(A, f, 1e-4, static_cast<int>(2.0 / f / 1e-4));
  CHECK(s.first_free_time < 0.0);
  CHECK(s.max_gap <= 1e-9);
}
