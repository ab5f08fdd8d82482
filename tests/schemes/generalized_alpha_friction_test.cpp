// Planar Coulomb friction in the nonsmooth generalized-α scheme (seed 004: the scheme with the friction-contact
// law on the impulsive, velocity-level part): a point mass on an inclined line against the closed-form motions
// of Coulomb's law — sliding with a = −g(sin α − μ cos α), sliding up to a stop at s* = v₀²/(2g(sin α + μ cos α))
// then sticking, sticking from rest (up to an O(h) creep) — with the gap kept at position level and friction
// never doing positive work.
#include <catch2/catch.hpp>

#include <cmath>

#include "engine/schemes/NonsmoothGeneralizedAlpha.hpp"
#include "engine/schemes/NonsmoothNewmark.hpp"

using namespace talus;

namespace {

constexpr double kG = 9.81, kAlpha = M_PI / 6, kMass = 2.0;

// Mass on the line through the origin at angle α; rows (normal, tangent up the slope).
Model slope(double mu, double v0) {
  const Eigen::Vector2d n(-std::sin(kAlpha), std::cos(kAlpha)), t(std::cos(kAlpha), std::sin(kAlpha));
  LagrangianLti s;
  s.name = "mass";
  s.M = SparseMatrix(2, 2);
  s.M.insert(0, 0) = kMass;
  s.M.insert(1, 1) = kMass;
  s.K = SparseMatrix(2, 2);
  s.C = SparseMatrix(2, 2);
  s.f_const = Vector::Zero(2);
  s.f_const[1] = -kMass * kG;
  s.q = Vector::Zero(2);
  s.v = v0 * t;
  LinearRelation rel;
  rel.C.resize(2, 2);
  rel.C.row(0) = n.transpose();
  rel.C.row(1) = t.transpose();
  rel.b = Vector::Zero(2);
  Interaction in;
  in.name = "slope";
  in.systems = {SystemRef{SystemFamily::Lti, 0}};
  in.relation = rel;
  in.law = NewtonImpactFrictionLaw{0.0, mu, 2};
  Model m;
  m.lti.push_back(std::move(s));
  m.interactions.push_back(std::move(in));
  return m;
}

struct Run {
  double s, ds, min_gap, max_work;
};

Run run(double mu, double v0, double horizon, double h = 1e-3) {
  Model m = slope(mu, v0);
  NonsmoothGeneralizedAlphaParameters p;
  p.h = h;
  NonsmoothGeneralizedAlpha scheme(m, p);
  const Eigen::Vector2d n(-std::sin(kAlpha), std::cos(kAlpha)), t(std::cos(kAlpha), std::sin(kAlpha));
  Run r{0, 0, 0, -1};
  for (long k = 0; k < std::lround(horizon / h); ++k) {
    const StepReport& rep = scheme.step();
    r.min_gap = std::min(r.min_gap, n.dot(m.lti[0].q));
    r.max_work = std::max(r.max_work, rep.energy.contact_work);
  }
  r.s = t.dot(m.lti[0].q);
  r.ds = t.dot(m.lti[0].v);
  return r;
}

}  // namespace

TEST_CASE("generalized-α with planar friction: sliding down a slope at a = −g(sin α − μ cos α)",
          "[schemes][friction]") {
  const double mu = 0.2, T = 1.0;
  const double a = -kG * (std::sin(kAlpha) - mu * std::cos(kAlpha));
  const Run r = run(mu, 0.0, T);
  INFO("s = " << r.s << " (exact " << 0.5 * a * T * T << "), v = " << r.ds << " (exact " << a * T << ")");
  CHECK(std::abs(r.s - 0.5 * a * T * T) < 5e-3);
  CHECK(std::abs(r.ds - a * T) < 1e-2);
  CHECK(r.min_gap > -1e-12);
  CHECK(r.max_work <= 1e-12);
  // First order through the persistent frictional contact: halving h halves the error.
  const Run fine = run(mu, 0.0, T, 5e-4);
  CHECK(std::abs(fine.s - 0.5 * a * T * T) < 0.6 * std::abs(r.s - 0.5 * a * T * T));
}

TEST_CASE("generalized-α with planar friction: sliding up, stopping at v₀²/(2g(sin α + μ cos α)), then sticking",
          "[schemes][friction]") {
  const double mu = 0.8, v0 = 2.0;  // μ > tan α = 0.577: the mass stays where it stops
  const double stop = v0 * v0 / (2 * kG * (std::sin(kAlpha) + mu * std::cos(kAlpha)));
  const Run r = run(mu, v0, 1.0);
  INFO("s = " << r.s << " (exact " << stop << "), v = " << r.ds);
  CHECK(std::abs(r.s - stop) < 5e-3);
  CHECK(std::abs(r.ds) < 1e-10);
  CHECK(r.max_work <= 1e-12);
  // At rest on the slope the velocity sticks exactly, but the position creeps by O(h): the position correction
  // is normal only (seed 004 eq 37), so the tangential part of the smooth displacement h²β a is not undone.
  const Run rest = run(mu, 0.0, 0.5), rest_fine = run(mu, 0.0, 0.5, 5e-4);
  INFO("creep " << rest.s << " at h = 1e-3, " << rest_fine.s << " at h = 5e-4");
  CHECK(std::abs(rest.ds) < 1e-12);
  CHECK(std::abs(rest.s) < 1e-3 * kG * 0.5);
  CHECK(std::abs(rest_fine.s) < 0.6 * std::abs(rest.s));
}

TEST_CASE("generalized-α refuses 3-D friction, Newmark refuses friction", "[schemes][friction]") {
  Model m = slope(0.3, 0.0);
  m.interactions[0].law = NewtonImpactFrictionLaw{0.0, 0.3, 3};
  m.interactions[0].relation = LinearRelation{Matrix::Identity(3, 2), Vector::Zero(3)};
  CHECK_THROWS_WITH(NonsmoothGeneralizedAlpha(m, {}), Catch::Contains("3-D friction"));
  Model planar = slope(0.3, 0.0);
  CHECK_THROWS_WITH(NonsmoothNewmark(planar, {}), Catch::Contains("use generalized-α (2-D friction)"));
}
