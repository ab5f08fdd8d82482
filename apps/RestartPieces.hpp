#pragma once
// A partitioned run's restart archive, written in pieces by its processes (issue 15 item 4; the layout and how it
// reads back: apps/LargePathRestart.hpp, ArchivePieces). No process gathers the model: each writes its own beads
// and its share of the warm start to restart_sSTEP_pK.h5 in the run's folder, then process 0 writes the index,
// restart.h5, which names them. The order keeps a killed run restartable: the pieces of step n are complete before
// the index of step n replaces that of the step before, and each process removes its piece of the earlier archive
// only once the new index is in place. A process that cannot write its piece (or process 0 its index) fails every
// process's call with the same message, the earlier archive left as it was.
#include <filesystem>
#include <string>
#include <vector>

#include "apps/LargePathRestart.hpp"
#include "apps/ModelPartition.hpp"

namespace talus::app {

struct PiecedRestart {
  std::filesystem::path dir;  // the run's folder (process 0's): every process writes its piece there
  int rank = 0, ranks = 1;
  std::string last_piece;     // this process's piece of the archive in place (removed after the next one)
};

// Collective. `local`: this process's model (own beads first, PartitionedModel::own_beads()); `warm`: its stepper's
// warm starts (stepper_archive): the contacts' cache, and generalized-α's position cache and the rolling cache where
// the run has them (null: it has not, on every process alike). Returns on process 0 the files of the archive (the
// index, then the pieces), relative to dir.
std::vector<std::string> write_pieced_restart(PiecedRestart& state, ModelPartition& part, const talus::Model& local,
                                              const StepperArchive& warm, const RunCounters& counters,
                                              const ArchiveHeader& header, double h);

}  // namespace talus::app
