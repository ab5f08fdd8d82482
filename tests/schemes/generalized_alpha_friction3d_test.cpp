// 3-D Coulomb friction in the nonsmooth generalized-α scheme (seed 004 eqs 34–42, the friction-contact form of
// the step's problem: NonsmoothGeneralizedAlpha.hpp), against the closed-form motions of Coulomb's law on an
// incline of angle θ:
// - a point mass (a Lagrangian system) on an incline whose slope runs at 40° to the contact frame's tangents, so
//   that the cone is exercised in 3-D and not along one of its axes: from rest it stays put for tan θ < μ (no
//   creep: the position-level friction) and slides straight down the slope at a = g(sin θ − μ cos θ) for
//   tan θ > μ, with no sideways drift;
// - a solid sphere (rigid body, I = 2/5 m r²) on a tilted plane: for tan θ ≤ 7/2 μ the friction needed for
//   rolling, 2/7 m g sin θ, is inside the cone and it rolls without slipping at a = 5/7 g sin θ; above, it slips
//   with a = g(sin θ − μ cos θ) while the friction spins it up at ω̇ = 5 μ g cos θ / (2r).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include "engine/schemes/NonsmoothGeneralizedAlpha.hpp"

using namespace talus;

namespace {

constexpr double kG = 9.81, kMass = 2.0, kRadius = 0.1;

// Orthonormal frame of an incline of angle θ: normal n, downhill direction d (the projection of −z), and the
// contact tangents t1, t2 turned by 40° from (d, n × d) about n.
struct Incline {
  Eigen::Vector3d n, d, t1, t2;
  explicit Incline(double theta) {
    n = Eigen::Vector3d(-std::sin(theta), 0.0, std::cos(theta));
    d = Eigen::Vector3d(std::cos(theta), 0.0, std::sin(theta));  // uphill …
    d = -d;                                                      // … so downhill
    const Eigen::Vector3d s = n.cross(d);
    const double phi = 40.0 * M_PI / 180.0;
    t1 = std::cos(phi) * d + std::sin(phi) * s;
    t2 = n.cross(t1);
  }
};

// Point mass at the origin on the incline through the origin, rows (n, t1, t2), 3-D friction μ.
Model point_on_incline(double theta, double mu) {
  const Incline f(theta);
  LagrangianLti s;
  s.name = "mass";
  s.M = SparseMatrix(3, 3);
  for (int i = 0; i < 3; ++i) s.M.insert(i, i) = kMass;
  s.K = SparseMatrix(3, 3);
  s.C = SparseMatrix(3, 3);
  s.f_const = Vector::Zero(3);
  s.f_const[2] = -kMass * kG;
  s.q = Vector::Zero(3);
  s.v = Vector::Zero(3);
  LinearRelation rel;
  rel.C.resize(3, 3);
  rel.C.row(0) = f.n.transpose();
  rel.C.row(1) = f.t1.transpose();
  rel.C.row(2) = f.t2.transpose();
  rel.b = Vector::Zero(3);
  Interaction in;
  in.name = "incline";
  in.systems = {SystemRef{SystemFamily::Lti, 0}};
  in.relation = rel;
  in.law = NewtonImpactFrictionLaw{0.0, mu, 3};
  Model m;
  m.lti.push_back(std::move(s));
  m.interactions.push_back(std::move(in));
  return m;
}

// Solid sphere touching the tilted plane through the origin, at rest, 3-D friction μ.
Model sphere_on_incline(double theta, double mu) {
  const Incline f(theta);
  Model m;
  m.gravity = Eigen::Vector3d(0, 0, -kG);
  m.bodies.add_general(kRadius * f.n, Eigen::Quaterniond::Identity(), kMass,
                       Eigen::Vector3d::Constant(0.4 * kMass * kRadius * kRadius), kRadius);
  Interaction in;
  in.name = "incline";
  in.systems = {SystemRef{SystemFamily::Rigid, 0}};
  in.relation = SphereContactRelation{f.n, 0.0};
  in.law = NewtonImpactFrictionLaw{0.0, mu, 3};
  m.interactions.push_back(std::move(in));
  return m;
}

NonsmoothGeneralizedAlphaParameters parameters(double h, double rho) {
  NonsmoothGeneralizedAlphaParameters p;
  p.h = h;
  p.coefficients = generalized_alpha_coefficients(rho);
  return p;
}

}  // namespace

