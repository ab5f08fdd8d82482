#pragma once
// One of `count` pieces of a ParaView frame written by as many processes (issue 15, `mpirun`; FrameSeries.hpp):
// piece k holds the items [k n / count, (k + 1) n / count) of the n a whole frame holds, and a .pvtp index
// (GranularOutput.hpp write_pvtp) names the pieces.

namespace talus::app {

struct FramePiece {
  int index = 0, count = 1;
  int begin(int n) const { return static_cast<int>(static_cast<long>(n) * index / count); }
  int end(int n) const { return static_cast<int>(static_cast<long>(n) * (index + 1) / count); }
};

}  // namespace talus::app
