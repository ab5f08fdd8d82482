#pragma once
// Persistent contacts (issue 4 item 2; STYLE.md practice 5): the reactions of the last step, keyed by the
// bodies' stable ids and the feature touched (ContactKey.hpp, one scheme for every kind of contact), so that
// the next step's solver starts from them (warm start). One cache holds every contact of a step. Keys survive re-sorting of the bodies and the removal of others, because they use ids, not indices.
// The impulse is stored in world coordinates: the next step rebuilds its frame from the new normal, and the
// world vector re-projected on it is the best guess when the normal has turned a little.
// The cache is a key-sorted array (binary-searched, read in parallel without locks), rebuilt after each solve
// into buffers reused from step to step.
#include <Eigen/Dense>
#include <cstdint>
#include <vector>

#include "contact/ContactKey.hpp"

namespace talus::contact {

class ContactCache {
 public:
  // The stored world impulse of key, or zero when the contact is new.
  Eigen::Vector3d find(ContactKey key) const;

  // Replaces the content by (keys[i], impulses[i]), i < n, and (more_keys[i], more_impulses[i]), i < more (the
  // bead contacts and the general contacts of a step, say). Keys must be distinct.
  void store(const ContactKey* keys, const Eigen::Vector3d* impulses, std::size_t n,
             const ContactKey* more_keys = nullptr, const Eigen::Vector3d* more_impulses = nullptr, std::size_t more = 0);

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
