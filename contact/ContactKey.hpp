#pragma once
// One key for every persistent contact of the model (issue 11 item 1: one cache, one key scheme): the granular
// stepper's bead and capsule contacts, their generalized-α and rolling warm starts, and the small path's detected
// interactions all name a contact by the same 64 bits, built from what survives re-sorting and removals — the
// bodies' kinds and stable ids, an obstacle's kind and index, and the feature touched:
//
//   two bodies:          0 | kind a (2) | id a (28) | kind b (2) | id b (28) | feature (3)
//   a body, an obstacle: 1 | obstacle kind (3) | obstacle field (28) | body kind (2) | body id (30)
//
// where the obstacle field is the obstacle's index (20 bits) and the feature (8 bits), except for meshes: the
// feature's number among all meshes' faces, edges and vertices (28 bits; MeshPoint: that number (25 bits) and the
// contact point's place among a capsule's points (3 bits)). Body ids are those of RigidBodies (one sequence per
// kind), below 2^28. Keys differ whenever the contacts do, so one sorted cache holds every kind.
//
// Restart archives written before this scheme stored the bead contacts under the old bead keys and the capsule
// contacts under the old general keys; legacy_bead_key and legacy_general_key translate them.
#include <cstdint>
#include <string>

namespace talus::contact {

using ContactKey = std::uint64_t;

// The body kinds of the keys: RigidBodies' shape groups (engine/bodies/RigidBodies.hpp ShapeKind), same values.
enum class KeyBody : std::uint64_t { Sphere = 0, Capsule = 1, General = 2 };
// Obstacles: walls and planes (granular walls, the small path's planes), boxes, conical shells, drums, mesh
// features met by a bead of a fixed mesh (Mesh) or by a point of a capsule or a moving mesh's contact (MeshPoint),
// and the small path's FE beams.
enum class KeyObstacle : std::uint64_t { Plane = 0, Box = 1, Cone = 2, Drum = 3, Mesh = 4, MeshPoint = 5, Beam = 6 };

constexpr std::uint32_t kKeyBodyIds = 1u << 28;        // body ids below this
constexpr std::uint32_t kKeyObstacleIndices = 1u << 20;  // obstacle indices below this
constexpr std::uint32_t kKeyMeshFeatures = 1u << 28;   // Mesh: feature numbers below this
constexpr std::uint32_t kKeyMeshPointFeatures = 1u << 25;  // MeshPoint: feature numbers below this

// Two bodies, in the contact's order (a, b); feature < 8 (the capsule–capsule points of contact/CapsuleContact.hpp).
constexpr ContactKey pair_key(KeyBody ka, std::uint32_t id_a, KeyBody kb, std::uint32_t id_b, int feature = 0) {
  return (static_cast<ContactKey>(ka) << 61) | (static_cast<ContactKey>(id_a & (kKeyBodyIds - 1)) << 33) |
         (static_cast<ContactKey>(kb) << 31) | (static_cast<ContactKey>(id_b & (kKeyBodyIds - 1)) << 3) |
         static_cast<ContactKey>(feature & 7);
}

// A body against obstacle `index` of kind k, at `feature` (< 256: a wall's plane or rim, a capsule's point).
constexpr ContactKey obstacle_key(KeyObstacle k, std::uint32_t index, int feature, KeyBody kb, std::uint32_t id) {
  return (ContactKey{1} << 63) | (static_cast<ContactKey>(k) << 60) |
         (static_cast<ContactKey>(index & (kKeyObstacleIndices - 1)) << 40) |
         (static_cast<ContactKey>(feature & 0xff) << 32) | (static_cast<ContactKey>(kb) << 30) |
         static_cast<ContactKey>(id & ((1u << 30) - 1));
}

// A bead against a fixed mesh's feature, numbered among all meshes' features (contact/TriangleMesh.hpp).
constexpr ContactKey mesh_key(std::uint32_t feature_number, KeyBody kb, std::uint32_t id) {
  return (ContactKey{1} << 63) | (static_cast<ContactKey>(KeyObstacle::Mesh) << 60) |
         (static_cast<ContactKey>(feature_number & (kKeyMeshFeatures - 1)) << 32) | (static_cast<ContactKey>(kb) << 30) |
         static_cast<ContactKey>(id & ((1u << 30) - 1));
}

// A body's point `point` (< 8) against a mesh feature (moving meshes, capsules against meshes).
constexpr ContactKey mesh_point_key(std::uint32_t feature_number, int point, KeyBody kb, std::uint32_t id) {
  return (ContactKey{1} << 63) | (static_cast<ContactKey>(KeyObstacle::MeshPoint) << 60) |
         (static_cast<ContactKey>(feature_number & (kKeyMeshPointFeatures - 1)) << 35) |
         (static_cast<ContactKey>(point & 7) << 32) | (static_cast<ContactKey>(kb) << 30) |
         static_cast<ContactKey>(id & ((1u << 30) - 1));
}

constexpr bool is_obstacle_key(ContactKey key) { return (key >> 63) != 0; }
constexpr KeyObstacle obstacle_kind(ContactKey key) { return static_cast<KeyObstacle>((key >> 60) & 7); }
constexpr std::uint32_t obstacle_index(ContactKey key) {
  return static_cast<std::uint32_t>((key >> 40) & (kKeyObstacleIndices - 1));
}
// A Mesh or MeshPoint key's feature number among all meshes' faces, edges and vertices (which mesh it is follows
// from the meshes' feature counts, in the model's order).
constexpr std::uint32_t mesh_feature_number(ContactKey key) {
  return obstacle_kind(key) == KeyObstacle::Mesh ? static_cast<std::uint32_t>((key >> 32) & (kKeyMeshFeatures - 1))
                                                 : static_cast<std::uint32_t>((key >> 35) & (kKeyMeshPointFeatures - 1));
}
// Whether a body of this kind takes part in the contact.
constexpr bool key_touches(ContactKey key, KeyBody kind) {
  const auto k = static_cast<ContactKey>(kind);
  if (is_obstacle_key(key)) return ((key >> 30) & 3) == k;
  return ((key >> 61) & 3) == k || ((key >> 31) & 3) == k;
}

// The key of the old schemes (restart archives written before this one), or throws std::invalid_argument with
// what the key holds that the new scheme cannot. Bead keys: bead pairs (id a << 32 | id b), and tagged walls (with
// feature), boxes, cones and mesh features in the high word. General keys: 2-bit kinds (wall, box, sphere,
// capsule) of both sides, 8-bit feature, 26-bit ids; cones, drums and moving-mesh features as offset box or wall
// ids.
ContactKey legacy_bead_key(std::uint64_t key);
ContactKey legacy_general_key(std::uint64_t key);

}  // namespace talus::contact
