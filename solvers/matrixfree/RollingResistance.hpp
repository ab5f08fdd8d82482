#pragma once
// Rolling resistance of bead contacts (issue 14: the drum's dynamic angle of repose; Zhou et al., Phys. Rev. E 64,
// 021301 (2001): sliding and rolling friction together set the angle of repose of spheres). A point contact
// between spheres exerts no torque about the contact point, so a pile of smooth spheres rolls down slopes that
// real grains, never perfectly round, hold. The law added here is the rolling counterpart of Coulomb's, as a
// complementarity law rather than a spring (the "type C" model of Ai et al., Powder Technol. 206, 2011, in its
// rigid, nonsmooth form, as in Chrono's NSC rolling friction):
//   the rolling torque impulse M lies in the tangent plane, ‖M‖ <= μ_r R* r_N, and opposes the relative rolling
//   velocity ω_R = ((ω_b − ω_a) · t1, (ω_b − ω_a) · t2) when that is not zero (M = −μ_r R* r_N ω_R/‖ω_R‖);
// μ_r is dimensionless (LIGGGHTS' and EDEM's convention) and R* = r_a r_b / (r_a + r_b) is the contact's effective
// rolling radius (the bead's radius against a wall). Spin about the normal is left free.
//
// Scaled unknowns keep the law's units those of the Coulomb rows, so that one natural-map residual holds both:
// ρ = M / R* (an impulse) and ν = R* ω_R (a velocity), with the disk ‖ρ‖ <= μ_r r_N. For spheres the torque's
// effect on ν is isotropic, ν = b + w ρ with w = R*² (1/I_a + 1/I_b), so the local problem has the closed form
// ρ = proj_disk(−b / w). The sweep solves it right after the contact's Coulomb update (the disk's radius is then
// the new r_N): a block Gauss–Seidel over the contact's sliding and rolling rows, whose coupling (a torque turns
// the beads and so moves the sliding velocity) is left to the sweeps, like the coupling between contacts.
//
// The bead contacts' rolling records sit beside them, in the same (sweep) order; a solve without rolling
// resistance passes none and runs exactly the code it ran before. A general contact (GeneralContactSweep.hpp)
// carries its own record, used where it joins a bead to a fixed or moving obstacle (a drum, a moving mesh).
// The functions below take either kind of contact: what they read of it is a, b (a < 0: fixed), t1, t2 and r.
#include <Eigen/Dense>
#include <cmath>
#include <vector>

#include "solvers/matrixfree/BodyArrays.hpp"
#include "solvers/matrixfree/SweepContact.hpp"

namespace talus::matrixfree {

struct RollingContact {
  Eigen::Vector2d rho = Eigen::Vector2d::Zero();  // rolling impulse / R* on (t1, t2) [N s]
  double radius = 0.0;  // R*, the effective rolling radius [m]
  double mu = 0.0;      // μ_r (dimensionless); 0 leaves the contact free to roll
  double w = 0.0;       // R*² (1/I_a + 1/I_b): the scaled block
};

// The relative rolling velocity ν = R* ((ω_b − ω_a)·t1, (ω_b − ω_a)·t2) − surface. A fixed obstacle (a < 0) does
// not turn; a turning one (a drum, a turning mesh) gives surface = R* (Ω·t1, Ω·t2), its own rotation, so that a
// bead carried round with it without rolling on it has ν = 0.
template <class Contact>
inline Eigen::Vector2d rolling_velocity(const Contact& c, const RollingContact& k, const BodyArrays& beads,
                                        const Eigen::Vector2d& surface = Eigen::Vector2d::Zero()) {
  Eigen::Vector3d rel = beads.w[c.b];
  if (c.a >= 0) rel -= beads.w[c.a];
  return k.radius * Eigen::Vector2d(c.t1.dot(rel), c.t2.dot(rel)) - surface;
}

// Turns the beads by the torque impulse R* (d_1 t1 + d_2 t2) on b and its opposite on a.
template <class Contact>
inline void push_rolling(const Contact& c, const RollingContact& k, const Eigen::Vector2d& d, const BodyArrays& beads) {
  const Eigen::Vector3d m = k.radius * (d[0] * c.t1 + d[1] * c.t2);
  beads.w[c.b] += beads.inv_inertia[c.b] * m;
  if (c.a >= 0) beads.w[c.a] -= beads.inv_inertia[c.a] * m;
}

// ρ projected on the disk ‖ρ‖ <= bound (bound >= 0).
inline Eigen::Vector2d project_on_disk(const Eigen::Vector2d& rho, double bound) {
  const double n = rho.norm();
  return n <= bound ? rho : Eigen::Vector2d(n > 0.0 ? Eigen::Vector2d(rho * (bound / n)) : Eigen::Vector2d::Zero());
}

// The exact local rolling update of one contact, its normal impulse c.r[0] fixed.
template <class Contact>
inline void rolling_update(const Contact& c, RollingContact& k, const BodyArrays& beads,
                           const Eigen::Vector2d& surface = Eigen::Vector2d::Zero()) {
  if (k.w <= 0.0) return;
  const Eigen::Vector2d nu = rolling_velocity(c, k, beads, surface);
  const Eigen::Vector2d rho = project_on_disk(k.rho - nu / k.w, k.mu * std::max(0.0, c.r[0]));
  const Eigen::Vector2d d = rho - k.rho;
  k.rho = rho;
  push_rolling(c, k, d, beads);
}

// The rolling rows' squared natural-map error ‖ρ − proj_disk(ρ − ν)‖².
template <class Contact>
inline double rolling_error_squared(const Contact& c, const RollingContact& k, const BodyArrays& beads,
                                    const Eigen::Vector2d& surface = Eigen::Vector2d::Zero()) {
  const Eigen::Vector2d nu = rolling_velocity(c, k, beads, surface);
  return (k.rho - project_on_disk(k.rho - nu, k.mu * std::max(0.0, c.r[0]))).squaredNorm();
}

// The rolling records of a solve: one per bead contact, in the contacts' order, or none at all.
using RollingContacts = std::vector<RollingContact>;

}  // namespace talus::matrixfree
