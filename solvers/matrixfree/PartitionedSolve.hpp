#pragma once
// The seam through which a granular step hands its bead contacts' solve to a solver spread over processes
// (issue 15: solvers/distributed/DistributedNsgs.hpp over MPI). The engine knows only this interface, so it
// builds and runs without MPI; one virtual call per solve, none per contact.
//
// Contract: the same as solve_matrix_free (MatrixFreeNsgs.hpp) on a model every process holds whole: on entry
// the bodies' velocities already include the contacts' warm-start impulses, identically on every process; on
// exit every process holds the end-of-step velocities of every body and the impulses of every contact, the same
// bits on all of them, and the same statistics.
#include <vector>

#include "solvers/core/SolverStats.hpp"
#include "solvers/matrixfree/BodyArrays.hpp"
#include "solvers/matrixfree/MatrixFreeNsgs.hpp"
#include "solvers/matrixfree/SweepContact.hpp"
#include "solvers/matrixfree/SweepPartition.hpp"

namespace talus::matrixfree {

class PartitionedSolve {
 public:
  virtual ~PartitionedSolve() = default;
  // Processes taking part; the stepper cuts the beads into at least this many sweep blocks.
  virtual int ranks() const = 0;
  // Plain sweeps (p.anderson = 0) or Anderson-accelerated ones; relaxation and symmetric sweeps as in
  // MatrixFreeParameters. NNCG, capsules, joints and rolling resistance are not spread (the stepper solves
  // those steps on every process alike).
  virtual solvers::SolverStats solve(std::vector<SweepContact>& contacts, const SweepLayout& layout,
                                     const BodyArrays& bodies, double q_norm, const MatrixFreeParameters& p) = 0;
};

}  // namespace talus::matrixfree
