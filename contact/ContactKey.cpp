#include "contact/ContactKey.hpp"

#include <stdexcept>

namespace talus::contact {

namespace {

std::uint32_t body_id(std::uint64_t id, std::uint64_t key) {
  if (id >= kKeyBodyIds)
    throw std::invalid_argument("contact key " + std::to_string(key) + ": body id " + std::to_string(id) +
                                " is not below 2^28");
  return static_cast<std::uint32_t>(id);
}

std::uint32_t index_of(std::uint64_t index, std::uint64_t key) {
  if (index >= kKeyObstacleIndices)
    throw std::invalid_argument("contact key " + std::to_string(key) + ": obstacle index " + std::to_string(index) +
                                " is not below 2^20");
  return static_cast<std::uint32_t>(index);
}

}  // namespace

ContactKey legacy_bead_key(std::uint64_t key) {
  const std::uint32_t tag = static_cast<std::uint32_t>(key >> 32);
  const std::uint32_t bead = body_id(key & 0xffffffffu, key);
  if ((tag >> 31) == 0) return pair_key(KeyBody::Sphere, body_id(tag, key), KeyBody::Sphere, bead);
  if ((tag >> 28) == 0xF) return mesh_key(tag & 0x0fffffffu, KeyBody::Sphere, bead);
  if ((tag >> 29) == 0x7) return obstacle_key(KeyObstacle::Cone, index_of(tag & 0x1fffffffu, key), 0, KeyBody::Sphere, bead);
  if ((tag >> 30) == 0x3) return obstacle_key(KeyObstacle::Box, index_of(tag & 0x3fffffffu, key), 0, KeyBody::Sphere, bead);
  return obstacle_key(KeyObstacle::Plane, index_of((tag & 0x7fffffffu) >> 1, key), static_cast<int>(tag & 1u),
                      KeyBody::Sphere, bead);
}

ContactKey legacy_general_key(std::uint64_t key) {
  enum : std::uint64_t { Wall = 0, Box = 1, Sphere = 2, Capsule = 3 };
  const std::uint64_t ka = key >> 62, kb = (key >> 60) & 3;
  const int feature = static_cast<int>((key >> 52) & 0xff);
  const std::uint32_t id_a = static_cast<std::uint32_t>((key >> 26) & 0x3ffffff);
  const std::uint32_t id_b = static_cast<std::uint32_t>(key & 0x3ffffff);
  auto body = [&](std::uint64_t k) {
    if (k != Sphere && k != Capsule)
      throw std::invalid_argument("contact key " + std::to_string(key) + ": an obstacle on the body side");
    return k == Sphere ? KeyBody::Sphere : KeyBody::Capsule;
  };
  constexpr std::uint32_t kConeBase = 1u << 24, kDrumBase = 1u << 25, kMovingMeshBase = 1u << 25;
  if (ka == Sphere || ka == Capsule) return pair_key(body(ka), id_a, body(kb), id_b, feature);
  if (ka == Wall) {
    if (id_a >= kMovingMeshBase) return mesh_point_key(id_a - kMovingMeshBase, feature, body(kb), id_b);
    return obstacle_key(KeyObstacle::Plane, id_a, feature, body(kb), id_b);
  }
  if (id_a >= kDrumBase) return obstacle_key(KeyObstacle::Drum, id_a - kDrumBase, feature, body(kb), id_b);
  if (id_a >= kConeBase) return obstacle_key(KeyObstacle::Cone, id_a - kConeBase, feature, body(kb), id_b);
  return obstacle_key(KeyObstacle::Box, index_of(id_a, key), feature, body(kb), id_b);
}

}  // namespace talus::contact
