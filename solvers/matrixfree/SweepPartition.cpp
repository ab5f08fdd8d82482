#include "solvers/matrixfree/SweepPartition.hpp"

#include <algorithm>
#include <cassert>

namespace talus::matrixfree {

int default_partitions(int beads) {
  if (beads < 2 * kMinBlockBeads) return 1;
  int p = 2;
  while (p < 256 && static_cast<long>(beads) >= 2L * 4096 * p) p *= 2;
  return p;
}

int automatic_partitions(int beads, int threads) {
  int p = 1;
  while (p < 256 && 2 * p <= 2 * threads && static_cast<long>(beads) >= 2L * kMinBlockBeads * p) p *= 2;
  return std::max(default_partitions(beads), p);
}

void build_sweep_layout(const std::int32_t* a, const std::int32_t* b, int n, int bodies, int partitions,
                        SweepLayout& L) {
  assert(partitions >= 1);
  const int P = std::max(1, std::min(partitions, std::max(bodies, 1)));
  L.partitions = P;
  auto block = [&](std::int32_t i) { return static_cast<int>(static_cast<long>(i) * P / bodies); };
  L.part_start.assign(P + 1, 0);
  L.slot.resize(n);
  L.scratch_a.clear(), L.scratch_b.clear(), L.scratch_index.clear();
  // slot[k] holds the block of an interior contact (counted), or −1 for an interface one, until placed.
  for (int k = 0; k < n; ++k) {
    const int pb = block(b[k]);
    if (a[k] < 0 || block(a[k]) == pb) {
      L.slot[k] = pb;
      ++L.part_start[pb + 1];
    } else {
      L.slot[k] = -1;
      L.scratch_a.push_back(a[k]), L.scratch_b.push_back(b[k]), L.scratch_index.push_back(k);
    }
  }
  for (int p = 0; p < P; ++p) L.part_start[p + 1] += L.part_start[p];
  std::vector<std::int32_t>& fill = L.interface.colour;  // borrowed as a cursor per block, overwritten below
  fill.assign(L.part_start.begin(), L.part_start.end() - 1);
  for (int k = 0; k < n; ++k)
    if (L.slot[k] >= 0) L.slot[k] = fill[L.slot[k]]++;
  const int ni = static_cast<int>(L.scratch_index.size());
  colour_contacts_on_bodies(L.scratch_a.data(), L.scratch_b.data(), ni, bodies, L.interface);
  const int base = L.interface_begin();
  for (int j = 0; j < ni; ++j) L.slot[L.scratch_index[j]] = base + L.interface.slot[j];
}

}  // namespace talus::matrixfree
