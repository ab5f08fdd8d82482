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
// b = u − W r is the part of u not due to r.
inline void isotropic_local_solve(double wn, double wt, double mu, const Eigen::Vector3d& u, Eigen::Vector3d& r) {
  const double bn = u[0] - wn * r[0];
  if (bn >= 0.0) {
    r.setZero();
    return;
  }
  const double bt1 = u[1] - wt * r[1], bt2 = u[2] - wt * r[2];
  const double rn = -bn / wn;
  const double st1 = -bt1 / wt, st2 = -bt2 / wt;
  const double st = std::sqrt(st1 * st1 + st2 * st2);
  r[0] = rn;
  if (st <= mu * rn) {
    r[1] = st1, r[2] = st2;
  } else {
    const double s = mu * rn / st;  // r_T = −μ r_N b_T/‖b_T‖ = μ r_N (st / ‖st‖)
    r[1] = s * st1, r[2] = s * st2;
  }
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

// Moves the contact's beads by M⁻¹ Hᵀ dr (dr in the contact frame).
inline void push_impulse(const SweepContact& c, const Eigen::Vector3d& dr, const BodyArrays& beads) {
  const Eigen::Vector3d d = dr[0] * c.n + dr[1] * c.t1 + dr[2] * c.t2;
  const Eigen::Vector3d nd = c.n.cross(d);  // p × d with p = ±r n
  beads.v[c.b] += beads.inv_mass[c.b] * d;
  beads.w[c.b] -= (beads.inv_inertia[c.b] * c.rb) * nd;
  if (c.a >= 0) {
    beads.v[c.a] -= beads.inv_mass[c.a] * d;
    beads.w[c.a] -= (beads.inv_inertia[c.a] * c.ra) * nd;
  }
}

}  // namespace talus::matrixfree
