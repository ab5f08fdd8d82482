#include "contact/ContactCache.hpp"

#include <algorithm>
#include <numeric>

namespace talus::contact {

Eigen::Vector3d ContactCache::find(ContactKey key) const {
  const auto it = std::lower_bound(keys_.begin(), keys_.end(), key);
  if (it == keys_.end() || *it != key) return Eigen::Vector3d::Zero();
  return impulses_[static_cast<std::size_t>(it - keys_.begin())];
}

void ContactCache::store(const ContactKey* keys, const Eigen::Vector3d* impulses, std::size_t n,
                         const ContactKey* more_keys, const Eigen::Vector3d* more_impulses, std::size_t more) {
  // Entry j < n is (keys[j], impulses[j]), entry n + j the j-th of the second list.
  auto key = [&](std::uint32_t j) { return j < n ? keys[j] : more_keys[j - n]; };
  order_.resize(n + more);
  std::iota(order_.begin(), order_.end(), 0u);
  if (more == 0)  // the usual case of bead scenes: no second list to look into while sorting
    std::sort(order_.begin(), order_.end(), [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
  else
    std::sort(order_.begin(), order_.end(), [&](std::uint32_t a, std::uint32_t b) { return key(a) < key(b); });
  keys_.resize(n + more);
  impulses_.resize(n + more);
  for (std::size_t i = 0; i < n + more; ++i) {
    const std::uint32_t j = order_[i];
    keys_[i] = key(j);
    impulses_[i] = j < n ? impulses[j] : more_impulses[j - n];
  }
}

}  // namespace talus::contact
