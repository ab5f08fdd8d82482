#include "solvers/fc/AlartCurnier.hpp"

#include <cassert>
#include <cmath>

#include "solvers/core/FrictionContactProblem.hpp"

namespace talus::solvers {

void alart_curnier(int dim, double mu, const double* u, const double* r, AlartCurnierRho rho,
                   AlartCurnierVariant variant, double* phi, double* dphi_dr, double* dphi_du) {
  assert(dim == 2 || dim == 3);
  const bool jacobian = dphi_dr != nullptr && dphi_du != nullptr;
  if (jacobian)
    for (int k = 0; k < dim * dim; ++k) dphi_dr[k] = dphi_du[k] = 0.0;

  // Normal row: Φ_N = r_N − [p_N]_+.
  const double pn = r[0] - rho.normal * u[0];
  const bool normal_active = pn > 0.0;
  phi[0] = normal_active ? rho.normal * u[0] : r[0];
  if (jacobian) {
    if (normal_active)
      dphi_du[0] = rho.normal;
    else
      dphi_dr[0] = 1.0;
  }

  // Friction disk radius and its dependence on (r_N, u_N).
  double radius;
  double dradius_drn = 0.0, dradius_dun = 0.0;
  if (variant == AlartCurnierVariant::Standard) {
    radius = normal_active ? mu * pn : 0.0;
    if (normal_active) {
      dradius_drn = mu;
      dradius_dun = -mu * rho.normal;
    }
  } else {
    radius = r[0] > 0.0 ? mu * r[0] : 0.0;
    if (r[0] > 0.0) dradius_drn = mu;
  }

  const int nt = dim - 1;
  double pt[2];
  double pt_norm2 = 0.0;
  for (int k = 0; k < nt; ++k) {
    pt[k] = r[1 + k] - rho.tangent * u[1 + k];
    pt_norm2 += pt[k] * pt[k];
  }
  const double pt_norm = std::sqrt(pt_norm2);

  if (radius > 0.0 && pt_norm <= radius) {
    // Sticking: the projection is the identity, Φ_T = ρ_T u_T.
    for (int k = 0; k < nt; ++k) {
      phi[1 + k] = rho.tangent * u[1 + k];
      if (jacobian) dphi_du[(1 + k) * dim + (1 + k)] = rho.tangent;
    }
    return;
  }

  // Sliding (or open, radius 0): Φ_T = r_T − R s, s = p_T / ‖p_T‖. With R = 0 this is Φ_T = r_T, A_TT = I.
  double s[2] = {0.0, 0.0};
  if (pt_norm > 0.0)
    for (int k = 0; k < nt; ++k) s[k] = pt[k] / pt_norm;
  for (int k = 0; k < nt; ++k) phi[1 + k] = r[1 + k] - radius * s[k];
  if (!jacobian) return;

  // ∂(R s)/∂p_T = R (I − s sᵀ) / ‖p_T‖; p_T = r_T − ρ_T u_T.
  const double c = pt_norm > 0.0 ? radius / pt_norm : 0.0;
  for (int a = 0; a < nt; ++a) {
    for (int b = 0; b < nt; ++b) {
      const double proj = c * ((a == b ? 1.0 : 0.0) - s[a] * s[b]);
      dphi_dr[(1 + a) * dim + (1 + b)] = (a == b ? 1.0 : 0.0) - proj;
      dphi_du[(1 + a) * dim + (1 + b)] = rho.tangent * proj;
    }
    dphi_dr[(1 + a) * dim] = -dradius_drn * s[a];
    dphi_du[(1 + a) * dim] = -dradius_dun * s[a];
  }
}

AlartCurnierRho alart_curnier_rho_from_block(int dim, const double* block, double fallback) {
  AlartCurnierRho rho;
  const double wn = block[0];
  double wt = 0.0;
  for (int k = 1; k < dim; ++k) wt += block[k * dim + k];
  wt /= (dim - 1);
  rho.normal = wn > 0.0 ? 1.0 / wn : fallback;
  rho.tangent = wt > 0.0 ? 1.0 / wt : fallback;
  return rho;
}

}  // namespace talus::solvers
