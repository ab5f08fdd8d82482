#pragma once
// What an MPI test main (tests/distributed/*_mpi_main.cpp) reports: this rank's place and its failures, each
// printed with the rank as it is found; main sums them over the ranks and exits 1 when any rank failed.
#include <cstdio>
#include <string>

namespace talus::mpitest {

inline int failures = 0;
inline int rank = 0, ranks = 1;

inline void fail(const std::string& what) {
  std::printf("rank %d of %d: FAILED: %s\n", rank, ranks, what.c_str());
  ++failures;
}

}  // namespace talus::mpitest
