#pragma once
// The order in which the matrix-free Gauss–Seidel visits the bead contacts (issue 4 item 3; STYLE.md
// practice 4, with spatial blocks in place of a whole-domain colouring). The beads, kept along a Morton curve
// (SpaceFillingCurve.hpp), are cut into P contiguous index ranges — compact blocks of space. A contact whose
// beads lie in one block (a wall contact counts for its bead's block) is *interior*: the blocks' interior
// contacts share no bead, so each block is swept sequentially, by one thread, in detection order (cell by cell,
// bottom to top), with its beads in cache. The few contacts between two blocks form the *interface*, coloured
// on bodies (BodyColouring.hpp) and swept colour by colour after the blocks.
//
// Why not colour every contact (the first version): a colour is a scattered subset of the whole domain, so
// every sweep streamed the bead arrays once per colour (~12 colours) and propagated a column's weight only by
// colour order; a block sweep reads each bead from cache a few times per sweep and visits a column in order.
// default_partitions depends on the bead count only, so with it (or a fixed P) the result is the same for any
// thread count; automatic_partitions gives each thread two blocks, at the price of bits that follow the thread
// count where that is more than the default.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "solvers/matrixfree/BodyColouring.hpp"

namespace talus::matrixfree {

struct SweepLayout {
  int partitions = 1;
  std::vector<std::int32_t> part_start;  // partitions + 1 offsets of the blocks' interior contacts
  ContactColours interface;              // interface contacts; colour_start is relative to interface_begin()
  std::vector<std::int32_t> slot;        // per detected contact: its position in sweep order
  std::vector<std::int32_t> scratch_a, scratch_b, scratch_index;

  int interface_begin() const { return part_start.empty() ? 0 : part_start.back(); }
  int interface_colours() const { return interface.colour_start.empty() ? 0 : interface.colours(); }
};

// The default block count: a power of two with at least ~4096 beads per block (interface contacts stay a few
// percent), at most 256, and at least two from 2 × kMinBlockBeads beads on, so that one thread walks two
// independent blocks side by side (for_blocks: the sweep's updates overlap, 1.2–1.4× faster per sweep).
// The automatic block count (`partitions: 0`): two blocks per thread, a power of two, each of at least
// kMinBlockBeads beads, and never fewer than default_partitions. A 1 500-bead pile is then swept in two blocks on
// one or two threads (the same bits), a 10⁴-bead one in four on two threads.
constexpr int kMinBlockBeads = 512;
int default_partitions(int beads);
int automatic_partitions(int beads, int threads);

// Inside a parallel region (or alone): the blocks' interior contacts, each block in its order (reversed when
// `backward`), the blocks shared among the threads. one(i) visits contact i; two(i, j) visits two contacts of
// different blocks, which share no bead, as one(i) then one(j) would (the kernels update both side by side:
// MatrixFreeNsgs.hpp, sweep_update_pair). Where there are at least two blocks per thread, a thread takes blocks
// two at a time and walks them together; the result is that of one block after the other, to the bit, since the
// blocks are independent: more blocks per thread change how many updates are in flight, not the result.
template <class One, class Two>
void for_blocks(const SweepLayout& L, bool backward, One&& one, Two&& two) {
  const int P = L.partitions;
  auto walk = [&](int s, int e) {
    if (backward)
      for (int i = e - 1; i >= s; --i) one(i);
    else
      for (int i = s; i < e; ++i) one(i);
  };
  if (P < 2 * omp_get_num_threads()) {
#pragma omp for schedule(dynamic, 1)
    for (int q = 0; q < P; ++q) walk(L.part_start[q], L.part_start[q + 1]);
    return;
  }
#pragma omp for schedule(dynamic, 1)
  for (int j = 0; j < (P + 1) / 2; ++j) {
    const int q = 2 * j;
    if (q + 1 == P) {
      walk(L.part_start[q], L.part_start[q + 1]);
      continue;
    }
    const int s0 = L.part_start[q], e0 = L.part_start[q + 1], s1 = e0, e1 = L.part_start[q + 2];
    const int n = std::min(e0 - s0, e1 - s1);
    if (backward) {
      for (int k = 1; k <= n; ++k) two(e0 - k, e1 - k);
      walk(s0, e0 - n), walk(s1, e1 - n);
    } else {
      for (int k = 0; k < n; ++k) two(s0 + k, s1 + k);
      walk(s0 + n, e0), walk(s1 + n, e1);
    }
  }
}

// Contacts k = 0..n-1 between beads a[k] (−1 for a wall) and b[k], of `bodies` beads cut into `partitions`
// index ranges (partitions >= 1). Keeps the detection order inside each block.
void build_sweep_layout(const std::int32_t* a, const std::int32_t* b, int n, int bodies, int partitions,
                        SweepLayout& layout);

}  // namespace talus::matrixfree
