#pragma once
// Capsules as a structure of arrays (issue 4 item 1: one non-spherical shape, so that rockfall-like blocks are
// possible). Unlike beads, a capsule's inertia is not isotropic: its orientation (unit quaternion, body → world;
// the body z axis is the capsule's axis) enters the contact geometry and the world inverse inertia
// R diag(1/I) Rᵀ, refreshed once per step (refresh_world_inertia). Angular velocities are world-frame like
// the beads'. Contacts touching a capsule have lever arms not along their normal, so their blocks of W are full
// 3×3 ones: they are solved by the general contact kernel (GeneralContacts.hpp).
// Ids are stable like the beads' (their own sequence: cache keys tell the two kinds apart).
#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <cstdint>
#include <vector>

#include "contact/CapsuleContact.hpp"

namespace talus::granular {

struct CapsuleBodies {
  std::vector<Eigen::Vector3d> x;            // centre of mass, world [m]
  std::vector<Eigen::Vector3d> v;            // [m/s]
  std::vector<Eigen::Vector3d> w;            // angular velocity, world [rad/s]
  std::vector<Eigen::Quaterniond> q;         // orientation, body → world
  std::vector<double> half_length, radius;   // segment half length, radius [m]
  std::vector<double> mass, inv_mass;        // inv_mass 0: fixed
  std::vector<Eigen::Vector3d> inertia;      // principal moments (body x, y, z = axis) [kg m²]
  std::vector<Eigen::Matrix3d> inv_inertia_world;  // R diag(1/I) Rᵀ at the start of the step
  std::vector<std::uint32_t> id;
  std::uint32_t next_id = 0;

  int size() const { return static_cast<int>(x.size()); }

  // A solid capsule of density rho whose axis points along `axis` (any length > 0); returns its id. Throws
  // std::invalid_argument for non-positive sizes or density, or a zero axis.
  std::uint32_t add(const Eigen::Vector3d& centre, const Eigen::Vector3d& axis, double half_length, double radius,
                    double rho, const Eigen::Vector3d& velocity = Eigen::Vector3d::Zero());

  // Removes the capsules whose flag is non-zero, keeping the others' order and ids.
  void remove(const std::vector<char>& flags);

  Eigen::Vector3d axis(int i) const { return q[i] * Eigen::Vector3d::UnitZ(); }
  contact::CapsuleShape shape(int i) const { return {x[i], axis(i), half_length[i], radius[i]}; }
  double bounding_radius(int i) const { return half_length[i] + radius[i]; }
};

// Mass and principal moments (axis last) of a solid capsule.
void capsule_mass_properties(double half_length, double radius, double rho, double& mass, Eigen::Vector3d& inertia);

void refresh_world_inertia(CapsuleBodies& c);

// ½ Σ m|v|² + ½ Σ ωᵀ I_world ω.
double kinetic_energy(const CapsuleBodies& c);

// Free motion over one step: v += h g and the gyroscopic term of Euler's equations by the implicit midpoint
// rule (energy-conserving; zero for a capsule spinning about its axis or turning about a perpendicular one).
void add_free_velocities(CapsuleBodies& c, const Eigen::Vector3d& gravity, double h);

// Positions and orientations with the end-of-step velocities (θ = 1): x += h v, q ← exp(h ω) q.
void integrate_capsules(CapsuleBodies& c, double h);

}  // namespace talus::granular
