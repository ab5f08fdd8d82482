#pragma once
// Who sweeps which contacts, and which bodies' velocities travel between processes, when the matrix-free
// Gauss–Seidel sweep (solvers/matrixfree/MatrixFreeNsgs.hpp) is spread over R processes (issue 15 item 2).
//
// The sweep's own decomposition is reused: the beads, kept along a Morton curve, are cut into P ≥ R blocks of
// contiguous indices (SweepPartition.hpp), each block's interior contacts share no bead with another block's,
// and the contacts between blocks (the interface) are coloured on bodies. A rank is given a contiguous range of
// blocks, balanced by their contact counts; it owns their beads and sweeps their interior contacts. An interface
// contact is swept by the rank owning its second bead (the overflow colour, whose contacts may share beads and
// are swept in order, by rank 0). So every contact is updated from the same velocities, in the same order, as in
// the one-process sweep, and the reactions are the same bits for any R with the same blocks.
//
// What makes that hold is one invariant: between two phases of a sweep, every copy of a body's velocity that a
// rank may read is current. A rank reads the bodies it owns and, for the interface contacts it sweeps, their
// other bodies; those ranks are the body's *holders*. The phases are the interior sweep, after which each owner
// sends its interface bodies to their other holders (the halo), and each interface colour, after which each
// rank sends the bodies its contacts of that colour moved to their other holders. The plan lists, per phase,
// what this rank sends to and receives from whom; every rank derives it from the same layout, so no message
// negotiates it.
#include <cstdint>
#include <vector>

#include "solvers/matrixfree/SweepContact.hpp"
#include "solvers/matrixfree/SweepPartition.hpp"

namespace talus::distributed {

struct RankLink {
  int rank = 0;                        // the other process
  std::vector<std::int32_t> bodies;    // bodies whose velocities go (or come) in this order
};

struct RankPlan {
  int rank = 0, ranks = 1;
  std::vector<int> block_begin;            // ranks + 1: rank r sweeps blocks [block_begin[r], block_begin[r + 1])
  std::vector<std::int32_t> body_begin;    // ranks + 1: rank r owns beads [body_begin[r], body_begin[r + 1])
  std::vector<std::int32_t> contact_begin; // ranks + 1: rank r's interior contacts (sweep order) [.., ..)
  std::vector<std::int8_t> solver;         // per interface contact (sweep order from interface_begin): its rank
  std::vector<std::int32_t> mine;          // this rank's interface contacts, colour by colour, in sweep order
  std::vector<std::int32_t> mine_start;    // colours + 1 offsets into `mine`
  // Per phase: 0 after the interior sweep, k + 1 after interface colour k.
  std::vector<std::vector<RankLink>> send, recv;
  std::vector<std::pair<std::int32_t, std::int8_t>> holders;  // scratch: (body, rank) beyond the owner, sorted

  int phases() const { return static_cast<int>(send.size()); }
  int owner_of_body(std::int32_t body) const;  // binary search in body_begin
  std::int64_t interface_contacts() const { return static_cast<std::int64_t>(solver.size()); }
};

// The plan of `rank` among `ranks` for the contacts (in sweep order) of `layout`, over `bodies` beads.
// Throws std::invalid_argument for more than 127 ranks (the solver field is one byte).
void build_rank_plan(const std::vector<matrixfree::SweepContact>& contacts, const matrixfree::SweepLayout& layout,
                     int bodies, int ranks, int rank, RankPlan& plan);

}  // namespace talus::distributed