TEST_CASE("generalized-α with 3-D friction: a mass on an incline sticks below tan θ = μ and slides above",
          "[schemes][friction]") {
  const double theta = M_PI / 6, T = 1.0;  // tan θ = 0.577
  const Incline f(theta);
  for (const double rho : {0.0, 0.8, 1.0})
    for (const double h : {1e-2, 1e-3}) {
      // Sticking, also just above the limit: not a millimetre of creep, nor a picometre.
      for (const double mu : {0.8, std::tan(theta) + 1e-6}) {
        Model m = point_on_incline(theta, mu);
        NonsmoothGeneralizedAlpha scheme(m, parameters(h, rho));
        double worst_gap = 0.0;
        for (long k = 0; k < std::lround(T / h); ++k) {
          scheme.step();
          worst_gap = std::min(worst_gap, f.n.dot(m.lti[0].q));
        }
        INFO("ρ∞ = " << rho << ", h = " << h << ", μ = " << mu << ": |x| = " << m.lti[0].q.norm()
                     << " m, |v| = " << m.lti[0].v.norm());
        CHECK(m.lti[0].q.norm() <= 1e-12);
        CHECK(m.lti[0].v.norm() <= 1e-12);
        CHECK(worst_gap > -1e-12);
      }
      // Sliding: the constant-acceleration motion straight down the slope, exact at the steps.
      for (const double mu : {0.2, std::tan(theta) - 1e-3}) {
        Model m = point_on_incline(theta, mu);
        NonsmoothGeneralizedAlpha scheme(m, parameters(h, rho));
        for (long k = 0; k < std::lround(T / h); ++k) scheme.step();
        const double a = kG * (std::sin(theta) - mu * std::cos(theta));
        const Vector& x = m.lti[0].q;
        const Vector& v = m.lti[0].v;
        const Eigen::Vector3d x3(x[0], x[1], x[2]), v3(v[0], v[1], v[2]);
        std::printf("3-D friction, mass on an incline, ρ∞ = %.1f, h = %.0e, μ = %.4f: s/(½aT²) − 1 = %.1e, "
                    "v/(aT) − 1 = %.1e, off the slope line %.1e m\n",
                    rho, h, mu, f.d.dot(x3) / (0.5 * a * T * T) - 1.0, f.d.dot(v3) / (a * T) - 1.0,
                    (x3 - f.d.dot(x3) * f.d).norm());
        INFO("ρ∞ = " << rho << ", h = " << h << ", μ = " << mu);
        CHECK(std::abs(f.d.dot(x3) - 0.5 * a * T * T) <= 1e-9 * 0.5 * a * T * T);
        CHECK(std::abs(f.d.dot(v3) - a * T) <= 1e-9 * a * T);
        CHECK((x3 - f.d.dot(x3) * f.d).norm() <= 1e-12);  // neither sideways nor into or off the plane
        // The friction impulse opposes the sliding velocity, at the cone's edge.
        const Vector& P = m.interactions[0].impulse;
        REQUIRE(P.size() == 3);
        const Eigen::Vector3d PT = P[1] * f.t1 + P[2] * f.t2;
        CHECK(PT.norm() == Approx(mu * P[0]).epsilon(1e-9));
        CHECK((PT.normalized() + f.d).norm() <= 1e-9);
      }
    }
}

TEST_CASE("generalized-α with 3-D friction: a solid sphere rolls down an incline at 5/7 g sin θ, or slips",
          "[schemes][friction]") {
  const double theta = M_PI / 6, T = 1.0;
  const Incline f(theta);
  for (const double h : {1e-2, 1e-3}) {
    // Rolling: μ = 0.3 ≥ 2/7 tan θ = 0.165.
    {
      Model m = sphere_on_incline(theta, 0.3);
      NonsmoothGeneralizedAlpha scheme(m, parameters(h, 0.8));
      double worst_gap = 0.0, worst_slip = 0.0;
      for (long k = 0; k < std::lround(T / h); ++k) {
        scheme.step();
        const Eigen::Vector3d c = m.bodies.x[0];
        worst_gap = std::min(worst_gap, f.n.dot(c) - kRadius);
        // Velocity of the contact point: v + ω × (−r n), world ω.
        const Eigen::Vector3d slip = m.bodies.v[0] + m.bodies.w[0].cross(-kRadius * f.n);
        worst_slip = std::max(worst_slip, slip.norm());
      }
      const double a = 5.0 / 7.0 * kG * std::sin(theta);
      const Eigen::Vector3d dx = m.bodies.x[0] - kRadius * f.n;
      std::printf("3-D friction, rolling sphere, h = %.0e: s/(½aT²) − 1 = %.1e, v/(aT) − 1 = %.1e, slip speed "
                  "<= %.1e m/s, gap >= %.1e m\n",
                  h, f.d.dot(dx) / (0.5 * a * T * T) - 1.0, f.d.dot(m.bodies.v[0]) / (a * T) - 1.0, worst_slip,
                  worst_gap);
      INFO("h = " << h);
      CHECK(f.d.dot(m.bodies.v[0]) == Approx(a * T).epsilon(1e-9));
      CHECK(f.d.dot(dx) == Approx(0.5 * a * T * T).epsilon(1e-9));
      CHECK(worst_slip <= 1e-9);
      CHECK(worst_gap > -1e-12);
    }
    // Slipping: μ = 0.1 < 2/7 tan θ.
    {
      const double mu = 0.1;
      Model m = sphere_on_incline(theta, mu);
      NonsmoothGeneralizedAlpha scheme(m, parameters(h, 0.8));
      for (long k = 0; k < std::lround(T / h); ++k) scheme.step();
      const double a = kG * (std::sin(theta) - mu * std::cos(theta));
      const double spin = 2.5 * mu * kG * std::cos(theta) / kRadius;  // ω̇
      const Eigen::Vector3d dx = m.bodies.x[0] - kRadius * f.n;
      const Eigen::Vector3d w = m.bodies.w[0];
      std::printf("3-D friction, slipping sphere, h = %.0e: s/(½aT²) − 1 = %.1e, v/(aT) − 1 = %.1e, "
                  "ω/(ω̇T) − 1 = %.1e\n",
                  h, f.d.dot(dx) / (0.5 * a * T * T) - 1.0, f.d.dot(m.bodies.v[0]) / (a * T) - 1.0,
                  w.norm() / (spin * T) - 1.0);
      INFO("h = " << h);
      CHECK(f.d.dot(m.bodies.v[0]) == Approx(a * T).epsilon(1e-9));
      CHECK(f.d.dot(dx) == Approx(0.5 * a * T * T).epsilon(1e-9));
      CHECK(w.norm() == Approx(spin * T).epsilon(1e-9));
    }
  }
}
