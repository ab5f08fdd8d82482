#pragma once
// The granular path's general contacts (issue 4 items 1 and 3): those touching a capsule, swept by the
// matrix-free solvers' general kernel (solvers/matrixfree/GeneralContactSweep.hpp), plus what the engine keeps
// beside them: cache keys, the contact cache for warm starts, and generalized-α's position-level data.
#include <Eigen/Dense>
#include <cstdint>
#include <vector>

#include "contact/ContactCache.hpp"
#include "engine/bodies/RigidBodies.hpp"
#include "solvers/matrixfree/GeneralContactSweep.hpp"

namespace talus::granular {

// The granular path is built on the matrix-free solvers (solvers/matrixfree/): their names are used unqualified.
using namespace matrixfree;

// The general contacts of one step, in sweep order (the solvers' part: contacts, colours, the bodies' arrays,
// residual blocks), with their keys and caches.
struct GeneralContactSet : matrixfree::GeneralContactSweep {
  std::vector<contact::ContactKey> keys;  // same order
  contact::ContactCache cache;     // impulses of the last step, world frame
  std::vector<Eigen::Vector3d> world_impulses;  // scratch of store_general_cache
  // Generalized-α (GranularStepper.hpp): position-level normal targets, the position corrections' cache and
  // the velocity impulses kept aside while the position problem is solved.
  std::vector<double> position_extra;
  contact::ContactCache position_cache;
  std::vector<Eigen::Vector3d> velocity_r;
  // Rolling resistance: the rolling records' impulses of the last step (world vectors, RollingResistance.hpp).
  contact::ContactCache rolling_cache;
};

// Cache keys: the kinds and ids of both bodies and the feature (contact/CapsuleContact.hpp). Obstacles (walls,
// boxes) use their index as id, cones kConeKeyBase + their index and drums kDrumKeyBase + their index under the
// Box kind; ids must stay below 2^26.
constexpr std::uint32_t kConeKeyBase = 1u << 24;
constexpr std::uint32_t kDrumKeyBase = 1u << 25;
enum class KeyKind : std::uint64_t { Wall = 0, Box = 1, Sphere = 2, Capsule = 3 };
inline contact::ContactKey general_key(KeyKind ka, std::uint32_t id_a, KeyKind kb, std::uint32_t id_b, int feature) {
  return (static_cast<std::uint64_t>(ka) << 62) | (static_cast<std::uint64_t>(kb) << 60) |
         (static_cast<std::uint64_t>(feature & 0xff) << 52) | (static_cast<std::uint64_t>(id_a & 0x3ffffff) << 26) |
         (id_b & 0x3ffffff);
}

// Frame (contact::make_frame of the normal), lever arms, block of W (from the bodies' current inverse
// inertias) and μ of a contact whose a, b, kinds are set.
void prepare_general_contact(GeneralContact& c, const Eigen::Vector3d& normal, const Eigen::Vector3d& pa,
                             const Eigen::Vector3d& pb, double mu, const RigidBodies& bodies);

// Stores the impulses (world frame) under their keys for the next step's warm start (into `cache`, by
// default the set's own).
void store_general_cache(GeneralContactSet& set);
void store_general_cache(GeneralContactSet& set, contact::ContactCache& cache);
// Stores the rolling records' impulses (world vectors) into set.rolling_cache.
void store_general_rolling_cache(GeneralContactSet& set);

}  // namespace talus::granular
