#include "engine/granular/SpaceFillingCurve.hpp"

#include <algorithm>
#include <cmath>

namespace talus::granular {

namespace {

std::uint64_t spread_bits(std::uint64_t v) {  // 21 bits → every third bit
  v &= 0x1fffff;
  v = (v | v << 32) & 0x1f00000000ffffull;
  v = (v | v << 16) & 0x1f0000ff0000ffull;
  v = (v | v << 8) & 0x100f00f00f00f00full;
  v = (v | v << 4) & 0x10c30c30c30c30c3ull;
  v = (v | v << 2) & 0x1249249249249249ull;
  return v;
}

}  // namespace

void morton_order(const Eigen::Vector3d* x, int n, double cell, std::vector<std::int32_t>& order,
                  std::vector<std::pair<std::uint64_t, std::int32_t>>& scratch, const std::uint32_t* ties) {
  Eigen::Vector3d lo = n > 0 ? x[0] : Eigen::Vector3d::Zero();
  for (int i = 1; i < n; ++i) lo = lo.cwiseMin(x[i]);
  scratch.resize(n);
  for (int i = 0; i < n; ++i) {
    std::uint64_t code = 0;
    for (int a = 0; a < 3; ++a) {
      const double c = std::clamp(std::floor((x[i][a] - lo[a]) / cell), 0.0, 2097151.0);
      code |= spread_bits(static_cast<std::uint64_t>(c)) << a;
    }
    scratch[i] = {code, i};
  }
  if (ties)
    std::sort(scratch.begin(), scratch.end(), [ties](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : ties[a.second] < ties[b.second];
    });
  else
    std::sort(scratch.begin(), scratch.end());
  order.resize(n);
  for (int i = 0; i < n; ++i) order[i] = scratch[i].second;
}

}  // namespace talus::granular
