#pragma once
// The one-contact Coulomb problem with an isotropic, uncoupled diagonal block diag(wn, wt, wt) (seed 004,
// Coulomb's law with De Saxcé's cone complementarity), solved in closed form, and the projection on the cone.
// Shared by the fine bead sweep (MatrixFreeNsgs.cpp: for spheres the block is exactly isotropic, SweepContact.hpp)
// and the coarse aggregate sweeps of MultilevelNsgs.cpp, where diag(wn, wt, wt) is a Gershgorin majorant of the
// aggregates' full 3×3 block: the update is then a majorise–minimise step, which cannot overshoot.
#include <Eigen/Dense>
#include <cmath>

#include "solvers/matrixfree/BodyArrays.hpp"
#include "solvers/matrixfree/SweepContact.hpp"

namespace talus::matrixfree {

// Exact local solution for the block diag(wn, wt, wt): u is the contact velocity with the current r, so that
// b = u − W r is the part of u not due to r. Every case (open, sticking, sliding) is computed and the right one
// chosen at the end, with the operations of the first, branching form (s = 1 when sticking: 1·x = x exactly), so the
// bits are the same; the compiler may choose by branches or by selects (docs/stack-height.md, "The sweep kernel":
// forcing selects by bit masks was slower).
[[gnu::always_inline]] inline void isotropic_local_solve(double wn, double wt, double mu, const Eigen::Vector3d& u,
                                                        Eigen::Vector3d& r) {
  const double bn = u[0] - wn * r[0];
  const double bt1 = u[1] - wt * r[1], bt2 = u[2] - wt * r[2];
  const double rn = -bn / wn;
  const double st1 = -bt1 / wt, st2 = -bt2 / wt;
  const double st = std::sqrt(st1 * st1 + st2 * st2);
  const double limit = mu * rn;
  const double slide = limit / st;             // r_T = μ r_N (st / ‖st‖) when sliding
  const double s = st <= limit ? 1.0 : slide;  // 1 when sticking
  const bool open = bn >= 0.0;
  r[0] = open ? 0.0 : rn;
  r[1] = open ? 0.0 : s * st1;
  r[2] = open ? 0.0 : s * st2;
}

// Projection on the Coulomb cone {‖r_T‖ <= μ r_N} (the closed form of solvers::project_on_cone, inlined for
// inner loops).
inline void project_isotropic(Eigen::Vector3d& r, double mu) {
  const double t = std::sqrt(r[1] * r[1] + r[2] * r[2]);
  if (t <= mu * r[0]) return;
  if (mu * t <= -r[0]) {
    r.setZero();
    return;
  }
  const double rn = (r[0] + mu * t) / (1.0 + mu * mu);
  const double s = mu * rn / t;
  r[0] = rn, r[1] *= s, r[2] *= s;
}

// Moves the contact's beads by M⁻¹ Hᵀ dr (dr in the contact frame). Written out component by component, in the
// order of operations of the Eigen expressions d = dr₀ n + dr₁ t₁ + dr₂ t₂, v_b += m⁻¹ d, ω_b −= (r_b/I) n × d
// (the same bits): in the sweep's translation units GCC kept those small Eigen operators out of line, a call per
// bead per update.
[[gnu::always_inline]] inline void push_impulse(const SweepContact& c, const Eigen::Vector3d& dr, const BodyArrays& beads) {
  const double* n = c.n.data();
  const double* t1 = c.t1.data();
  const double* t2 = c.t2.data();
  double d[3], nd[3];
  for (int k = 0; k < 3; ++k) d[k] = dr[0] * n[k] + dr[1] * t1[k] + dr[2] * t2[k];
  nd[0] = n[1] * d[2] - n[2] * d[1];  // p × d with p = ±r n
  nd[1] = n[2] * d[0] - n[0] * d[2];
  nd[2] = n[0] * d[1] - n[1] * d[0];
  {
    double* v = beads.v[c.b].data();
    double* w = beads.w[c.b].data();
    const double m = beads.inv_mass[c.b], k = beads.inv_inertia[c.b] * c.rb;
    for (int i = 0; i < 3; ++i) v[i] += m * d[i], w[i] -= k * nd[i];
  }
  if (c.a >= 0) {
    double* v = beads.v[c.a].data();
    double* w = beads.w[c.a].data();
    const double m = beads.inv_mass[c.a], k = beads.inv_inertia[c.a] * c.ra;
    for (int i = 0; i < 3; ++i) v[i] -= m * d[i], w[i] -= k * nd[i];
  }
}

}  // namespace talus::matrixfree
