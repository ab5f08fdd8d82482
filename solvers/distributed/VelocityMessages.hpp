#pragma once
// The bodies' velocities as the spread solves send them (DistributedNsgs.cpp, InterfaceNsgs.cpp): v and ω, six
// values a body, in the order of a list of bodies; and the wall-clock lap both time their phases with.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "solvers/matrixfree/BodyArrays.hpp"

namespace talus::distributed {

constexpr int kValuesPerBody = 6;  // v and ω

// out = the velocities of `list`, in its order (resized to kValuesPerBody values a body).
inline void pack_velocities(const std::vector<std::int32_t>& list, const matrixfree::BodyArrays& bodies,
                            std::vector<double>& out) {
  out.resize(kValuesPerBody * list.size());
  double* o = out.data();
  for (const std::int32_t i : list) {
    for (int d = 0; d < 3; ++d) o[d] = bodies.v[i][d], o[3 + d] = bodies.w[i][d];
    o += kValuesPerBody;
  }
}

// The velocities of `list` from `in`, as pack_velocities wrote them.
inline void unpack_velocities(const std::vector<std::int32_t>& list, const double* in,
                              const matrixfree::BodyArrays& bodies) {
  for (const std::int32_t i : list) {
    for (int d = 0; d < 3; ++d) bodies.v[i][d] = in[d], bodies.w[i][d] = in[3 + d];
    in += kValuesPerBody;
  }
}

// Wall-clock seconds since t (MPI_Wtime), then t = now.
inline double lap(double& t) {
  const double now = MPI_Wtime(), d = now - t;
  t = now;
  return d;
}

}  // namespace talus::distributed
