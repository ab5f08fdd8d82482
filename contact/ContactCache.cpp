#include "contact/ContactCache.hpp"

#include <algorithm>
#include <numeric>

namespace talus::contact {

Eigen::Vector3d ContactCache::find(ContactKey key) const {
  const auto it = std::lower_bound(keys_.begin(), keys_.end(), key);
  if (it == keys_.end() || *it != key) return Eigen::Vector3d::Zero();
  return impulses_[static_cast<std::size_t>(it - keys_.begin())];
}

void ContactCache::store(const ContactKey* keys, const Eigen::Vector3d* impulses, std::size_t n) {
  order_.resize(n);
  std::iota(order_.begin(), order_.end(), 0u);
  std::sort(order_.begin(), order_.end(), [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
  keys_.resize(n);
  impulses_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    keys_[i] = keys[order_[i]];
    impulses_[i] = impulses[order_[i]];
  }
}

}  // namespace talus::contact
