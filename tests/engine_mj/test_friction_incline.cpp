// A point mass on an incline with 2-D Coulomb friction (seed 004 eq 29, Moreau–Jean with friction eq 31), solved
// as an LCP by Lemke (solvers/lcp/Fc2dAsLcp.hpp), by PSOR on that LCP, and by NSGS: it sticks when tan α <= μ
// (zero velocity) and slides otherwise with acceleration g (sin α − μ cos α), which the scheme reproduces
// exactly (the friction impulse is μ m g cos α h every step).
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>

#include "engine/MoreauJean.hpp"

using namespace talus;

namespace {

constexpr double kG = 9.81;

// World coordinates (x, y) of a point mass; the incline through the origin has normal n = (−sin α, cos α) and
// downhill tangent t = (−cos α, −sin α). Rows of the relation: gap n·q, tangential velocity t·v.
Model block_on_incline(double alpha, double mu, double m = 2.0) {
  Model model;
  LagrangianLti s;
  s.name = "block";
  s.M.resize(2, 2);
  s.M.insert(0, 0) = m;
  s.M.insert(1, 1) = m;
  s.f_const = Vector::Zero(2);
  s.f_const[1] = -m * kG;
  s.q = Vector::Zero(2);
  s.v = Vector::Zero(2);
  model.lti.push_back(s);
  Interaction in;
  in.name = "incline";
  in.systems = {SystemRef{SystemFamily::Lti, 0}};
  Matrix C(2, 2);
  C << -std::sin(alpha), std::cos(alpha), -std::cos(alpha), -std::sin(alpha);
  in.relation = LinearRelation{C, Vector::Zero(2)};
  in.law = NewtonImpactFrictionLaw{0.0, mu, 2};
  model.interactions.push_back(in);
  return model;
}

}  // namespace

TEST_CASE("a block on an incline sticks below tan(alpha) = mu and slides above it", "[mj][friction]") {
  const double mu = 0.5, h = 1e-3;
  const int steps = 1000;
  for (OneStepSolverKind solver : {OneStepSolverKind::Lemke, OneStepSolverKind::Psor, OneStepSolverKind::Nsgs}) {
    INFO("solver " << to_string(solver));
    {
      const double alpha = 20.0 * std::numbers::pi / 180.0;  // tan α = 0.364 < μ
      Model model = block_on_incline(alpha, mu);
      MoreauJeanParameters params;
      params.h = h;
      params.solver = solver;
      MoreauJean mj(model, params);
      for (int k = 0; k < steps; ++k) mj.step();
      CHECK(model.lti[0].v.norm() <= 1e-12);
      CHECK(model.lti[0].q.norm() <= 1e-12);
      // Sticking: the tangential impulse balances gravity, inside the cone.
      const Vector& P = model.interactions[0].impulse;
      CHECK(std::abs(P[0] - 2.0 * kG * std::cos(alpha) * h) <= 1e-12);
      CHECK(std::abs(P[1]) <= mu * P[0]);
    }
    {
      const double alpha = 35.0 * std::numbers::pi / 180.0;  // tan α = 0.700 > μ
      Model model = block_on_incline(alpha, mu);
      MoreauJeanParameters params;
      params.h = h;
      params.theta = 0.5;
      params.solver = solver;
      MoreauJean mj(model, params);
      for (int k = 0; k < steps; ++k) mj.step();
      const double a = kG * (std::sin(alpha) - mu * std::cos(alpha));
      const double t = steps * h;
      const Eigen::Vector2d downhill(std::cos(alpha), std::sin(alpha));
      const Eigen::Vector2d v = model.lti[0].v, q = model.lti[0].q;
      CHECK(std::abs(-downhill.dot(v) - a * t) <= 1e-10 * a * t);
      CHECK(std::abs(-downhill.dot(q) - 0.5 * a * t * t) <= 1e-10 * a * t * t);  // θ = 1/2: exact for constant a
      CHECK(std::abs(Eigen::Vector2d(-std::sin(alpha), std::cos(alpha)).dot(v)) <= 1e-12);
    }
  }
}
