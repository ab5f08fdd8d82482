#pragma once
// `mpirun -np R talus run SCENE` (issue 15): a process started by mpirun (OpenMPI's or MPICH's launcher sets
// OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK) initialises MPI and offers the runner two ways to spread a
// large-path scene: a partitioned model (ModelPartition.hpp: each rank holds its beads and ghosts of its
// neighbours'), or the whole model on every rank with the bead contacts' solve spread (solvers/distributed/
// DistributedNsgs.hpp). Each rank writes its piece of every frame's beads and contacts into the output folder
// (apps/FrameSeries.hpp), rank 0 prints and writes the other outputs, and the other ranks write theirs into a
// scratch folder that is removed afterwards. A talus
// built without MPI, or started without mpirun, runs on one process as before.
#include <filesystem>
#include <memory>
#include <string>

namespace talus::matrixfree {
class PartitionedSolve;
}

namespace talus::app {

class ModelPartition;

class MpiLaunch {
 public:
  MpiLaunch();   // MPI_Init when started by mpirun and built with MPI
  ~MpiLaunch();  // MPI_Finalize; removes the scratch folder
  MpiLaunch(const MpiLaunch&) = delete;
  MpiLaunch& operator=(const MpiLaunch&) = delete;

  bool active() const { return size_ > 0; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  matrixfree::PartitionedSolve* solve() const;
  // The partitioned model of the run (ModelPartition.hpp); null without MPI.
  ModelPartition* partition() const;
  // A folder of this process's own for the outputs ranks > 0 do not keep (created on first call).
  const std::filesystem::path& scratch_folder();
  // Collective: returns when every rank has called it (nothing without MPI).
  void barrier() const;
  // Collective: whether `mine` is true on any rank (mine without MPI).
  bool any(bool mine) const;
  // Collective: the non-empty `mine` of the lowest rank that has one, followed by " (rank K)" (mine without MPI);
  // empty when no rank has one. A failure on some ranks only is thus known to all, and said once by rank 0.
  std::string first_message(const std::string& mine) const;
  // Collective (every rank calls it): where the ranks' solve time went; the text on rank 0, empty elsewhere.
  std::string summary();

 private:
  int rank_ = 0, size_ = 0;  // size 0: not under mpirun
  struct State;
  std::unique_ptr<State> state_;
  std::filesystem::path scratch_;
};

}  // namespace talus::app
