#pragma once
// The sweep loop of the solves spread over processes (DistributedNsgs.cpp: the whole model on every process;
// InterfaceNsgs.cpp: a partitioned model). Each solve says how its contacts are visited; the loop is the
// one-process rule (solvers/matrixfree/SweepSchedule.hpp) with Anderson acceleration (AndersonSweep.hpp) over this
// process's contacts, its Gram entries summed over the processes so that every process takes the same γ.
//   pass(backward, f, f2, parallel)  this process's contacts in sweep order, f(contact, slot), with the exchanges
//                                the sweep needs (parallel: its threads may share the interior contacts); where
//                                two contacts share no bead it may call f2(contact, slot, contact, slot) instead of
//                                f twice (the kernels' side-by-side forms: the same bits, MatrixFreeNsgs.hpp)
//   for_mine(g)                  the same contacts in a fixed order, g(contact, slot), without exchanges
//   residual()                   the common residual (collective)
//   reduce(local, n, total)      sums over the processes, the same bits on every one (collective)
// `slots` bounds the slots; `history` is the Anderson records' storage, reused from solve to solve. With `rolling`
// (one record per contact) each contact's rolling rows are updated right after its Coulomb rows, as the one-process
// sweep does (the caller keeps Anderson off then, like the one-process solve).
#include <mpi.h>

#include <algorithm>
#include <type_traits>
#include <vector>

#include "solvers/distributed/SolveTimes.hpp"
#include "solvers/distributed/VelocityMessages.hpp"
#include "solvers/matrixfree/AndersonSweep.hpp"
#include "solvers/matrixfree/MatrixFreeNsgs.hpp"
#include "solvers/matrixfree/RollingResistance.hpp"
#include "solvers/matrixfree/SweepSchedule.hpp"

namespace talus::distributed {

template <class Pass, class ForMine, class Residual, class Reduce>
matrixfree::SweepSchedule spread_sweeps(std::vector<matrixfree::SweepContact>& contacts,
                                        const matrixfree::BodyArrays& bodies, const matrixfree::MatrixFreeParameters& p,
                                        bool anderson, bool nothing_to_solve, std::size_t slots,
                                        std::vector<Eigen::Vector3d>& history, SolveTimes& times, Pass&& pass,
                                        ForMine&& for_mine, Residual&& residual, Reduce&& reduce,
                                        matrixfree::RollingContact* rolling = nullptr) {
  matrixfree::AndersonWorkspace aw;
  const int m = std::clamp(p.anderson, 1, matrixfree::AndersonWorkspace::kMaxMemory);
  const std::size_t stride = matrixfree::AndersonWorkspace::stride(m);
  if (anderson) {
    aw.memory = m;
    history.resize(slots * stride);
    for_mine([&](int i, int j) { history[j * stride] = contacts[i].r; });
  }
  auto anderson_step = [&] {
    double s = MPI_Wtime();
    const bool record = aw.has_last;
    const int slot = aw.next, columns = record ? std::min(aw.stored + 1, m) : 0;
    double local[2 * matrixfree::AndersonWorkspace::kMaxMemory] = {};
    for_mine([&](int i, int j) {
      matrixfree::anderson_record(&history[j * stride], contacts[i].r, m, record, slot, columns, local);
    });
    times.sweep += lap(s);
    double sums[2 * matrixfree::AndersonWorkspace::kMaxMemory] = {};
    reduce(local, 2 * m, sums);
    times.reduce += lap(s);
    matrixfree::anderson_coefficients(aw, sums, record, slot, columns);
    if (aw.extrapolate)
      pass(
          false, [&](int i, int j) { matrixfree::anderson_move(contacts[i], &history[j * stride], aw, bodies); },
          [&](int i, int si, int j, int sj) {
            matrixfree::anderson_move_pair(contacts[i], &history[si * stride], contacts[j], &history[sj * stride], aw,
                                           bodies);
          },
          false);
    else
      for_mine([&](int i, int j) { history[j * stride] = contacts[i].r; });
  };
  matrixfree::SweepSchedule sc(p, anderson);  // the one-process solve's stopping rule
  if (nothing_to_solve) sc.residual = 0.0, sc.done = true;
  auto check = [&] { sc.checked(residual(), p, aw); };
  if (p.check_first && !sc.done) check();
  while (!sc.done) {
    const bool backward = p.symmetric && sc.sweeps % 2 == 1;
    // Two contacts that share no bead: both Coulomb updates side by side, then both rolling updates.
    auto rolling_pair = [&](auto relaxed, double omega) {
      return [&, omega](int i, int, int j, int) {
        matrixfree::sweep_update_pair<decltype(relaxed)::value>(contacts[i], contacts[j], bodies, omega);
        matrixfree::rolling_update(contacts[i], rolling[i], bodies), matrixfree::rolling_update(contacts[j], rolling[j], bodies);
      };
    };
    if (rolling && p.relaxation != 1.0) {
      pass(backward, [&](int i, int) {
        matrixfree::sweep_update<true>(contacts[i], bodies, p.relaxation);
        matrixfree::rolling_update(contacts[i], rolling[i], bodies);
      }, rolling_pair(std::true_type{}, p.relaxation), true);
    } else if (rolling) {
      pass(backward, [&](int i, int) {
        matrixfree::sweep_update<false>(contacts[i], bodies, 1.0);
        matrixfree::rolling_update(contacts[i], rolling[i], bodies);
      }, rolling_pair(std::false_type{}, 1.0), true);
    } else if (p.relaxation != 1.0) {
      pass(
          backward, [&](int i, int) { matrixfree::sweep_update<true>(contacts[i], bodies, p.relaxation); },
          [&](int i, int, int j, int) {
            matrixfree::sweep_update_pair<true>(contacts[i], contacts[j], bodies, p.relaxation);
          },
          true);
    } else {
      pass(
          backward, [&](int i, int) { matrixfree::sweep_update<false>(contacts[i], bodies, 1.0); },
          [&](int i, int, int j, int) { matrixfree::sweep_update_pair<false>(contacts[i], contacts[j], bodies, 1.0); },
          true);
    }
    ++sc.sweeps;
    if (sc.extrapolate_now(p)) anderson_step();
    if (sc.check_due()) check();
  }
  times.sweeps += sc.sweeps;
  return sc;
}

}  // namespace talus::distributed
