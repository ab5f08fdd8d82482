// One key scheme for every persistent contact (contact/ContactKey.hpp, issue 11 item 1). What it cannot fake:
// every combination of body kinds, ids at the ends of their ranges, obstacle kinds, indices, features and points
// gives a distinct key; the decoders give back what was encoded; and each form of the two older schemes that
// restart archives hold (bead keys, general keys; their formulas are spelled out here as they were) translates to
// the key the same contact has now.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <vector>

#include "contact/ContactKey.hpp"

using namespace talus::contact;

namespace {

// The older schemes, as they were written.
std::uint64_t old_bead_pair(std::uint32_t a, std::uint32_t b) { return (std::uint64_t{a} << 32) | b; }
std::uint64_t old_bead_wall(int wall, int feature, std::uint32_t id) {
  const std::uint32_t tag = 0x80000000u | (static_cast<std::uint32_t>(wall) << 1) | static_cast<std::uint32_t>(feature);
  return (std::uint64_t{tag} << 32) | id;
}
std::uint64_t old_bead_box(int box, std::uint32_t id) { return (std::uint64_t{0xC0000000u | std::uint32_t(box)} << 32) | id; }
std::uint64_t old_bead_cone(int cone, std::uint32_t id) { return (std::uint64_t{0xE0000000u | std::uint32_t(cone)} << 32) | id; }
std::uint64_t old_bead_mesh(std::uint32_t f, std::uint32_t id) { return (std::uint64_t{0xF0000000u | f} << 32) | id; }
enum : std::uint64_t { kWall = 0, kBox = 1, kSphere = 2, kCapsule = 3 };
std::uint64_t old_general(std::uint64_t ka, std::uint32_t id_a, std::uint64_t kb, std::uint32_t id_b, int feature) {
  return (ka << 62) | (kb << 60) | (std::uint64_t(feature & 0xff) << 52) | (std::uint64_t(id_a & 0x3ffffff) << 26) |
         (id_b & 0x3ffffff);
}

}  // namespace

TEST_CASE("contact keys: distinct for distinct contacts, decoded as encoded") {
  std::vector<ContactKey> keys;
  const std::uint32_t ids[] = {0, 1, 2, 1000, kKeyBodyIds - 2, kKeyBodyIds - 1};
  const KeyBody kinds[] = {KeyBody::Sphere, KeyBody::Capsule, KeyBody::General};
  for (KeyBody ka : kinds)
    for (std::uint32_t a : ids)
      for (KeyBody kb : kinds)
        for (std::uint32_t b : ids)
          for (int f : {0, 1, 4, 7}) keys.push_back(pair_key(ka, a, kb, b, f));
  const KeyObstacle obstacles[] = {KeyObstacle::Plane, KeyObstacle::Box, KeyObstacle::Cone, KeyObstacle::Drum,
                                   KeyObstacle::Beam};
  for (KeyObstacle k : obstacles)
    for (std::uint32_t index : {0u, 1u, 7u, kKeyObstacleIndices - 1})
      for (int f : {0, 1, 255})
        for (KeyBody kb : kinds)
          for (std::uint32_t id : ids) {
            const ContactKey key = obstacle_key(k, index, f, kb, id);
            CHECK(is_obstacle_key(key));
            CHECK(obstacle_kind(key) == k);
            CHECK(obstacle_index(key) == index);
            CHECK(key_touches(key, kb));
            keys.push_back(key);
          }
  for (std::uint32_t f : {0u, 1u, 12345u, kKeyMeshFeatures - 1})
    for (KeyBody kb : kinds)
      for (std::uint32_t id : ids) {
        keys.push_back(mesh_key(f, kb, id));
        CHECK(obstacle_kind(keys.back()) == KeyObstacle::Mesh);
        CHECK(mesh_feature_number(keys.back()) == f);
      }
  for (std::uint32_t f : {0u, 1u, 12345u, kKeyMeshPointFeatures - 1})
    for (int point : {0, 3, 7})
      for (KeyBody kb : kinds)
        for (std::uint32_t id : ids) {
          keys.push_back(mesh_point_key(f, point, kb, id));
          CHECK(obstacle_kind(keys.back()) == KeyObstacle::MeshPoint);
          CHECK(mesh_feature_number(keys.back()) == f);
        }
  const std::set<ContactKey> distinct(keys.begin(), keys.end());
  CHECK(distinct.size() == keys.size());
  CHECK_FALSE(is_obstacle_key(pair_key(KeyBody::General, kKeyBodyIds - 1, KeyBody::General, kKeyBodyIds - 1, 7)));
  CHECK(key_touches(pair_key(KeyBody::Sphere, 3, KeyBody::Capsule, 4), KeyBody::Capsule));
  CHECK_FALSE(key_touches(pair_key(KeyBody::Sphere, 3, KeyBody::Sphere, 4), KeyBody::Capsule));
}

