#pragma once
// The general contact kernel of the granular path (issue 4 items 1 and 3): contacts whose block of
// W = H M⁻¹ Hᵀ is a full 3×3 matrix, i.e. those touching a capsule (lever arms not along the normal, anisotropic
// world inertia). Bead–bead and bead–wall contacts keep the closed-form kernel of SweepContact.hpp.
//
// Like the bead kernel it is matrix-free: the bodies' velocities carry u = W r + q, a contact update reads its
// two bodies, solves its local problem and writes them back. For a body with inverse mass m⁻¹, world inverse
// inertia I⁻¹ and lever arm p, an impulse d moves the contact point by (m⁻¹ 1 − [p]× I⁻¹ [p]×) d, so the
// contact's block is W = F (Σ_bodies m⁻¹ 1 − [p]× I⁻¹ [p]×) Fᵀ (F: rows n, t1, t2), formed once per step. The
// local problem u = W r + b, r ∈ K_μ, û ∈ K*_μ, r ⟂ û is solved by solvers/fc/LocalContactSolvers.hpp
// (analytic cases, Alart–Curnier Newton for coupled sliding) — the same local solver as the friction solvers.
//
// The contacts are coloured on bodies (BodyColouring.hpp, beads numbered first, then capsules) and stored in
// colour order; MatrixFreeNsgs sweeps them after the bead contacts in every sweep, colour by colour, and adds
// their errors to the common residual. All functions taking the set run inside the sweep's parallel region
// (orphaned `omp for`), so the result is independent of the thread count.
#include <Eigen/Dense>
#include <cstdint>
#include <vector>

#include "contact/ContactCache.hpp"
#include "engine/granular/BodyColouring.hpp"
#include "engine/bodies/RigidBodies.hpp"
#include "solvers/fc/LocalContactSolvers.hpp"

namespace talus::granular {

enum class BodyKind : std::int8_t { Fixed, Sphere, Capsule };

struct GeneralContact {
  std::int32_t a = -1, b = -1;  // body indices in the one store (a = −1 when fixed); the kinds pick the kernel
  BodyKind kind_a = BodyKind::Fixed, kind_b = BodyKind::Sphere;
  Eigen::Vector3d n, t1, t2;    // frame, n from a to b
  Eigen::Vector3d pa, pb;       // lever arms, world
  double extra = 0.0;           // normal target: u_N + extra >= 0 (gap/h − wall speed, or e u_N,k)
  Eigen::Vector2d extra_t = Eigen::Vector2d::Zero();  // u_T = t·(v_b − v_a) + extra_t: minus a moving surface's
                                                      // tangential velocity (a drum's), so friction drags with it
  solvers::LocalContact<3> local;  // the block of W and what the local solver derives from it (μ inside)
  Eigen::Vector3d r = Eigen::Vector3d::Zero();  // impulse in the frame
};

// The general contacts of one step, in sweep order, with what the sweep needs to reach the bodies.
struct GeneralContactSet {
  std::vector<GeneralContact> contacts;
  std::vector<contact::ContactKey> keys;  // same order
  ContactColours colours;
  RigidBodies* bodies = nullptr;
  std::vector<double> block_sums;  // residual blocks
  contact::ContactCache cache;     // impulses of the last step, world frame
  std::vector<Eigen::Vector3d> world_impulses;  // scratch of store_general_cache
  // Generalized-α (GranularStepper.hpp): position-level normal targets, the position corrections' cache and
  // the velocity impulses kept aside while the position problem is solved.
  std::vector<double> position_extra;
  contact::ContactCache position_cache;
  std::vector<Eigen::Vector3d> velocity_r;
  bool empty() const { return contacts.empty(); }
};

// Cache keys: the kinds and ids of both bodies and the feature (contact/CapsuleContact.hpp). Obstacles (walls,
// boxes) use their index as id, drums kDrumKeyBase + their index under the Box kind; ids must stay below 2^26.
constexpr std::uint32_t kDrumKeyBase = 1u << 25;
enum class KeyKind : std::uint64_t { Wall = 0, Box = 1, Sphere = 2, Capsule = 3 };
inline contact::ContactKey general_key(KeyKind ka, std::uint32_t id_a, KeyKind kb, std::uint32_t id_b, int feature) {
  return (static_cast<std::uint64_t>(ka) << 62) | (static_cast<std::uint64_t>(kb) << 60) |
         (static_cast<std::uint64_t>(feature & 0xff) << 52) | (static_cast<std::uint64_t>(id_a & 0x3ffffff) << 26) |
         (id_b & 0x3ffffff);
}

// Frame, lever arms, block of W (from the bodies' current inverse inertias) and μ of a contact whose a, b,
// kinds are set.
void prepare_general_contact(GeneralContact& c, const Eigen::Vector3d& normal, const Eigen::Vector3d& pa,
                             const Eigen::Vector3d& pb, double mu, const RigidBodies& bodies);

// u = H v + extra of a contact, in its frame (the bodies' current velocities).
Eigen::Vector3d general_contact_velocity(const GeneralContact& c, const RigidBodies& bodies);

// Adds M⁻¹ Hᵀ r of every contact to the bodies' velocities (warm start). Inside or outside a parallel region.
void apply_general_impulses(GeneralContactSet& set);

// One Gauss–Seidel pass over the contacts, colour by colour (inside the sweep's parallel region).
void sweep_general_contacts(GeneralContactSet& set);

// Per-block squared errors of the contacts (inside the parallel region), and their sum (after a barrier).
void general_residual_blocks(GeneralContactSet& set);
double general_squared_error(const GeneralContactSet& set);

// Σ ‖u‖² of the contacts at the current velocities (‖q‖² when called on the free velocities, r = 0).
double general_squared_velocity(const GeneralContactSet& set);

// Stores the impulses (world frame) under their keys for the next step's warm start (into `cache`, by
// default the set's own).
void store_general_cache(GeneralContactSet& set);
void store_general_cache(GeneralContactSet& set, contact::ContactCache& cache);

}  // namespace talus::granular
