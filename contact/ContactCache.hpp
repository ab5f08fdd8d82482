#pragma once
// Persistent contacts (issue 4 item 2; STYLE.md practice 5): the reactions of the last step, keyed by the
// pair of bodies' stable ids and the feature touched, so that the next step's solver starts from them (warm
// start). Keys survive re-sorting of the bodies and the removal of others, because they use ids, not indices.
// The impulse is stored in world coordinates: the next step rebuilds its frame from the new normal, and the
// world vector re-projected on it is the best guess when the normal has turned a little.
// The cache is a key-sorted array (binary-searched, read in parallel without locks), rebuilt after each solve
// into buffers reused from step to step.
#include <Eigen/Dense>
#include <cstdint>
#include <vector>

namespace talus::contact {

using ContactKey = std::uint64_t;

// Bead–bead contacts: ids a < b. Bead–wall: the wall's index and feature in the high word, tagged so that it
// never equals a bead id.
inline ContactKey bead_pair_key(std::uint32_t id_a, std::uint32_t id_b) {
  return (static_cast<ContactKey>(id_a) << 32) | id_b;
}
inline ContactKey bead_wall_key(int wall, int feature, std::uint32_t id_bead) {
  const std::uint32_t tag = 0x80000000u | (static_cast<std::uint32_t>(wall) << 1) | static_cast<std::uint32_t>(feature);
  return (static_cast<ContactKey>(tag) << 32) | id_bead;
}

// Bead–box: the box index with the two top bits set (walls keep bit 30 clear while fewer than 2^29).
inline ContactKey bead_box_key(int box, std::uint32_t id_bead) {
  const std::uint32_t tag = 0xC0000000u | static_cast<std::uint32_t>(box);
  return (static_cast<ContactKey>(tag) << 32) | id_bead;
}
// Bead–cone: the cone index with the three top bits set (boxes keep bit 29 clear while fewer than 2^29). One key
// per cone and bead, surface or rim: a bead rolling over the outlet's rim keeps its warm start.
inline ContactKey bead_cone_key(int cone, std::uint32_t id_bead) {
  const std::uint32_t tag = 0xE0000000u | static_cast<std::uint32_t>(cone);
  return (static_cast<ContactKey>(tag) << 32) | id_bead;
}

// Bead–mesh: the mesh feature's number among all meshes' features (contact/TriangleMesh.hpp) with the four top
// bits set (cones keep bit 28 clear while fewer than 2^28); below 2^28 features in all.
inline ContactKey bead_mesh_key(std::uint32_t feature, std::uint32_t id_bead) {
  const std::uint32_t tag = 0xF0000000u | feature;
  return (static_cast<ContactKey>(tag) << 32) | id_bead;
}

class ContactCache {
 public:
  // The stored world impulse of key, or zero when the contact is new.
  Eigen::Vector3d find(ContactKey key) const;

  // Replaces the content by (keys[i], impulses[i]), i < n. Keys must be distinct.
  void store(const ContactKey* keys, const Eigen::Vector3d* impulses, std::size_t n);

  std::size_t size() const { return keys_.size(); }
  void clear() { keys_.clear(), impulses_.clear(); }
  // The stored contacts in key order (restart archives write them; store() reads them back).
  const std::vector<ContactKey>& keys() const { return keys_; }
  const std::vector<Eigen::Vector3d>& impulses() const { return impulses_; }

 private:
  std::vector<ContactKey> keys_;
  std::vector<Eigen::Vector3d> impulses_;
  std::vector<std::uint32_t> order_;  // scratch of store()
};

}  // namespace talus::contact
