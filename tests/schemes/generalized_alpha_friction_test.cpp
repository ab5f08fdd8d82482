// Planar Coulomb friction in the nonsmooth generalized-α scheme (seed 004 eqs 34–42, with the friction-contact
// law on the velocity jump AND on the position correction): a point mass on an inclined line against the
// closed-form motions of Coulomb's law.
//
// On paper (M = m I, K = C = 0, gravity g: the smooth acceleration is the constant g and a_n = g for every ρ∞),
// a step moves the mass along the slope by d_T = h v_n − ½h² g sin α + ν_T/m with |ν_T| ≤ μ ν_N and
// ν_N/m = ½h² g cos α (the normal correction that keeps the gap at 0), and its velocity by
// h(−g sin α) + Λ_T/m. So:
// - from rest with tan α ≤ μ, d_T = 0 and v = 0 exactly: no creep (before the position-level friction the
//   correction was normal only and the mass crept by ½h T g sin α: 2.45e−3 m over 1 s at h = 1e−3);
// - sliding, d_T = h v_n + ½h² a and Δv = h a with a = −g(sin α − μ cos α): the constant-acceleration motion,
//   exact at the steps for every h;
// - sliding up with v_n < h a' (a' = g(sin α + μ cos α)) the last step moves max(h v_n − ½h² a', 0) where the
//   exact motion stops after v_n²/(2a'): the stop is within a' h²/8 of s* = v₀²/(2a'), then d_T = 0;
// - each step's ΔE − W_gravity is −μ m g cos α |d_T| while sliding (friction never does positive work) and
//   −½m(v_n − h a')² at the stop.
#include <catch2/catch.hpp>

#include <cmath>

#include "engine/PlanarBlock.hpp"
#include "engine/schemes/NonsmoothGeneralizedAlpha.hpp"
#include "engine/schemes/NonsmoothNewmark.hpp"

using namespace talus;

namespace {

constexpr double kG = 9.81, kAlpha = M_PI / 6, kMass = 2.0;
const Eigen::Vector2d kNormal(-std::sin(kAlpha), std::cos(kAlpha)), kTangent(std::cos(kAlpha), std::sin(kAlpha));

// Mass on the line through the origin at angle α, starting at s0 along it with velocity v0; rows (normal, tangent
// up the slope). A spring of stiffness k along the slope pulls it towards the origin when k > 0.
Model slope(double mu, double v0, double s0 = 0.0, double k = 0.0) {
  LagrangianLti s;
  s.name = "mass";
  s.M = SparseMatrix(2, 2);
  s.M.insert(0, 0) = kMass;
  s.M.insert(1, 1) = kMass;
  s.K = SparseMatrix(2, 2);
  if (k > 0.0) s.K = (k * kTangent * kTangent.transpose()).sparseView();
  s.C = SparseMatrix(2, 2);
  s.f_const = Vector::Zero(2);
  s.f_const[1] = -kMass * kG;
  s.q = s0 * kTangent;
  s.v = v0 * kTangent;
  LinearRelation rel;
  rel.C.resize(2, 2);
  rel.C.row(0) = kNormal.transpose();
  rel.C.row(1) = kTangent.transpose();
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
  double s = 0, ds = 0, min_gap = 0;
  double max_contact_work = -1;  // largest velocity-jump work of a step
  double max_remainder = -1;     // largest ΔE − W_ext of a step (contact work + position correction + algorithmic)
  double remainder = 0;          // Σ (ΔE − W_ext)
  double s_half = 0;             // s at half the horizon
};

Run run(double mu, double v0, double horizon, double h = 1e-3, double rho = 0.8, double s0 = 0.0, double k = 0.0) {
  Model m = slope(mu, v0, s0, k);
  NonsmoothGeneralizedAlphaParameters p;
  p.h = h;
  p.coefficients = generalized_alpha_coefficients(rho);
  NonsmoothGeneralizedAlpha scheme(m, p);
  Run r;
  const long steps = std::lround(horizon / h);
  for (long i = 0; i < steps; ++i) {
    const StepReport& rep = scheme.step();
    r.min_gap = std::min(r.min_gap, kNormal.dot(m.lti[0].q));
    r.max_contact_work = std::max(r.max_contact_work, rep.energy.contact_work);
    const double rest = rep.energy.contact_work + rep.energy.numerical_dissipation;
    r.max_remainder = std::max(r.max_remainder, rest);
    r.remainder += rest;
    if (i + 1 == steps / 2) r.s_half = kTangent.dot(m.lti[0].q);
  }
  r.s = kTangent.dot(m.lti[0].q);
  r.ds = kTangent.dot(m.lti[0].v);
  return r;
}

}  // namespace

