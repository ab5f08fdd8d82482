#include "solvers/distributed/FixedOrderSum.hpp"

#include <algorithm>

namespace talus::distributed {

namespace {

int largest_power_of_two_at_most(int r) {
  int p = 1;
  while (2 * p <= r) p *= 2;
  return p;
}

constexpr int kTag = 7351;

}  // namespace

void fixed_order_sum(MPI_Comm comm, const double* local, int n, double* total, std::vector<double>& scratch) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (total != local) std::copy(local, local + n, total);
  if (size == 1 || n == 0) return;
  scratch.resize(static_cast<std::size_t>(n));
  const int P = largest_power_of_two_at_most(size);
  // Fold: rank P + k hands its sums to rank k, which adds them after its own.
  if (rank >= P) {
    MPI_Send(total, n, MPI_DOUBLE, rank - P, kTag, comm);
  } else if (rank + P < size) {
    MPI_Recv(scratch.data(), n, MPI_DOUBLE, rank + P, kTag, comm, MPI_STATUS_IGNORE);
    for (int j = 0; j < n; ++j) total[j] = total[j] + scratch[j];
  }
  // Butterfly among ranks 0..P−1: the lower rank's partial sum first, on both sides of each pair.
  if (rank < P)
    for (int step = 1; step < P; step *= 2) {
      const int partner = rank ^ step;
      MPI_Sendrecv(total, n, MPI_DOUBLE, partner, kTag + step, scratch.data(), n, MPI_DOUBLE, partner, kTag + step, comm,
                   MPI_STATUS_IGNORE);
      for (int j = 0; j < n; ++j) total[j] = rank < partner ? total[j] + scratch[j] : scratch[j] + total[j];
    }
  // Unfold: the total back to the ranks that handed their sums in.
  if (rank >= P)
    MPI_Recv(total, n, MPI_DOUBLE, rank - P, kTag + 1 + P, comm, MPI_STATUS_IGNORE);
  else if (rank + P < size)
    MPI_Send(total, n, MPI_DOUBLE, rank + P, kTag + 1 + P, comm);
}

double fixed_order_sum_of(const std::vector<double>& values) {
  const int size = static_cast<int>(values.size());
  if (size == 0) return 0.0;
  const int P = largest_power_of_two_at_most(size);
  std::vector<double> s(values.begin(), values.begin() + P);
  for (int k = 0; P + k < size; ++k) s[k] = s[k] + values[P + k];
  // The butterfly's pairs add the lower rank's sum first: a pairwise tree over 0..P−1.
  for (int step = 1; step < P; step *= 2)
    for (int r = 0; r < P; r += 2 * step) s[r] = s[r] + s[r + step];
  return s[0];
}

}  // namespace talus::distributed
