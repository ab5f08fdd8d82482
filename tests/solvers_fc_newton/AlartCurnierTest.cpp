// The per-contact Alart–Curnier kernel: its Jacobian blocks against finite differences away from the kinks,
// and its zeros against Coulomb's law case by case (the equivalence docs/semismooth-newton.md relies on).
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "solvers/core/FrictionContactProblem.hpp"
#include "solvers/fc/AlartCurnier.hpp"

using namespace talus::solvers;

namespace {

// Distance of (u, r) to the surfaces where Φ is not differentiable, for the chosen variant.
double kink_distance(int dim, double mu, const double* u, const double* r, AlartCurnierRho rho,
                     AlartCurnierVariant v) {
  const double pn = r[0] - rho.normal * u[0];
  double pt = 0.0;
  for (int k = 1; k < dim; ++k) pt += std::pow(r[k] - rho.tangent * u[k], 2);
  pt = std::sqrt(pt);
  const double radius = v == AlartCurnierVariant::Standard ? mu * std::max(pn, 0.0) : mu * std::max(r[0], 0.0);
  double dist = std::min(std::abs(pn), std::abs(pt - radius));
  if (v == AlartCurnierVariant::JeanMoreau) dist = std::min(dist, std::abs(r[0]));
  return std::min(dist, pt);
}

}  // namespace

TEST_CASE("Alart-Curnier Jacobian blocks match central finite differences", "[fc][alart-curnier]") {
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> uni(-1.0, 1.0), pos(0.2, 3.0);
  int checked = 0;
  for (int dim : {2, 3}) {
    for (auto variant : {AlartCurnierVariant::Standard, AlartCurnierVariant::JeanMoreau}) {
      for (int trial = 0; trial < 400; ++trial) {
        double u[3], r[3];
        for (int k = 0; k < dim; ++k) {
          u[k] = uni(gen);
          r[k] = uni(gen);
        }
        const double mu = 0.8 * pos(gen) / 3.0;
        const AlartCurnierRho rho{pos(gen), pos(gen)};
        if (kink_distance(dim, mu, u, r, rho, variant) < 1e-3) continue;
        double phi[3], a[9], b[9];
        alart_curnier(dim, mu, u, r, rho, variant, phi, a, b);
        const double h = 1e-6;
        for (int col = 0; col < dim; ++col) {
          double rp[3], rm[3], up[3], um[3], fp[3], fm[3], gp[3], gm[3];
          for (int k = 0; k < dim; ++k) {
            rp[k] = rm[k] = r[k];
            up[k] = um[k] = u[k];
          }
          rp[col] += h;
          rm[col] -= h;
          up[col] += h;
          um[col] -= h;
          alart_curnier(dim, mu, u, rp, rho, variant, fp);
          alart_curnier(dim, mu, u, rm, rho, variant, fm);
          alart_curnier(dim, mu, up, r, rho, variant, gp);
          alart_curnier(dim, mu, um, r, rho, variant, gm);
          for (int row = 0; row < dim; ++row) {
            REQUIRE(a[row * dim + col] == Approx((fp[row] - fm[row]) / (2 * h)).margin(1e-6));
            REQUIRE(b[row * dim + col] == Approx((gp[row] - gm[row]) / (2 * h)).margin(1e-6));
          }
        }
        ++checked;
      }
    }
  }
  CHECK(checked > 800);  // most random points are away from the kinks
}

TEST_CASE("Alart-Curnier zeros are Coulomb's law and the De Saxce complementarity", "[fc][alart-curnier]") {
  const AlartCurnierRho rho{0.7, 1.9};
  const double mu = 0.4;
  double phi[3];
  auto check_solution = [&](int dim, const double* u, const double* r) {
    for (auto v : {AlartCurnierVariant::Standard, AlartCurnierVariant::JeanMoreau}) {
      alart_curnier(dim, mu, u, r, rho, v, phi);
      for (int k = 0; k < dim; ++k) REQUIRE(phi[k] == Approx(0.0).margin(1e-14));
    }
    REQUIRE(contact_residual_squared(r, u, dim, mu) == Approx(0.0).margin(1e-28));
  };
  auto check_not_solution = [&](int dim, const double* u, const double* r) {
    for (auto v : {AlartCurnierVariant::Standard, AlartCurnierVariant::JeanMoreau}) {
      alart_curnier(dim, mu, u, r, rho, v, phi);
      double n = 0.0;
      for (int k = 0; k < dim; ++k) n += phi[k] * phi[k];
      REQUIRE(n > 1e-6);
    }
    REQUIRE(contact_residual_squared(r, u, dim, mu) > 1e-6);
  };
  SECTION("3D") {
    const double take_off_u[3] = {0.3, -0.5, 0.2}, zero[3] = {0, 0, 0};
    check_solution(3, take_off_u, zero);
    const double stick_r[3] = {2.0, 0.3, -0.4};  // ‖r_T‖ = 0.5 < μ r_N = 0.8
    check_solution(3, zero, stick_r);
    const double slide_r[3] = {2.0, 0.48, -0.64};  // ‖r_T‖ = 0.8 = μ r_N
    const double slide_u[3] = {0.0, -0.3, 0.4};    // u_T = −0.625 r_T
    check_solution(3, slide_u, slide_r);
    const double wrong_way_u[3] = {0.0, 0.3, -0.4};  // sliding along the friction force
    check_not_solution(3, wrong_way_u, slide_r);
    const double penetrating_u[3] = {-0.1, 0.0, 0.0};
    check_not_solution(3, penetrating_u, zero);
    const double outside_cone_r[3] = {1.0, 0.6, 0.0};
    check_not_solution(3, zero, outside_cone_r);
  }
  SECTION("2D") {
    const double take_off_u[2] = {0.3, -0.5}, zero[2] = {0, 0};
    check_solution(2, take_off_u, zero);
    const double stick_r[2] = {2.0, -0.5};
    check_solution(2, zero, stick_r);
    const double slide_r[2] = {2.0, -0.8}, slide_u[2] = {0.0, 0.7};
    check_solution(2, slide_u, slide_r);
    const double wrong_way_u[2] = {0.0, -0.7};
    check_not_solution(2, wrong_way_u, slide_r);
  }
}

TEST_CASE("Alart-Curnier rho from a diagonal block of W", "[fc][alart-curnier]") {
  const double block3[9] = {4.0, 0.1, 0.2, 0.1, 2.0, 0.0, 0.2, 0.0, 6.0};
  const AlartCurnierRho r3 = alart_curnier_rho_from_block(3, block3, 9.0);
  CHECK(r3.normal == Approx(0.25));
  CHECK(r3.tangent == Approx(0.25));  // 2 / (2 + 6)
  const double degenerate[4] = {0.0, 0.0, 0.0, 0.0};
  const AlartCurnierRho r2 = alart_curnier_rho_from_block(2, degenerate, 9.0);
  CHECK(r2.normal == 9.0);
  CHECK(r2.tangent == 9.0);
}