TEST_CASE("generalized-α with planar friction: sticking from rest below tan α = μ does not creep",
          "[schemes][friction]") {
  // Every ρ∞ and step, and μ just above tan α = 0.5774: |s| ≤ 1e−15 m over 1 s (round-off: ≤ 1e−19 measured).
  // Without the position-level friction the creep was ½h T g sin α: 2.45e−3 m at h = 1e−3, 2.45e−2 m at 1e−2.
  for (const double rho : {0.0, 0.5, 0.8, 1.0})
    for (const double h : {1e-2, 1e-3})
      for (const double mu : {0.8, std::tan(kAlpha) + 1e-6}) {
        const Run r = run(mu, 0.0, 1.0, h, rho);
        INFO("ρ∞ = " << rho << ", h = " << h << ", μ = " << mu << ": s = " << r.s << ", v = " << r.ds);
        CHECK(std::abs(r.s) <= 1e-15);  // measured ≤ 1e−19
        CHECK(std::abs(r.ds) <= 1e-15);
        CHECK(r.min_gap > -1e-12);
        CHECK(r.max_remainder <= 1e-12);
      }
  // Just below tan α the same mass slides, at the small a = −g(sin α − μ cos α) (the law is not simply frozen).
  const double mu = std::tan(kAlpha) - 1e-3, a = -kG * (std::sin(kAlpha) - mu * std::cos(kAlpha));
  const Run slide = run(mu, 0.0, 1.0);
  CHECK(slide.s == Approx(0.5 * a).epsilon(1e-9));
}

TEST_CASE("generalized-α with planar friction: a spring-loaded mass held by friction stays put",
          "[schemes][friction]") {
  // A spring (k = 100 N/m) along the slope with its frictionless equilibrium at s = −m g sin α / k = −0.098 m; at
  // s₀ = 0.03 m spring and gravity pull 12.8 N down the slope against μ m g cos α = 13.6 N: static. The stiffness
  // couples the position correction to the smooth acceleration (−K U), which the position-level rows take along.
  const double k = 100.0, s0 = 0.03;
  const Run r = run(0.8, 0.0, 1.0, 1e-3, 0.8, s0, k);
  INFO("s = " << r.s << ", v = " << r.ds);
  CHECK(std::abs(r.s - s0) <= 1e-12);
  CHECK(std::abs(r.ds) <= 1e-12);
  // At s₀ = 0.05 m (14.8 N > 13.6 N) it slides down: half a period of m s̈ = −k(s − s₊) about the upper edge
  // s₊ = −m g (sin α − μ cos α)/k = 0.0378 m of the band of rest positions, so it stops at 2s₊ − s₀ = 0.0257 m
  // (2.6e−8 m off at h = 1e−3) and stays there. Before the position-level friction it stopped at 0.0209 m.
  const Run slides = run(0.8, 0.0, 2.0, 1e-3, 0.8, 0.05, k);
  const double eq = -kMass * kG * std::sin(kAlpha) / k, band = 0.8 * kMass * kG * std::cos(kAlpha) / k;
  INFO("s − exact stop = " << slides.s - (2 * (eq + band) - 0.05) << ", s(2) − s(1) = " << slides.s - slides.s_half);
  CHECK(std::abs(slides.s - (2 * (eq + band) - 0.05)) <= 1e-6);
  CHECK(std::abs(slides.s - eq) <= band + 1e-12);
  CHECK(std::abs(slides.s - slides.s_half) <= 1e-12);
  CHECK(slides.max_remainder <= 1e-12);
}

