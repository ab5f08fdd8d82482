#pragma once
// The granular path's general contacts (issue 4 items 1 and 3): those touching a capsule, swept by the
// matrix-free solvers' general kernel (solvers/matrixfree/GeneralContactSweep.hpp), plus what the engine keeps
// beside them: cache keys (contact/ContactKey.hpp) and generalized-α's position-level data. Their warm starts live in
// the stepper's one contact cache beside the bead contacts'.
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
  std::vector<Eigen::Vector3d> world_impulses;  // general_world_impulses, general_world_rolling
  // Generalized-α (GranularStepper.hpp): position-level normal targets and the velocity impulses kept aside while
  // the position problem is solved.
  std::vector<double> position_extra;
  std::vector<Eigen::Vector3d> velocity_r;
};

// Frame (contact::make_frame of the normal), lever arms, block of W (from the bodies' current inverse
// inertias) and μ of a contact whose a, b, kinds are set.
void prepare_general_contact(GeneralContact& c, const Eigen::Vector3d& normal, const Eigen::Vector3d& pa,
                             const Eigen::Vector3d& pb, double mu, const RigidBodies& bodies);

// set.world_impulses = the contacts' impulses in the world frame (what the contact cache keeps), or their rolling
// records' impulses (world vectors in the tangent plane).
void general_world_impulses(GeneralContactSet& set);
void general_world_rolling(GeneralContactSet& set);

}  // namespace talus::granular
