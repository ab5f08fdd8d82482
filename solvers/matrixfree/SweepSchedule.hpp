#pragma once
// When a matrix-free solve evaluates its residual and stops, and Anderson's safeguards, as one rule for the
// one-process sweep (MatrixFreeNsgs.cpp) and the sweeps spread over processes (solvers/distributed/
// DistributedNsgs.cpp, InterfaceNsgs.cpp): the same residuals give the same stopping sweep and the same hand-over
// to plain sweeps whichever solve runs.
#include <algorithm>
#include <cmath>

#include "solvers/matrixfree/AndersonSweep.hpp"
#include "solvers/matrixfree/MatrixFreeNsgs.hpp"

namespace talus::matrixfree {

struct SweepSchedule {
  int sweeps = 0;
  int next_check = 1, last_check = 0;
  double residual = INFINITY, last_residual = INFINITY;
  bool done = false;
  bool anderson = false;  // Anderson still extrapolates

  SweepSchedule(const MatrixFreeParameters& p, bool with_anderson)
      : next_check(std::max(1, p.check_every)), anderson(with_anderson) {}

  // After the residual r was evaluated at `sweeps`: done when it reached the tolerance, the sweep budget is spent
  // or it is not finite. Anderson stops extrapolating for the solve when the warm start is already within
  // p.anderson_warm of the tolerance; a check that did not fall by p.anderson_stall restarts its history
  // (work), and after p.anderson_restarts restarts plain sweeps finish the solve. Then the next check
  // (next_residual_check).
  void checked(double r, const MatrixFreeParameters& p, AndersonWorkspace& work) {
    residual = r;
    done = !(residual > p.tolerance) || sweeps >= p.max_sweeps || !std::isfinite(residual);
    if (anderson && sweeps == 0 && residual <= p.anderson_warm * p.tolerance) anderson = false;
    if (anderson && residual > (1.0 - p.anderson_stall) * last_residual && std::isfinite(last_residual)) {
      anderson_restart(work);
      if (work.restarts >= p.anderson_restarts) anderson = false;
    }
    next_check = next_residual_check(sweeps, last_check, residual, last_residual, p.tolerance,
                                     std::max(1, p.check_every), p.max_sweeps);
    last_check = sweeps, last_residual = residual;
  }
  // After a sweep: whether Anderson extrapolates now, and whether the residual is due.
  bool extrapolate_now(const MatrixFreeParameters& p) const {
    return anderson && sweeps % std::max(1, p.anderson_every) == 0;
  }
  bool check_due() const { return sweeps >= next_check; }
};

}  // namespace talus::matrixfree