TEST_CASE("generalized-α with planar friction: sliding down a slope at a = −g(sin α − μ cos α)",
          "[schemes][friction]") {
  const double mu = 0.2, T = 1.0;
  const double a = -kG * (std::sin(kAlpha) - mu * std::cos(kAlpha));
  // The constant-acceleration motion is exact at the steps, for every step (the velocity jump carries Λ_T = μΛ_N
  // and the position correction ν_T = μν_N: before the latter the position was off by ½h T μ g cos α, 8.5e−4 m).
  for (const double h : {1e-2, 1e-3}) {
    const Run r = run(mu, 0.0, T, h);
    INFO("h = " << h << ": s − exact = " << r.s - 0.5 * a * T * T << ", v − exact = " << r.ds - a * T
                << ", Σ(ΔE − W) + μ m g cos α |s| = "
                << r.remainder + mu * kMass * kG * std::cos(kAlpha) * std::abs(r.s));
    CHECK(std::abs(r.s - 0.5 * a * T * T) < 1e-12);
    CHECK(std::abs(r.ds - a * T) < 1e-12);
    CHECK(r.min_gap > -1e-12);
    CHECK(r.max_contact_work <= 1e-12);
    // Friction never does positive work: every step's ΔE − W_gravity ≤ 0, and in all it is Coulomb's −μ m g cos α |s|.
    CHECK(r.max_remainder <= 1e-12);
    CHECK(r.remainder == Approx(-mu * kMass * kG * std::cos(kAlpha) * std::abs(r.s)).epsilon(1e-10));
  }
}

TEST_CASE("generalized-α with planar friction: sliding up, stopping at v₀²/(2g(sin α + μ cos α)), then sticking",
          "[schemes][friction]") {
  const double mu = 0.8, v0 = 2.0;  // μ > tan α = 0.577: the mass stays where it stops (at t = 0.17 s)
  const double decel = kG * (std::sin(kAlpha) + mu * std::cos(kAlpha)), stop = v0 * v0 / (2 * decel);
  for (const double h : {1e-2, 1e-3}) {
    const Run r = run(mu, v0, 1.0, h);
    INFO("h = " << h << ": s − s* = " << r.s - stop << " (a' h²/8 = " << decel * h * h / 8 << "), s(1) − s(0.5) = "
                << r.s - r.s_half << ", v = " << r.ds);
    // The stop: within a' h²/8 (the step in which the exact motion stops, see the top of the file); measured
    // 4.0e−8 m at h = 1e−3 and 4.9e−6 m at 1e−2 (1.5e−3 m at 1e−3 before the position-level friction).
    CHECK(std::abs(r.s - stop) <= decel * h * h / 8 + 1e-12);
    CHECK(std::abs(r.ds) < 1e-12);
    // No creep after it (before: ½h g sin α per second, 1.2e−3 m over these 0.5 s at h = 1e−3).
    CHECK(std::abs(r.s - r.s_half) <= 1e-12);
    CHECK(r.min_gap > -1e-12);
    CHECK(r.max_contact_work <= 1e-12);
    CHECK(r.max_remainder <= 1e-12);
    // Coulomb's dissipation over the path, plus the inelastic stop (≤ ½m(h a')², the last step's ½m(v_n − h a')²).
    const double coulomb = -mu * kMass * kG * std::cos(kAlpha) * r.s;
    CHECK(r.remainder <= coulomb + 1e-12);
    CHECK(r.remainder >= coulomb - 0.5 * kMass * decel * decel * h * h - 1e-12);
  }
}