TEST_CASE("contact keys: the older schemes translate to the new keys of the same contacts") {
  // Bead keys (the bead cache): pairs, walls with their feature, boxes, cones, mesh features.
  CHECK(legacy_bead_key(old_bead_pair(3, 17)) == pair_key(KeyBody::Sphere, 3, KeyBody::Sphere, 17));
  CHECK(legacy_bead_key(old_bead_pair(0, kKeyBodyIds - 1)) == pair_key(KeyBody::Sphere, 0, KeyBody::Sphere, kKeyBodyIds - 1));
  CHECK(legacy_bead_key(old_bead_wall(4, 1, 99)) == obstacle_key(KeyObstacle::Plane, 4, 1, KeyBody::Sphere, 99));
  CHECK(legacy_bead_key(old_bead_wall(0, 0, 5)) == obstacle_key(KeyObstacle::Plane, 0, 0, KeyBody::Sphere, 5));
  CHECK(legacy_bead_key(old_bead_box(2, 8)) == obstacle_key(KeyObstacle::Box, 2, 0, KeyBody::Sphere, 8));
  CHECK(legacy_bead_key(old_bead_cone(1, 8)) == obstacle_key(KeyObstacle::Cone, 1, 0, KeyBody::Sphere, 8));
  CHECK(legacy_bead_key(old_bead_mesh(123456, 8)) == mesh_key(123456, KeyBody::Sphere, 8));
  // General keys (the capsule cache): capsule–bead, capsule–capsule with its feature, walls, boxes, cones, drums
  // and mesh features under the offsets they used.
  CHECK(legacy_general_key(old_general(kCapsule, 5, kSphere, 9, 0)) == pair_key(KeyBody::Capsule, 5, KeyBody::Sphere, 9));
  CHECK(legacy_general_key(old_general(kCapsule, 5, kCapsule, 6, 3)) ==
        pair_key(KeyBody::Capsule, 5, KeyBody::Capsule, 6, 3));
  CHECK(legacy_general_key(old_general(kWall, 2, kCapsule, 6, 1)) == obstacle_key(KeyObstacle::Plane, 2, 1, KeyBody::Capsule, 6));
  CHECK(legacy_general_key(old_general(kBox, 3, kCapsule, 6, 2)) == obstacle_key(KeyObstacle::Box, 3, 2, KeyBody::Capsule, 6));
  CHECK(legacy_general_key(old_general(kBox, (1u << 24) + 1, kCapsule, 6, 2)) ==
        obstacle_key(KeyObstacle::Cone, 1, 2, KeyBody::Capsule, 6));
  CHECK(legacy_general_key(old_general(kBox, (1u << 25) + 2, kSphere, 7, 0)) ==
        obstacle_key(KeyObstacle::Drum, 2, 0, KeyBody::Sphere, 7));
  CHECK(legacy_general_key(old_general(kWall, (1u << 25) + 77, kCapsule, 7, 4)) ==
        mesh_point_key(77, 4, KeyBody::Capsule, 7));
  // What the new scheme cannot hold is refused, not wrapped.
  CHECK_THROWS_AS(legacy_bead_key(old_bead_pair(kKeyBodyIds, 1)), std::invalid_argument);
  CHECK_THROWS_AS(legacy_bead_key(old_bead_box(int(kKeyObstacleIndices), 1)), std::invalid_argument);
  CHECK_THROWS_AS(legacy_general_key(old_general(kSphere, 1, kWall, 2, 0)), std::invalid_argument);
}
