// engine/PlanarBlock: the rocking block's corner gaps and their Jacobians (seed 002, eq 19 for corner A),
// checked against the corner positions computed independently and against central finite differences.
#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>

#include "engine/PlanarBlock.hpp"

using namespace talus;

TEST_CASE("planar block corners: gaps and Jacobians", "[apps][planar_block]") {
  PlanarBlock b;
  b.name = "block";
  b.width = 1.0;
  b.height = 0.5;
  b.mass = 2.0;
  b.ground = -0.1;
  const double th = std::numbers::pi / 3;
  // Seed 002: corner A on the ground at the origin for this q0 (ground at 0 there).
  b.q0 = Eigen::Vector3d(0.5 * std::cos(th) - 0.25 * std::sin(th), 0.5 * std::sin(th) + 0.25 * std::cos(th), th);
  Model m;
  const Index i = add_planar_block(m, b, NewtonImpactFrictionLaw{0.0, 0.5, 2});
  REQUIRE(i == 0);
  REQUIRE(m.interactions.size() == 4);
  CHECK_NOTHROW(m.validate());

  const LagrangianNonlinear& s = m.nonlinear[0];
  Matrix M;
  s.mass(s.q, M);
  CHECK(M(0, 0) == 2.0);
  CHECK(M(1, 1) == 2.0);
  CHECK(M(2, 2) == Approx(2.0 * (1.0 + 0.25) / 12.0));
  CHECK((M - Matrix(M.diagonal().asDiagonal())).norm() == 0.0);

  // Corner positions: x + R(θ) c with R the rotation by θ; corner 0 is (−w/2, −h/2), i.e. corner A.
  const Eigen::Rotation2Dd R(th);
  const auto corners = planar_block_corners(b);
  for (int k = 0; k < 4; ++k) {
    const auto& rel = std::get<NonlinearRelation>(m.interactions[k].relation);
    REQUIRE(rel.rows == 2);
    Vector g;
    rel.gap(s.q, g);
    const Eigen::Vector2d p = s.q.head<2>() + R * corners[k];
    CHECK(g[0] == Approx(p.y() - b.ground).margin(1e-15));
    if (k == 0) CHECK(g[0] == Approx(0.1).margin(1e-15));

    // Normal row = ∂g/∂q; tangential row = ∂(corner x)/∂q, by central differences.
    Matrix J;
    rel.jacobian(s.q, J);
    REQUIRE(J.rows() == 2);
    REQUIRE(J.cols() == 3);
    const double eps = 1e-6;
    for (int c = 0; c < 3; ++c) {
      Vector qp = s.q, qm = s.q;
      qp[c] += eps, qm[c] -= eps;
      Vector gp, gm;
      rel.gap(qp, gp), rel.gap(qm, gm);
      CHECK(J(0, c) == Approx((gp[0] - gm[0]) / (2 * eps)).margin(1e-9));
      const Eigen::Vector2d pp = qp.head<2>() + Eigen::Rotation2Dd(qp[2]) * corners[k];
      const Eigen::Vector2d pm = qm.head<2>() + Eigen::Rotation2Dd(qm[2]) * corners[k];
      CHECK(J(1, c) == Approx((pp.x() - pm.x()) / (2 * eps)).margin(1e-9));
    }
  }

  Vector f;
  s.force(0.0, s.q, s.v, f);
  CHECK(f[0] == 0.0);
  CHECK(f[1] == Approx(-2.0 * 9.81));
  CHECK(f[2] == 0.0);
}

TEST_CASE("planar block: a frictionless law gives one row, and bad input is refused", "[apps][planar_block]") {
  PlanarBlock b;
  b.name = "b";
  Model m;
  add_planar_block(m, b, NewtonImpactLaw{0.5});
  CHECK(std::get<NonlinearRelation>(m.interactions[0].relation).rows == 1);
  CHECK(m.interactions[3].name == "b.corner3");

  Model m2;
  CHECK_THROWS_AS(add_planar_block(m2, b, NewtonImpactFrictionLaw{0.0, 0.5, 3}), std::invalid_argument);
  CHECK_THROWS_AS(add_planar_block(m2, b, EqualityLaw{1}), std::invalid_argument);
  b.mass = -1.0;
  CHECK_THROWS_AS(add_planar_block(m2, b, NewtonImpactLaw{0.5}), std::invalid_argument);
  CHECK(m2.nonlinear.empty());
}
