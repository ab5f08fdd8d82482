#pragma once
// One of `count` pieces of a ParaView frame written by as many processes (issue 15, `mpirun`; FrameSeries.hpp):
// piece k holds the items [k n / count, (k + 1) n / count) of the n a whole frame holds, and a .pvtp index
// (GranularOutput.hpp write_pvtp) names the pieces. A partitioned model (ModelPartition.hpp) writes instead each
// process's own beads (own >= 0: the first `own` of its store; the others are copies of other processes' beads)
// and the contacts it counts.

namespace talus::app {

struct FramePiece {
  int index = 0, count = 1;
  int own = -1;  // >= 0: a partitioned model's piece, this process's own beads [0, own)
  int begin(int n) const { return static_cast<int>(static_cast<long>(n) * index / count); }
  int end(int n) const { return static_cast<int>(static_cast<long>(n) * (index + 1) / count); }
};

}  // namespace talus::app
