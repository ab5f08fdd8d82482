#pragma once
// The measurements granular users take of an assembly (issue 13 item 5): packing fraction in a region,
// coordination numbers, the distribution of contact forces, the Love–Weber stress tensor of a region, kinetic
// energy split into translation and rotation, and the mass flow through a plane. Free functions over the one
// body store (engine/bodies/RigidBodies.hpp) and the contacts as forces (ContactForces.hpp), so the CLI's run
// summary and the Python module read the same numbers. None of them runs inside a step: they allocate freely.
// With `spread` (a partitioned model under MPI: SpreadBodies.hpp) they are collective: each process measures its
// own beads and the contacts it reports, and every process gets the whole assembly's figures, equal to those of
// the gathered assembly up to the order of the sums (counts exactly).
#include <Eigen/Dense>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "engine/analysis/ContactForces.hpp"
#include "engine/analysis/SpreadBodies.hpp"
#include "engine/bodies/RigidBodies.hpp"
#include "contact/Periodicity.hpp"

namespace talus {

// An axis-aligned box [lo, hi].
struct Region {
  Eigen::Vector3d lo = Eigen::Vector3d::Zero(), hi = Eigen::Vector3d::Ones();
  double volume() const { return (hi - lo).prod(); }
  bool contains(const Eigen::Vector3d& p) const {
    return (p.array() >= lo.array()).all() && (p.array() <= hi.array()).all();
  }
};

// Volume of the ball (centre, radius) inside the region, exact to round-off: the area of the disc ∩ rectangle
// cut at height z is written in closed form and integrated over z = c + r sin θ, which makes it analytic
// between the heights where the disc meets an edge or a corner of the rectangle (Gauss–Legendre on each such
// piece).
double ball_box_volume(const Eigen::Vector3d& centre, double radius, const Region& region);

// Solid volume of the dynamic and fixed bodies inside the region over the region's volume. Spheres exactly
// (ball_box_volume); a capsule counts its volume times the share of its axis segment inside the region (exact
// for a capsule wholly inside or outside, an estimate for one the boundary cuts). Throws
// std::invalid_argument for an empty region.
double packing_fraction(const RigidBodies& bodies, const Region& region, SpreadBodies* spread = nullptr);

struct CoordinationOptions {
  // A contact counts when its normal force exceeds this share of the mean normal force of the contacts that
  // push (open contacts of the one-step problem carry none).
  double force_fraction = 1e-6;
  // A body with fewer counted contacts than this is a rattler. The default 1 leaves out the bodies that carry
  // no force (under gravity one contact can hold a body: a bead on the floor). Without gravity the jamming
  // literature's counts apply: 2 for frictional spheres, 4 for frictionless ones. Removal is repeated until
  // none is left, since each removal takes a contact from a neighbour.
  int rattler_below = 1;
  // Geometric coordination counts the sphere pairs whose gap (ContactForce::gap) is at most this [m],
  // whatever their force.
  double gap_tolerance = 1e-9;
};

struct Coordination {
  long bodies = 0;             // dynamic bodies (inverse mass > 0)
  long body_contacts = 0;      // counted contacts between two bodies
  long obstacle_contacts = 0;  // counted contacts of a body with a wall, box or drum
  long rattlers = 0;
  double mean = 0.0;        // (2 body_contacts + obstacle_contacts) / bodies
  double mechanical = 0.0;  // the same over the non-rattlers and their contacts only
  // 2 × (sphere pairs of the list with a known gap <= gap_tolerance) / bodies: the touching neighbours, as a
  // lattice's coordination number counts them (6 for simple cubic, 12 for close packings).
  double geometric = 0.0;
};

Coordination coordination(const RigidBodies& bodies, const std::vector<ContactForce>& contacts,
                          const CoordinationOptions& options = {}, SpreadBodies* spread = nullptr);

// Probability density of the normal force f / ⟨f⟩ over the contacts that push, in `bins` equal bins on
// [0, max_ratio] (the density integrates to the share of contacts below max_ratio ⟨f⟩).
struct ForceDistribution {
  long contacts = 0;            // contacts that push
  double mean = 0.0;            // ⟨f⟩ [N]
  double max = 0.0;             // [N]
  double above_mean = 0.0;      // share of the contacts above ⟨f⟩
  std::vector<double> edges;    // bins + 1 bin edges in units of ⟨f⟩
  std::vector<double> density;  // per bin
};
ForceDistribution normal_force_distribution(const std::vector<ContactForce>& contacts, int bins = 20,
                                            double max_ratio = 5.0, double force_fraction = 1e-6,
                                            SpreadBodies* spread = nullptr);

// Love–Weber stress of the region, compression positive: σ = (1/V) Σ_i Σ_{c ∋ i} f_{c→i} ⊗ (x_i − p_c) over
// the bodies whose centre lies in the region (each body's contacts, wall contacts included, with the branch
// from the contact point to its centre). For two spheres in contact this is the usual f ⊗ l with l the branch
// vector between the centres. Symmetric at static equilibrium (each body's torque balance).
// periodic: the model's periodic boundaries. A contact across the seam has its point on b's surface, next to b's
// centre and a period away from a's: each branch is taken to the nearest image of its centre (a branch is shorter
// than half a period), else a's branch would count a whole period.
Eigen::Matrix3d love_weber_stress(const RigidBodies& bodies, const std::vector<ContactForce>& contacts,
                                  const Region& region, SpreadBodies* spread = nullptr,
                                  const contact::Periodicity* periodic = nullptr);
// The kinetic part (1/V) Σ m (v − v̄) ⊗ (v − v̄) over the same bodies, v̄ their mean velocity (mass-weighted).
Eigen::Matrix3d kinetic_stress(const RigidBodies& bodies, const Region& region);

struct KineticEnergy {
  double translation = 0.0;  // Σ ½ m |v|² [J]
  double rotation = 0.0;     // Σ ½ ωᵀ I ω [J]
  double total() const { return translation + rotation; }
};
// Of the dynamic bodies (fixed and kinematic bodies, inverse mass 0, are left out); the parts of
// RigidBodies.hpp's kinetic_energy(bodies).
KineticEnergy kinetic_energy_parts(const RigidBodies& bodies, SpreadBodies* spread = nullptr);

// Net mass through a plane, from the side the normal points to towards the other (a silo's outlet: normal
// up). Each record() compares every body's side with the one it had at the previous record, by kind and id,
// so bodies that appear (poured in) start counting from their first record and bodies removed (left the
// domain) keep what they already crossed.
class MassFlowMeter {
 public:
  // Throws std::invalid_argument for a zero or non-finite normal.
  MassFlowMeter(const Eigen::Vector3d& point, const Eigen::Vector3d& normal);

  void record(const RigidBodies& bodies, double time);
  double mass() const { return mass_; }  // net mass crossed since the first record [kg]
  // Net mass over the time between the first and the last record [kg/s]; 0 before two records.
  double rate() const { return t_last_ > t_first_ ? mass_ / (t_last_ - t_first_) : 0.0; }

 private:
  Eigen::Vector3d point_, normal_;
  std::unordered_map<std::uint64_t, std::int8_t> side_;
  double mass_ = 0.0;
  double t_first_ = 0.0, t_last_ = 0.0;
  bool started_ = false;
};

}  // namespace talus
