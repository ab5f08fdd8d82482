#pragma once
// Where a process's time went in its spread solves since the last reset (MPI_Wtime seconds) and what it sent:
// DistributedNsgs.hpp and InterfaceNsgs.hpp fill it, bench/mpi_scaling and `talus run` report it.
#include <cstdint>

namespace talus::distributed {

// Where a rank's time went in its solves since the last reset (MPI_Wtime seconds) and what it sent.
struct SolveTimes {
  double sweep = 0.0;     // contact updates and Anderson passes
  double exchange = 0.0;  // halo and colour exchanges (packing, waiting, unpacking)
  double reduce = 0.0;    // residual and Gram sums
  double gather = 0.0;    // the solution gathered to every rank
  double plan = 0.0;      // building the rank plan
  std::int64_t bytes_sent = 0, messages = 0, sweeps = 0, solves = 0;
  std::int64_t interface_contacts = 0, contacts = 0;  // summed over solves
};

}  // namespace talus::distributed
