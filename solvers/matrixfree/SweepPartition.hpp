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
// thread count; automatic_partitions gives each thread a block from 1 024 beads on (below ~8 000 beads the default
// is one block, and a second thread would have nothing to sweep), at the price of bits that follow the thread count.
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

// The default block count: a power of two (so that for 2^k threads the blocks split evenly) with at least
// ~4096 beads per block (interface contacts stay a few percent), at most 256.
int default_partitions(int beads);
// The block count of `partitions: 0` (automatic): default_partitions, raised to the largest power of two not above
// `threads` that leaves each block kMinBlockBeads beads. A 1 500-bead pile on two threads is then swept in two
// blocks (docs/granular.md, "Determinism": 1.4–1.6× faster than one thread on the README run, where one block
// gained nothing); one thread, or fewer than 2 × kMinBlockBeads beads, keeps default_partitions.
constexpr int kMinBlockBeads = 512;
int automatic_partitions(int beads, int threads);

// Contacts k = 0..n-1 between beads a[k] (−1 for a wall) and b[k], of `bodies` beads cut into `partitions`
// index ranges (partitions >= 1). Keeps the detection order inside each block.
void build_sweep_layout(const std::int32_t* a, const std::int32_t* b, int n, int bodies, int partitions,
                        SweepLayout& layout);

}  // namespace talus::matrixfree
