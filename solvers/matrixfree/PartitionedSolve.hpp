#pragma once
// The seam through which a granular step hands its bead contacts' solve to a solver spread over processes
// (issue 15: solvers/distributed/DistributedNsgs.hpp over MPI). The engine knows only this interface, so it
// builds and runs without MPI; one virtual call per solve, none per contact.
//
// Two kinds of implementation:
// - a model every process holds whole (DistributedNsgs.hpp): the same contract as solve_matrix_free
//   (MatrixFreeNsgs.hpp). On entry the bodies' velocities already include the contacts' warm-start impulses,
//   identically on every process; on exit every process holds the end-of-step velocities of every body and the
//   impulses of every contact, the same bits on all of them, and the same statistics;
// - a partitioned model (InterfaceNsgs.hpp, engine/distributed/BeadDomain.hpp): each process holds its own beads
//   and copies of the others' beads near them (ghosts). On exit each process holds the end-of-step velocities of
//   its own beads and the impulses of every contact touching one of them; the statistics (sweeps, residual) are
//   the same on every process. The two hooks below make the step's activation margin and the residual's scale
//   those of the whole model.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "solvers/core/SolverStats.hpp"
#include "solvers/matrixfree/BodyArrays.hpp"
#include "solvers/matrixfree/MatrixFreeNsgs.hpp"
#include "solvers/matrixfree/MultilevelNsgs.hpp"
#include "solvers/matrixfree/RollingResistance.hpp"
#include "solvers/matrixfree/SweepContact.hpp"
#include "solvers/matrixfree/SweepPartition.hpp"

namespace talus::matrixfree {

class PartitionedSolve {
 public:
  virtual ~PartitionedSolve() = default;
  // Processes taking part.
  virtual int ranks() const = 0;
  // The stepper cuts the beads into at least this many sweep blocks (a whole model: one per process at least).
  virtual int min_sweep_blocks() const { return ranks(); }
  // The step's activation margin, the same on every process (a partitioned model: the largest over the
  // processes, so that two processes find the same contacts between their beads and their copies of each other's).
  virtual double common_margin(double local) { return local; }
  // ‖q‖ of the step's free contact velocities (the residual's scale, FrictionContactProblem.hpp), from this
  // process's value over its contacts (`local`): a partitioned model counts each contact once over the processes.
  // Called after the free velocities are set and before the warm start is applied. `own_general_squared`: Σ‖u‖²
  // of this process's contacts of other shapes (where spreads_general(): each held by one process only).
  virtual double contact_velocity_norm(const std::vector<SweepContact>& contacts, const BodyArrays& bodies,
                                       double local, double own_general_squared = 0.0) {
    (void)contacts, (void)bodies, (void)own_general_squared;
    return local;
  }
  // Whether solve() takes contacts of other shapes (`general`: a bead against a drum or a moving mesh), each held by
  // the process that owns its bead (a partitioned model); a whole model solves those steps on every process alike.
  virtual bool spreads_general() const { return false; }
  // Collective: whether `local` holds on some process (a whole model: as given, the same on every process).
  virtual bool any_over_processes(bool local) { return local; }
  // Whether contact i of the last solve is this process's to report (the loads it puts on obstacles, say): every
  // contact of a whole model; in a partitioned model, each contact on one process only.
  virtual bool counts_contact(int i) const {
    (void)i;
    return true;
  }
  // Whether solve() takes the contacts' rolling resistance rows (a partitioned model: it must, since no process
  // holds the whole model; a whole model solves those steps on every process alike instead).
  virtual bool spreads_rolling() const { return false; }
  // Beads [0, own_spheres(n)) of this process's n are its own (a partitioned model: the ghosts follow them).
  virtual int own_spheres(int spheres) const { return spheres; }
  // Collective, in place: the largest `value` over the processes and the `tag` the process holding it gave (the
  // lowest such process), the same on every process. A whole model: as given.
  virtual void largest_over_processes(double& value, std::int64_t& tag) { (void)value, (void)tag; }
  // Collective, in place: values[0..n) summed over the processes, the same bits on every process. A whole model:
  // as given (every process holds every contact).
  virtual void sum_over_processes(double* values, int n) { (void)values, (void)n; }
  // Plain sweeps (p.anderson = 0) or Anderson-accelerated ones; relaxation and symmetric sweeps as in
  // MatrixFreeParameters. With `rolling` (one record per contact, RollingResistance.hpp; only where
  // spreads_rolling()) each contact's rolling rows are solved right after its Coulomb rows, as the one-process
  // sweep does, and Anderson is off. NNCG, capsules and joints are not spread (the stepper solves those steps on
  // every process alike).
  // `general` (only where spreads_general()): this process's contacts of other shapes, swept after its interior
  // contacts in every sweep and counted in the residual; Anderson is then off on every process, as in the
  // one-process solve.
  virtual solvers::SolverStats solve(std::vector<SweepContact>& contacts, const SweepLayout& layout,
                                     const BodyArrays& bodies, double q_norm, const MatrixFreeParameters& p,
                                     RollingContacts* rolling, GeneralContactSweep* general = nullptr) = 0;
  // Whether solve_multilevel() spreads the multilevel solver (MultilevelNsgs.hpp) over the processes (a whole model
  // does not: every process runs it alike).
  virtual bool spreads_multilevel() const { return false; }
  // The multilevel solve of a partitioned model: builds the aggregate levels of this process's beads from the step's
  // contacts (gaps[k]: contact k's gap at the start of the step) and solves like solve_multilevel, its fine sweeps
  // and residual those of solve(), its coarsest level gathered from every process. Entry and exit as solve().
  virtual solvers::SolverStats solve_multilevel(std::vector<SweepContact>& contacts, const SweepLayout& layout,
                                                const BodyArrays& bodies, double q_norm,
                                                const MatrixFreeParameters& fine, const MultilevelParameters& params,
                                                MultilevelWorkspace& work, const double* gaps) {
    (void)contacts, (void)layout, (void)bodies, (void)q_norm, (void)fine, (void)params, (void)work, (void)gaps;
    throw std::logic_error("this model does not spread the multilevel solve (spreads_multilevel() is false)");
  }
};

}  // namespace talus::matrixfree
