#pragma once
// Every rigid body of the model in one structure of arrays (issue 11 item 1; STYLE.md practices 0 and 1): beads
// are the sphere case, capsules the first non-spherical shape, and the small-system path's bodies (blocks,
// pendulum links, the cradle's balls, whose contact geometry is given by user relations) the general case.
// One store, so that every integrator, every detection stage and every writer reads the same arrays.
//
// Groups: the bodies are kept grouped by shape kind, spheres first, then capsules, then general bodies, then the
// obstacles of detected contacts, each group contiguous (group_begin/group_end). The sphere kernels of the large path loop over [0, spheres()) and
// skip the rotation work: a sphere's inertia is isotropic, so its orientation never enters contact geometry
// and its inverse inertia is the scalar inv_inertia. Other kinds use the world inverse inertia R diag(1/I) Rᵀ,
// refreshed once per step (refresh_world_inertia).
//
// Frames: positions, velocities and angular velocities ω are world-frame for every body; q is body → world.
// (The small path's integrators work with the body-frame ω of a constant diagonal mass matrix: DofLayout
// converts when it gathers and scatters.)
//
// Identity: every body has an id, stable while indices change (beads re-sorted along a space-filling curve,
// bodies removed by outflow). Ids are unique within a shape kind (one sequence per kind, so that contact-cache
// keys, restart archives and outputs keep their numbering); a body is named by (kind, id).
// A body with inv_mass = 0 is fixed.
//
// Obstacles (issue 11 item 1: walls, planes and boxes are static or kinematic bodies): the last group holds one
// body per plane, box, cone, drum and mesh of the model (Model::walls, …; their shapes stay in those tables, which
// ObstacleRef indexes), with inv_mass and inverse inertia 0. Their pose and velocity are set from their motion
// laws, never integrated (engine/granular/ObstacleBodies.hpp: the granular stepper places them at the model's time
// when it is built and after every step), and their force and torque are the loads the bodies put on them over
// the last step. count() and every loop
// over "the bodies" stop before them: they are moved by nothing the integrators solve for.
#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "solvers/matrixfree/BodyArrays.hpp"

namespace talus {

// Group order in the store.
enum class ShapeKind : std::uint8_t { Sphere = 0, Capsule = 1, General = 2, Obstacle = 3 };
constexpr int kShapeKinds = 4;

// The obstacle tables of the model (engine/Model.hpp): walls (the planes of single scenes), boxes, conical
// shells, drums, triangle meshes.
enum class ObstacleKind : std::uint8_t { Wall, Box, Cone, Drum, Mesh };
struct ObstacleRef {
  ObstacleKind kind = ObstacleKind::Wall;
  int index = 0;  // in the model's table of that kind
  bool operator==(const ObstacleRef&) const = default;
};

struct RigidBodies {
  // Hot state, world frame.
  std::vector<Eigen::Vector3d> x;     // centre of mass [m]
  std::vector<Eigen::Vector3d> v;     // velocity [m/s]
  std::vector<Eigen::Vector3d> w;     // angular velocity [rad/s]
  std::vector<Eigen::Quaterniond> q;  // orientation, body → world (spheres: identity, never read by kernels)
  // Mass properties.
  std::vector<double> mass, inv_mass;              // [kg], [1/kg]; inv_mass 0: fixed
  std::vector<Eigen::Vector3d> inertia;            // principal moments, body frame [kg m²]
  std::vector<double> inv_inertia;                 // spheres: 1 / I (isotropic), 0 when fixed; other kinds 0
  // Shape (contact/'s shapes): spheres radius; capsules radius and the half length of their segment along the
  // body z axis; general bodies a bounding radius (their contact geometry lives in user relations).
  std::vector<double> radius, half_length;
  // Material id (engine/Materials.hpp): which contact laws the body's contacts take. One byte per body, read
  // by the narrow phases only (never by a sweep).
  std::vector<std::uint8_t> material;
  // Fields no sphere kernel reads, kept for the non-sphere bodies only (capsules, general bodies, obstacles), so a
  // bead carries only what bead kernels use: entry i − nonsphere_begin() belongs to body i (the *_of accessors).
  std::vector<Eigen::Matrix3d> inv_inertia_world;  // R diag(1/I) Rᵀ of the step (refresh_world_inertia)
  // External loads of the small path's bodies, world frame, every step; an obstacle's: the mean force the bodies
  // put on it over the last step and its torque about the obstacle's reference point (engine/ObstacleBodies.hpp).
  std::vector<Eigen::Vector3d> force, torque;
  // The obstacle group's shapes: entry i − group_begin(Obstacle) (obstacle_of).
  std::vector<ObstacleRef> obstacle;
  std::vector<std::uint32_t> id;
  std::array<std::uint32_t, kShapeKinds> next_id{};  // per kind
  // group_start[k] .. group_start[k + 1]: the bodies of kind k.
  std::array<int, kShapeKinds + 1> group_start{};

