#include "apps/RestartPieces.hpp"

#include <array>
#include <stdexcept>
#include <system_error>

namespace talus::app {

namespace fs = std::filesystem;

namespace {

// Collective: whether any process failed (its flag), and the failing process's message on that process; the others
// name the first failing process.
void fail_together(ModelPartition& part, int rank, int ranks, const std::string& error, const char* what) {
  std::vector<double> failed(static_cast<std::size_t>(ranks), 0.0);
  failed[rank] = error.empty() ? 0.0 : 1.0;
  part.sum(failed.data(), ranks);
  for (int k = 0; k < ranks; ++k)
    if (failed[k] != 0.0)
      throw std::runtime_error(k == rank ? error
                                         : "restart archive: process " + std::to_string(k) + " could not write " + what +
                                               " (its own message says why); the archive in place is left as it was");
}

}  // namespace

std::vector<std::string> write_pieced_restart(PiecedRestart& st, ModelPartition& part, const talus::Model& local,
                                              const StepperArchive& warm, const RunCounters& counters,
                                              const ArchiveHeader& header, double h) {
  const int own = part.own_beads(), R = st.ranks;
  // Every piece writes /beads/material when one has to (the index maps the same datasets from each).
  double material = 0.0;
  for (int i = 0; i < own; ++i) material = material != 0.0 || local.bodies.material[i] != kBeadMaterial ? 1.0 : 0.0;
  part.max(&material, 1);
  const std::array<const contact::ContactCache*, kOptionalWarmStarts> optional = {warm.position_cache,
                                                                                  warm.rolling_cache};
  CacheContent share;
  std::array<CacheContent, kOptionalWarmStarts> optional_share;
  std::array<const CacheContent*, kOptionalWarmStarts> optional_rows{};
  part.piece_cache(*warm.cache, share.keys, share.impulses);
  for (int j = 0; j < kOptionalWarmStarts; ++j)
    if (optional[j]) {
      part.piece_cache(*optional[j], optional_share[j].keys, optional_share[j].impulses);
      optional_rows[j] = &optional_share[j];
    }
  const std::string name = restart_piece_name(local.step, st.rank);
  std::string error;
  try {
    write_restart_piece(st.dir / name, local, own, share, optional_rows, material != 0.0, header, h);
  } catch (const std::exception& e) {
    error = e.what();
  }
  fail_together(part, st.rank, R, error, "its piece");
  // Every piece is in place: process 0 writes the index over them.
  // Each process's rows of every kind: beads, cache entries, then the optional warm starts' entries.
  constexpr int kKinds = 2 + kOptionalWarmStarts;
  std::vector<double> rows(kKinds * static_cast<std::size_t>(R), 0.0);
  rows[kKinds * st.rank] = own, rows[kKinds * st.rank + 1] = static_cast<double>(share.keys.size());
  for (int j = 0; j < kOptionalWarmStarts; ++j)
    rows[kKinds * st.rank + 2 + j] = static_cast<double>(optional_share[j].keys.size());
  part.sum(rows.data(), kKinds * R);
  std::vector<std::string> files;
  if (st.rank == 0) {
    ArchivePieces pieces;
    pieces.material = material != 0.0;
    for (int j = 0; j < kOptionalWarmStarts; ++j) pieces.optional[j] = optional[j] != nullptr;
    for (int k = 0; k < R; ++k) {
      pieces.files.push_back(restart_piece_name(local.step, k));
      pieces.beads.push_back(static_cast<hsize_t>(rows[kKinds * k]));
      pieces.entries.push_back(static_cast<hsize_t>(rows[kKinds * k + 1]));
      for (int j = 0; j < kOptionalWarmStarts; ++j)
        pieces.optional_entries[j].push_back(static_cast<hsize_t>(rows[kKinds * k + 2 + j]));
    }
    try {
      write_restart(st.dir / kRestartFile, local, nullptr, &counters, &header, h, &pieces);
    } catch (const std::exception& e) {
      error = e.what();
    }
    files.push_back(kRestartFile);
    files.insert(files.end(), pieces.files.begin(), pieces.files.end());
  }
  fail_together(part, st.rank, R, error, "the index restart.h5");
  // The new index is in place: the earlier archive's piece goes.
  if (!st.last_piece.empty() && st.last_piece != name) {
    std::error_code ec;
    fs::remove(st.dir / st.last_piece, ec);
  }
  st.last_piece = name;
  return files;
}

}  // namespace talus::app