TEST_CASE("generalized-α with planar friction: a restart through the stop is bitwise", "[schemes][friction]") {
  // The position-level friction reads only q_n (in the model): a scheme rebuilt at t = 0.15 s (sliding) and given
  // a_n and ṽ̇_n back takes the same steps as the uninterrupted one through the stop at 0.17 s.
  NonsmoothGeneralizedAlphaParameters p;
  Model straight = slope(0.8, 2.0), restarted = slope(0.8, 2.0);
  NonsmoothGeneralizedAlpha a(straight, p), first(restarted, p);
  for (int i = 0; i < 300; ++i) a.step();
  for (int i = 0; i < 150; ++i) first.step();
  NonsmoothGeneralizedAlpha second(restarted, p);
  second.restore_accelerations(first.acceleration(), first.smooth_acceleration());
  for (int i = 0; i < 150; ++i) second.step();
  CHECK(restarted.time == straight.time);
  CHECK((restarted.lti[0].q.array() == straight.lti[0].q.array()).all());
  CHECK((restarted.lti[0].v.array() == straight.lti[0].v.array()).all());
  CHECK((second.acceleration().array() == a.acceleration().array()).all());
}

TEST_CASE("generalized-α with planar friction: the rocking block's pivot holds while it tips over",
          "[schemes][friction]") {
  // examples/rocking_block.yaml (seed 002): released on corner A at 60°, μ = 0.5, e = 0; it rotates about A held by
  // friction until its second corner strikes the ground near t = 0.95 s. The corner rows are nonlinear in q, so the
  // slip d_T is taken with J_T at the midpoint of the step (NonsmoothGeneralizedAlpha.cpp): A moves by 3.8e−8 m up to
  // t = 0.9 s at h = 1e−3. With J_T at q_{n+1} it moved 1.5e−4 m, with no position-level friction 1.7e−3 m.
  PlanarBlock b;
  b.name = "block";
  b.q0 = Eigen::Vector3d(0.5 * std::cos(M_PI / 3) - 0.25 * std::sin(M_PI / 3),
                         0.5 * std::sin(M_PI / 3) + 0.25 * std::cos(M_PI / 3), M_PI / 3);
  Model m;
  add_planar_block(m, b, NewtonImpactFrictionLaw{0.0, 0.5, 2});
  NonsmoothGeneralizedAlphaParameters p;
  NonsmoothGeneralizedAlpha scheme(m, p);
  const auto corner_a = [&m] {
    const Vector& q = m.nonlinear[0].q;
    return Eigen::Vector2d(q[0] - 0.5 * std::cos(q[2]) + 0.25 * std::sin(q[2]),
                           q[1] - 0.5 * std::sin(q[2]) - 0.25 * std::cos(q[2]));
  };
  double slip = 0.0;
  for (int i = 0; i < 900; ++i) {
    scheme.step();
    slip = std::max(slip, std::abs(corner_a().x()));
  }
  INFO("corner A slipped by " << slip << " m, θ(0.9) = " << m.nonlinear[0].q[2]);
  CHECK(slip <= 1e-6);
  CHECK(std::abs(corner_a().y()) <= 1e-12);
  CHECK(m.nonlinear[0].q[2] < 0.5);  // it did tip over (θ: 60° → 19°)
  // It lands flat and then rests: no creep between t = 1.5 s and 2 s.
  for (int i = 900; i < 1500; ++i) scheme.step();
  const Vector rest = m.nonlinear[0].q;
  for (int i = 1500; i < 2000; ++i) scheme.step();
  CHECK(std::abs(rest[1] - 0.25) <= 1e-12);
  CHECK((m.nonlinear[0].q - rest).lpNorm<Eigen::Infinity>() <= 1e-12);
}

TEST_CASE("generalized-α refuses a mix of friction dims, Newmark refuses friction", "[schemes][friction]") {
  // 3-D friction is accepted (generalized_alpha_friction3d_test.cpp); one friction-contact problem has one dim.
  Model m = slope(0.3, 0.0);
  Interaction spatial = m.interactions[0];
  spatial.name = "spatial";
  spatial.law = NewtonImpactFrictionLaw{0.0, 0.3, 3};
  spatial.relation = LinearRelation{Matrix::Identity(3, 2), Vector::Zero(3)};
  m.interactions.push_back(spatial);
  CHECK_THROWS_WITH(NonsmoothGeneralizedAlpha(m, {}), Catch::Contains("'spatial' has friction dim 3"));
  Model planar = slope(0.3, 0.0);
  CHECK_THROWS_WITH(NonsmoothNewmark(planar, {}), Catch::Contains("use generalized-α or Moreau–Jean"));
}