  // The bodies the integrators move: every group but the obstacles.
  int count() const { return group_start[static_cast<int>(ShapeKind::Obstacle)]; }
  // Every entry of the arrays, the obstacles included.
  int stored() const { return static_cast<int>(x.size()); }
  int obstacles() const { return group_size(ShapeKind::Obstacle); }
  // Store index of the k-th obstacle body, and the shape of an obstacle body i.
  int obstacle_body(int k) const { return group_begin(ShapeKind::Obstacle) + k; }
  const ObstacleRef& obstacle_of(int i) const { return obstacle[i - group_begin(ShapeKind::Obstacle)]; }
  int nonsphere_begin() const { return group_start[1]; }
  Eigen::Matrix3d& inv_inertia_world_of(int i) { return inv_inertia_world[i - group_start[1]]; }
  const Eigen::Matrix3d& inv_inertia_world_of(int i) const { return inv_inertia_world[i - group_start[1]]; }
  Eigen::Vector3d& force_of(int i) { return force[i - group_start[1]]; }
  const Eigen::Vector3d& force_of(int i) const { return force[i - group_start[1]]; }
  Eigen::Vector3d& torque_of(int i) { return torque[i - group_start[1]]; }
  const Eigen::Vector3d& torque_of(int i) const { return torque[i - group_start[1]]; }
  int group_begin(ShapeKind k) const { return group_start[static_cast<int>(k)]; }
  int group_end(ShapeKind k) const { return group_start[static_cast<int>(k) + 1]; }
  int group_size(ShapeKind k) const { return group_end(k) - group_begin(k); }
  int spheres() const { return group_size(ShapeKind::Sphere); }
  int capsules() const { return group_size(ShapeKind::Capsule); }
  int general() const { return group_size(ShapeKind::General); }
  // Index of the c-th capsule.
  int capsule(int c) const { return group_begin(ShapeKind::Capsule) + c; }
  ShapeKind kind(int i) const {
    return i < group_start[1]   ? ShapeKind::Sphere
           : i < group_start[2] ? ShapeKind::Capsule
           : i < group_start[3] ? ShapeKind::General
                                : ShapeKind::Obstacle;
  }
  Eigen::Vector3d axis(int i) const { return q[i] * Eigen::Vector3d::UnitZ(); }
  double bounding_radius(int i) const { return half_length[i] + radius[i]; }

  // A solid sphere of density rho, appended to the sphere group; returns its id. Throws std::invalid_argument
  // for r <= 0, rho <= 0 or a centre that is not finite.
  std::uint32_t add_sphere(const Eigen::Vector3d& centre, double r, double rho,
                           const Eigen::Vector3d& velocity = Eigen::Vector3d::Zero());
  // A solid capsule of density rho whose axis points along `axis` (any length > 0), appended to the capsule
  // group; returns its id. Throws std::invalid_argument for non-positive sizes or density, or a zero axis.
  std::uint32_t add_capsule(const Eigen::Vector3d& centre, const Eigen::Vector3d& axis, double half_length,
                            double radius, double rho, const Eigen::Vector3d& velocity = Eigen::Vector3d::Zero());
  // A general body (mass, principal inertia, bounding radius), appended at the end; returns its index.
  int add_general(const Eigen::Vector3d& x, const Eigen::Quaterniond& orientation, double mass,
                  const Eigen::Vector3d& inertia, double bounding_radius);

