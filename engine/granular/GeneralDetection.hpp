#pragma once
// Detection of the general contacts (GeneralContacts.hpp) of a step: every pair with a capsule — capsule–bead
// (capsules query the beads' cell grid with their bounding radius), capsule–capsule (all pairs by bounding
// spheres: capsules are few next to the beads), capsule–wall, capsule–box and capsule–mesh (fixed meshes) —
// through the exact narrow phase of contact/CapsuleContact.hpp and CapsuleMeshContact.hpp, minimum-image in
// periodic domains. Then the contacts are coloured on bodies,
// their blocks of W formed and their impulses warm-started from the set's cache.
// Capsules are split into contiguous per-thread ranges and the per-thread lists concatenated in range order,
// so the contact list is the serial one for any thread count.
#include <vector>

#include "contact/CapsuleMeshContact.hpp"
#include "contact/CellGrid.hpp"
#include "contact/NarrowPhase.hpp"
#include "engine/granular/GeneralContacts.hpp"
#include "engine/Model.hpp"

namespace talus::granular {

struct GeneralCandidate {
  std::int32_t a = -1, b = -1;
  BodyKind kind_a = BodyKind::Fixed, kind_b = BodyKind::Sphere;
  contact::ContactPoint point;
  contact::ContactKey key = 0;
  double wall_speed = 0.0;
  Eigen::Vector3d wall_velocity = Eigen::Vector3d::Zero();  // a drum's surface velocity at the contact (world)
  Eigen::Vector3d wall_spin = Eigen::Vector3d::Zero();      // a turning obstacle's angular velocity (world)
  double mu = 0.0, e = 0.0;  // the pair's law (Model::materials), looked up at detection
  double rolling = 0.0;      // its rolling resistance (used between a bead and a fixed or moving obstacle)
  std::int32_t mesh = -1, feature = 0;  // a moving mesh's contact (MovingMeshContacts.hpp): the mesh and feature
};

struct GeneralDetectionBuffers {
  std::vector<std::vector<GeneralCandidate>> per_thread;
  std::vector<std::vector<contact::MeshCandidate>> mesh_scratch;                  // per thread
  std::vector<std::vector<contact::CapsuleMeshCandidate>> capsule_mesh_scratch;  // per thread
  std::vector<GeneralCandidate> all;
  std::vector<std::int32_t> colour_a, colour_b;
};

// Candidates with gap <= margin (walls: + h |speed|). walls_now/wall_speed: the walls at the start of the step
// and their mean normal velocity over it; grid: the beads' grid of this step; mesh_feature_offset[k]: the number of
// fixed mesh k's first feature among all meshes' (capsule–mesh keys, as MovingMeshContacts.hpp's).
void detect_general_contacts(const Model& m, const contact::CellGrid& grid,
                             const std::vector<contact::Wall>& walls_now, const std::vector<double>& wall_speed,
                             const std::vector<std::uint32_t>& mesh_feature_offset, double margin, double h,
                             int threads, GeneralDetectionBuffers& buffers);

// Colours, frames, blocks of W, normal targets and warm starts of buffers.all into set (whose bodies must be
// set). The normal target is gap/h − wall speed (open) or Newton's e u_N,k − wall speed (closed), plus the
// closing part of the gap's second-order change over the step (the rotation of a capsule: see the .cpp).
// Must run before the free velocities are added (it reads v_k). Returns the largest penetration (−gap, >= 0).
// With generalized_alpha the targets are that scheme's (GranularStepper.hpp) and set.position_extra is filled.
// A bead's contact with an obstacle whose law has rolling resistance gets its rolling record (GeneralContact::roll),
// warm-started from rolling_cache. Warm starts: the impulses stored under the contacts' keys in `cache` (the
// stepper's one cache of every contact).
double build_general_contacts(GeneralDetectionBuffers& buffers, const Model& m,
                              const std::vector<contact::Wall>& walls_now, double h, GeneralContactSet& set,
                              const contact::ContactCache& cache, const contact::ContactCache& rolling_cache,
                              bool generalized_alpha = false);

// max over capsules of |v| + |ω| (half length + radius): a bound on their surface points' speed.
double max_capsule_point_speed(const RigidBodies& c);

}  // namespace talus::granular
