#pragma once
// Contacts of beads with moving mesh walls (issue 14 item 1; contact/MeshMotion.hpp): a mixer's blade, a drum with
// lifters, a conveyor; and with meshes carried by a capsule (Model::mesh_body: a paddle's blade on a driven
// joint), whose contacts are the capsule's, so that the blade's reaction turns the capsule and loads its joint. They are general contacts (GeneralContacts.hpp), as a rotating drum's are, because the
// surface's velocity has a tangential part: the contact's relative velocity is the bead's minus the surface's
// (the normal part enters the normal target as a moving plane's does, the tangential part as extra_t). Each bead
// is taken into the mesh's own frame at the start of the step, its features found as for a fixed mesh
// (contact/MeshContact.hpp), and the contact turned back into the world.
#include <cstdint>
#include <vector>

#include "contact/MeshContact.hpp"
#include "contact/MeshProximityGrid.hpp"
#include "engine/granular/GeneralDetection.hpp"

namespace talus::granular {

// Where mesh k is at `time`: world = R X + t for its own coordinates X (a prescribed motion's, or the carrying
// capsule's pose; identity for a fixed mesh).
struct MeshPose {
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
  Eigen::Vector3d t = Eigen::Vector3d::Zero();
  Eigen::Vector3d to_mesh(const Eigen::Vector3d& x) const { return R.transpose() * (x - t); }
};
MeshPose mesh_pose(const Model& m, int k, double time);

// Makes capsule `body` (a store index) carry mesh k from where both are now: the mesh's vertices go into the
// capsule's frame (Model::mesh_body). Throws std::invalid_argument for a body that is not a capsule, a mesh with a
// prescribed motion, or one carried already.
void attach_mesh_to_capsule(Model& m, int k, int body);

// Cache keys of moving meshes' contacts, and of capsules against meshes: contact::mesh_point_key, the feature's
// number among all meshes' features (below 2^25) and the point's.
constexpr std::uint32_t kMovingMeshKeyBase = contact::kKeyMeshPointFeatures;

// How far a point of mesh k's surface moves in a step of h at most (a carried mesh: with its capsule's
// start-of-step velocities).
double mesh_surface_travel(const Model& m, int k, double h);

// Appends to buffers.all, in mesh, then bead, then capsule order (for any thread count: beads in contiguous
// per-thread ranges), a candidate for each feature of each moving or carried mesh within margin + the surface's
// travel of a bead, and for each capsule's ends and interior (CapsuleMeshContact.hpp) within the same reach (a
// carried mesh skips its own capsule; against another capsule the contact is between the two capsules). grids[k]
// is mesh k's proximity grid (its pad at least r + margin + travel, or empty); feature_offset[k] the first of its
// features' numbers. Uses buffers' per-thread lists and scratch.
void detect_moving_mesh_contacts(const Model& m, const std::vector<contact::MeshProximityGrid>& grids,
                                 const std::vector<std::uint32_t>& feature_offset, double margin, double h,
                                 int threads, GeneralDetectionBuffers& buffers);

// The closing part of the gap's change over the step that the velocity law cannot see (GeneralDetection.cpp's
// second-order drift), for a moving mesh's candidate: the gap of the bead moved by h v_k against the mesh where it
// is at t + h, less its first-order prediction gap + h (u_N − the surface's normal speed).
double moving_mesh_drift(const GeneralCandidate& g, const Model& m, double h, double un_bead);

}  // namespace talus::granular
