#pragma once
// The sums every rank needs the same bits of (issue 15 item 2: the residual of the stopping test, Anderson's Gram
// entries), added over the ranks by a fixed binary tree in O(log R) messages (issue 15, "reductions at scale";
// docs/distributed.md). An MPI_Allreduce may add in an order that depends on the transport, so two runs, or two
// ranks, could see different last bits and stop at different sweeps; gathering every rank's partial sums and
// adding them in rank order (the first stage's rule) is exact but sends O(R) values to every rank per call, which
// the cost model of a 10³-rank run cannot afford at a check every few sweeps.
//
// The tree: P = the largest power of two <= R. Ranks P..R−1 first hand their sums to ranks 0..R−P−1 (rank k adds
// rank P + k's after its own); then P ranks exchange in log₂ P rounds, rank r with r xor 2^j, each pair adding
// the lower rank's sum first; then ranks 0..R−P−1 hand the total back. Both ranks of a pair add the same two
// numbers in the same order, so every rank ends with the same bits, and the association depends on R only:
//   R = 2: a + b (the rank-order sum);  R = 4: (a + b) + (c + d);  R = 3: (a + c) + b.
#include <mpi.h>

#include <vector>

namespace talus::distributed {

// total[0..n) = Σ over the ranks of local[0..n), by the tree above (local and total may alias). `scratch` is
// reused storage. Collective: every rank of comm calls it with the same n.
void fixed_order_sum(MPI_Comm comm, const double* local, int n, double* total, std::vector<double>& scratch);

// The same tree's sum of values[0..R) (values[r]: rank r's), computed in one process: what fixed_order_sum gives
// every rank (tests).
double fixed_order_sum_of(const std::vector<double>& values);

}  // namespace talus::distributed
