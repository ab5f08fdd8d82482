#pragma once
// Beads as a structure of arrays (issue 4 item 1; STYLE.md practice 1): the solver's hot loops touch only
// x, v, w and the inverse masses. Spheres have isotropic inertia, so the angular velocity is kept in the world
// frame and orientation never enters contact geometry; that is why beads do not reuse engine/RigidBodySet.hpp
// (body-frame ω, quaternions), which serves general rigid bodies.
// Every bead has a stable id (contact cache keys, outputs); indices change when beads are re-sorted along a
// space-filling curve or removed between steps (outflow), ids never do.
#include <Eigen/Dense>
#include <cstdint>
#include <vector>

namespace talus::granular {

struct SphereBodies {
  std::vector<Eigen::Vector3d> x;  // centre, world [m]
  std::vector<Eigen::Vector3d> v;  // velocity [m/s]
  std::vector<Eigen::Vector3d> w;  // angular velocity, world frame [rad/s]
  std::vector<double> radius;      // [m]
  std::vector<double> mass;        // [kg]
  std::vector<double> inv_mass;    // 0 for a fixed bead
  std::vector<double> inv_inertia; // 1 / (2/5 m r²), 0 for a fixed bead
  std::vector<std::uint32_t> id;
  std::uint32_t next_id = 0;

  int size() const { return static_cast<int>(x.size()); }

  // A solid sphere of density rho; returns its id. Throws std::invalid_argument for r <= 0 or rho <= 0.
  std::uint32_t add(const Eigen::Vector3d& centre, double r, double rho,
                    const Eigen::Vector3d& velocity = Eigen::Vector3d::Zero());

  // Removes the beads whose flag is non-zero, keeping the others' relative order (and their ids).
  void remove(const std::vector<char>& flags);

  // Reorders the beads: new index k holds the old bead order[k]. `scratch` is reused storage.
  void permute(const std::vector<std::int32_t>& order, SphereBodies& scratch);

  void reserve(int n);
};

// ½ Σ m|v|² + ½ Σ I|w|².
double kinetic_energy(const SphereBodies& b);

// A hash of positions, velocities and ids (bitwise), for determinism checks.
std::uint64_t state_hash(const SphereBodies& b);

}  // namespace talus::granular
