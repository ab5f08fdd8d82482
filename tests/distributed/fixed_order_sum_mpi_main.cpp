// Run by ctest under mpirun with 1, 2, 3 and 4 ranks (tests/CMakeLists.txt; issue 15, reductions at scale):
// solvers/distributed/FixedOrderSum.hpp adds the ranks' sums by a fixed binary tree. Checked on sums whose last
// bits depend on the order of the additions (terms of 1e16 beside terms of 1):
// - every rank gets the same bits;
// - they are the bits of the same tree computed in one process (fixed_order_sum_of), call after call;
// - with two ranks, the rank-order sum a + b;
// - total may alias local, and n = 0 is a no-op.
// Prints what failed and exits 1; rank 0 prints a summary.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "solvers/distributed/FixedOrderSum.hpp"
#include "tests/distributed/MpiTestReport.hpp"

using namespace talus::distributed;
using namespace talus::mpitest;

namespace {

// Rank r's value of entry j in round k: ranks 0 and 2 give nearly opposite terms of order 1e16, the others terms
// of order 1, so that the order of the additions shows in the bits ((1e16 + 1) − 1e16 is 0, (1e16 − 1e16) + 1 is 1).
double value(int round, int r, int j) {
  std::mt19937_64 shared(0x5eedull + 1000003ull * round + j), own(0xfaceull + 1000003ull * round + 1009ull * r + j);
  std::uniform_real_distribution<double> u(1.0, 2.0);
  const double big = 1e16 * u(shared), small = u(own);
  if (r % 4 == 0) return big;
  if (r % 4 == 2) return -big + (static_cast<double>(round % 5) - 2.0);
  return small;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::vector<double> scratch;
  const int n = 5, rounds = 200;
  int order_visible = 0;  // rounds where the rank-order sum differs from the tree's (R >= 3)
  for (int round = 0; round < rounds; ++round) {
    std::vector<double> local(n), total(n);
    for (int j = 0; j < n; ++j) local[j] = value(round, rank, j);
    fixed_order_sum(MPI_COMM_WORLD, local.data(), n, total.data(), scratch);
    // The same bits on every rank.
    std::vector<double> all(static_cast<std::size_t>(n) * ranks);
    MPI_Allgather(total.data(), n, MPI_DOUBLE, all.data(), n, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int r = 0; r < ranks; ++r)
      if (std::memcmp(all.data() + static_cast<std::size_t>(r) * n, total.data(), sizeof(double) * n) != 0)
        fail("round " + std::to_string(round) + ": rank " + std::to_string(r) + " got other bits");
    for (int j = 0; j < n; ++j) {
      std::vector<double> values(ranks);
      double in_rank_order = 0.0;
      for (int r = 0; r < ranks; ++r) values[r] = value(round, r, j), in_rank_order += values[r];
      const double tree = fixed_order_sum_of(values);
      if (std::memcmp(&tree, &total[j], sizeof(double)) != 0)
        fail("round " + std::to_string(round) + " entry " + std::to_string(j) + ": not the tree's sum");
      if (ranks <= 2 && std::memcmp(&in_rank_order, &total[j], sizeof(double)) != 0)
        fail("round " + std::to_string(round) + ": two ranks' sum is not a + b");
      order_visible += std::memcmp(&in_rank_order, &tree, sizeof(double)) != 0;
    }
    // In place.
    std::vector<double> inplace = local;
    fixed_order_sum(MPI_COMM_WORLD, inplace.data(), n, inplace.data(), scratch);
    if (std::memcmp(inplace.data(), total.data(), sizeof(double) * n) != 0) fail("in place: other bits");
  }
  double nothing = 42.0;
  fixed_order_sum(MPI_COMM_WORLD, &nothing, 0, &nothing, scratch);
  if (nothing != 42.0) fail("n = 0 wrote something");
  // With three or four ranks the test's sums are order-sensitive: the tree's bits are not the rank-order ones.
  if (ranks >= 3 && order_visible == 0) fail("no sum showed the order of its additions: the test cannot fail");
  int all_failures = 0;
  MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("fixed_order_sum, %d ranks: %d rounds of %d sums, every rank the tree's bits (%d sums differ from the "
                "rank-order sum); %d failures\n",
                ranks, rounds, n, order_visible, all_failures);
  MPI_Finalize();
  return all_failures == 0 ? 0 : 1;
}
