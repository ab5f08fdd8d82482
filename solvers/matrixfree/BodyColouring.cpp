#include "solvers/matrixfree/BodyColouring.hpp"

#include <bit>

namespace talus::matrixfree {

void colour_contacts_on_bodies(const std::int32_t* a, const std::int32_t* b, int n, int bodies, ContactColours& c) {
  constexpr int kOverflow = 64;
  c.body_mask.assign(bodies, 0);
  c.colour.resize(n);
  c.slot.resize(n);
  int used = 0;
  bool overflow = false;
  for (int k = 0; k < n; ++k) {
    const std::uint64_t taken = c.body_mask[b[k]] | (a[k] >= 0 ? c.body_mask[a[k]] : 0);
    int col = kOverflow;
    if (taken != ~std::uint64_t{0}) {
      col = std::countr_one(taken);
      const std::uint64_t bit = std::uint64_t{1} << col;
      c.body_mask[b[k]] |= bit;
      if (a[k] >= 0) c.body_mask[a[k]] |= bit;
      used = std::max(used, col + 1);
    } else {
      overflow = true;
    }
    c.colour[k] = col;
  }
  const int colours = overflow ? used + 1 : used;
  c.last_is_overflow = overflow;
  c.colour_start.assign(colours + 1, 0);
  for (int k = 0; k < n; ++k) ++c.colour_start[(c.colour[k] == kOverflow ? used : c.colour[k]) + 1];
  for (int k = 0; k < colours; ++k) c.colour_start[k + 1] += c.colour_start[k];
  for (int k = 0; k < n; ++k) {
    const int col = c.colour[k] == kOverflow ? used : c.colour[k];
    c.slot[k] = c.colour_start[col]++;
  }
  for (int k = colours; k > 0; --k) c.colour_start[k] = c.colour_start[k - 1];
  c.colour_start[0] = 0;
}

}  // namespace talus::matrixfree