  // An obstacle body of that shape and material, appended to the obstacle group at rest at the origin; returns
  // its index. Its id is its place in the group.
  int add_obstacle(ObstacleRef shape, std::uint8_t material);
  void clear_obstacles();

  // Removes the bodies whose flag is non-zero (flags over the first count() bodies or more; obstacles are never
  // removed), keeping the others' order and ids.
  void remove(const std::vector<char>& flags);
  // Keeps the first min(n, spheres()) spheres and appends blank ones (at rest at the origin, no mass, id 0) up to
  // n, in time proportional to the change and to the bodies after the spheres: a partitioned model
  // (engine/distributed/BeadDomain.hpp) swaps the copies of other processes' beads at the end of its sphere group
  // every step, and fills the new entries itself.
  void resize_spheres(int n);
  // Reorders the sphere group: new sphere index k holds the old sphere order[k]. `scratch` is reused storage.
  void permute_spheres(const std::vector<std::int32_t>& order, std::vector<char>& scratch);
  void reserve(int n);
  // Bytes held by every array (capacities).
  std::size_t capacity_bytes() const;

 private:
  int insert_at(ShapeKind k);  // grows every array by one at the end of group k; returns the new index
};

// Mass and principal moments (axis last) of a solid capsule.
void capsule_mass_properties(double half_length, double radius, double rho, double& mass, Eigen::Vector3d& inertia);

// The store as the matrix-free solvers see it (solvers/matrixfree/BodyArrays.hpp): valid until the next change
// of the body count or a re-sort. The sphere group's scalar inverse inertia, the others' world tensors.
inline matrixfree::BodyArrays body_arrays(RigidBodies& b) {
  matrixfree::BodyArrays a;
  a.v = b.v.data(), a.w = b.w.data();
  a.inv_mass = b.inv_mass.data(), a.inv_inertia = b.inv_inertia.data();
  a.inv_inertia_world = b.inv_inertia_world.data();
  a.x = b.x.data(), a.mass = b.mass.data(), a.radius = b.radius.data();
  a.count = b.count(), a.spheres = b.spheres();
  return a;
}
// For reading only (residuals, relative velocities, blocks of W): the solvers' functions that only read take
// the same view type.
inline matrixfree::BodyArrays body_arrays(const RigidBodies& b) { return body_arrays(const_cast<RigidBodies&>(b)); }

// R diag(1/I) Rᵀ of every capsule and general body (0 for fixed ones).
void refresh_world_inertia(RigidBodies& b);

// ½ Σ m|v|² + ½ Σ ωᵀ I_world ω over the bodies of one kind.
double kinetic_energy(const RigidBodies& b, ShapeKind kind);
// The same over every body.
double kinetic_energy(const RigidBodies& b);

// A hash of the sphere group's positions, velocities, angular velocities and ids (bitwise), for determinism
// checks.
std::uint64_t state_hash(const RigidBodies& b);

// Free motion of the capsules over one step: v += h g and the gyroscopic term of Euler's equations by the
// implicit midpoint rule (energy-conserving; zero for a capsule spinning about its axis or turning about a
// perpendicular one).
void add_capsule_free_velocities(RigidBodies& b, const Eigen::Vector3d& gravity, double h);

// Capsule positions and orientations with the end-of-step velocities (θ = 1): x += h v, q ← exp(h ω) q.
void integrate_capsules(RigidBodies& b, double h);

}  // namespace talus
