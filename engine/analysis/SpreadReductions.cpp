#include "engine/analysis/SpreadReductions.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace talus {

std::uint64_t ordered_key(double d) {
  std::uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return (u >> 63) ? ~u : u | (std::uint64_t{1} << 63);
}

double ordered_double(std::uint64_t k) {
  const std::uint64_t u = (k >> 63) ? k & ~(std::uint64_t{1} << 63) : ~k;
  double d;
  std::memcpy(&d, &u, sizeof d);
  return d;
}

double kth_smallest(const double* v, int n, long k, SpreadReductions& reduce) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  double bounds[3] = {inf, inf, static_cast<double>(n)};  // least value, −greatest value, count
  for (int i = 0; i < n; ++i) bounds[0] = std::min(bounds[0], v[i]), bounds[1] = std::min(bounds[1], -v[i]);
  reduce.min(bounds, 2);
  reduce.sum(bounds + 2, 1);
  if (k < 0 || static_cast<double>(k) >= bounds[2]) return std::numeric_limits<double>::quiet_NaN();
  // The least value t with more than k values at or below it: lo has at most k, hi more than k.
  std::uint64_t lo = ordered_key(bounds[0]) - 1, hi = ordered_key(-bounds[1]);
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    const double t = ordered_double(mid);
    double at_or_below = 0.0;
    for (int i = 0; i < n; ++i) at_or_below += v[i] <= t;
    reduce.sum(&at_or_below, 1);
    (at_or_below > static_cast<double>(k) ? hi : lo) = mid;
  }
  return ordered_double(hi);
}

}  // namespace talus
