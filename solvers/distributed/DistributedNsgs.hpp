#pragma once
// The matrix-free friction-contact solve spread over MPI processes (issue 15 item 2), for bead contacts: each
// rank sweeps the contacts RankPlan.hpp gives it, with the velocity exchanges the plan lists after the interior
// sweep and after each interface colour, so the iterates are those of the one-process sweep (the same bits for
// plain and relaxed sweeps with the same blocks, whatever the rank count). The stopping test is the common
// residual of solvers/core/FrictionContactProblem.hpp: each rank sums its contacts' squared errors, and the sums
// are added over the ranks by a fixed binary tree (FixedOrderSum.hpp: the same value on every rank, and the same
// for a fixed rank count from run to run, in log₂ R rounds). Anderson acceleration (AndersonSweep.hpp) runs on the same plan: each rank keeps the history of its
// own contacts, the Gram entries are reduced like the residual, and every rank takes the same γ.
//
// The model is held whole by every rank (this first stage of issue 15 spreads the solve, where a granular step
// spends 80–99 % of its time): after the solve the owned beads' velocities and the swept contacts' impulses are
// gathered to every rank, which then integrate alike. Ghost bodies, migration and a partitioned model are the
// next stage (docs/distributed.md).
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "solvers/distributed/RankPlan.hpp"
#include "solvers/distributed/SolveTimes.hpp"
#include "solvers/matrixfree/PartitionedSolve.hpp"

namespace talus::distributed {

class DistributedNsgs final : public matrixfree::PartitionedSolve {
 public:
  explicit DistributedNsgs(MPI_Comm comm = MPI_COMM_WORLD);
  int ranks() const override { return size_; }
  int rank() const { return rank_; }
  solvers::SolverStats solve(std::vector<matrixfree::SweepContact>& contacts, const matrixfree::SweepLayout& layout,
                             const matrixfree::BodyArrays& bodies, double q_norm,
                             const matrixfree::MatrixFreeParameters& p, matrixfree::RollingContacts* rolling,
                             matrixfree::GeneralContactSweep* general = nullptr) override;
  const RankPlan& plan() const { return plan_; }
  SolveTimes& times() { return times_; }

 private:
  void exchange(int phase, const matrixfree::BodyArrays& bodies);
  double reduce_sum(double local);
  void reduce_sums(const double* local, int n, double* total);
  void gather(std::vector<matrixfree::SweepContact>& contacts, const matrixfree::SweepLayout& layout,
              const matrixfree::BodyArrays& bodies);

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  RankPlan plan_;
  SolveTimes times_;
  std::vector<std::vector<double>> send_buffers_, recv_buffers_;
  std::vector<MPI_Request> requests_;
  std::vector<double> reduce_scratch_;  // reduce_sums (FixedOrderSum.hpp)
  std::vector<double> pack_, unpack_;
  std::vector<int> counts_, offsets_, interface_count_;
  std::vector<const double*> from_;
  // Anderson, per contact of this rank (interior, then its interface contacts): r_k, f, G and the differences.
  std::vector<Eigen::Vector3d> history_;
  std::vector<std::int32_t> owned_contacts_;
};

}  // namespace talus::distributed
