#pragma once
// The large path's part of the restart archive (apps/RestartArchive.hpp gives the one layout): the store's bead
// and capsule groups, the FE beams, the granular stepper's warm starts and the runner's counters.
//   /beads/{x, v, w, radius, mass, inv_mass, inv_inertia, id, [material]} (N×3 or N)
//   /capsules/{x, v, w, q (N×4, w x y z), radius, half_length, mass, inv_mass, inertia (N×3, principal), id,
//             [material]} when there are capsules
//   /beams/{dofs, q, v}: the model's LTI systems (the FE beams), in order
//   /contacts/{cache, position_cache, rolling_cache}/{keys (uint64), impulses (K×3, world)}: the solver's warm starts
//   /joints/{impulses, [position_impulses]} (rows): the joints' warm start
//   /generalized_alpha/{acceleration, smooth_acceleration}: the beams' a_n and ṽ̇_n (generalized-α runs with beams)
//   /run/{removed, dropped, discharge (K×2), discharge_mass (K)}: the runner's counters
// read_restart gives all of it back, so that a run to T and a run to T/2 + restart to T end bitwise equal
// (tests/apps/test_granular_restart.cpp).
#include <array>
#include <filesystem>
#include <utility>
#include <vector>

#include "apps/RestartArchive.hpp"
#include "contact/ContactCache.hpp"
#include "engine/Model.hpp"
#include "engine/granular/GranularStepper.hpp"

namespace talus::app {

// The runner's state besides the model that the next steps read (apps/LargePathRun.cpp).
struct RunCounters {
  long removed = 0;      // beads that left the container so far
  bool dropped = false;  // perturbed_stack: the ball has been added
  std::vector<std::pair<double, long>> discharge;  // (time, beads removed so far)
  // Mass removed so far at each discharge entry [kg] (beads of any size; capsules too). Empty when read from an
  // archive written before it existed: the rate then falls back to a bead count times one bead's mass.
  std::vector<double> discharge_mass;
};

// The solver's warm start as archived: keys in increasing order, world impulses.
struct CacheContent {
  std::vector<contact::ContactKey> keys;
  std::vector<Eigen::Vector3d> impulses;
  void load_into(contact::ContactCache& cache) const { cache.store(keys.data(), impulses.data(), keys.size()); }
};

// What the granular stepper carries from step to step besides the model, as the archive takes it (pointers
// into the stepper; null: not archived, as the rolling cache without rolling resistance).
struct StepperArchive {
  const contact::ContactCache* cache = nullptr;
  const contact::ContactCache* position_cache = nullptr;  // generalized-α
  const contact::ContactCache* rolling_cache = nullptr;
  const std::vector<double>* joint_impulses = nullptr;
  const std::vector<double>* joint_position_impulses = nullptr;  // generalized-α
  std::vector<double> beam_a, beam_vdot;                          // generalized-α with beams
};
// Everything of the stepper a bitwise continuation needs, by its scheme.
StepperArchive stepper_archive(granular::GranularStepper& stepper);

// The root attributes of a large-path archive: the scene's name, the scheme and the step's settings.
ArchiveHeader large_path_header(const std::string& scene, const granular::GranularParameters& p);

// What read_restart gives back besides the model. has_contacts / has_counters are false for archives written
// before those groups existed (the run then starts cold, and is not a bitwise continuation).
struct RestartExtras {
  ArchiveHeader header;
  double h = 0.0;  // the step the archive's run took [s]; 0 in archives that did not record it
  // The one contact cache (GranularStepper::contact_cache; contact/ContactKey.hpp). Archives written before it
  // held a bead cache and a capsule cache under older keys: they are translated and merged.
  CacheContent cache;
  // Generalized-α's position-correction cache (GranularStepper::position_cache), when the run archived it.
  CacheContent position_cache;
  bool has_position_cache = false;
  // The rolling resistance warm start (GranularStepper::rolling_cache), when the run had it.
  CacheContent rolling_cache;
  bool has_rolling_cache = false;
  RunCounters counters;
  bool has_contacts = false, has_counters = false;
  // The joints' warm start (GranularStepper::joint_impulses, joint_position_impulses), when the run had joints.
  std::vector<double> joint_impulses, joint_position_impulses;
  bool has_joints = false;
  // Generalized-α's a_n and ṽ̇_n of the FE beams (GranularStepper::beam_accelerations), when the run had them.
  std::vector<double> beam_a, beam_vdot;
  bool has_beam_accelerations = false;
};

// Gives the stepper what the archive held for it (caches, joint multipliers, the beams' accelerations under
// generalized-α).
void restore_stepper(const RestartExtras& extras, granular::GranularStepper& stepper);

// A partitioned run's archive in pieces (issue 15 item 4; docs/distributed.md, "Restart archives"): each process
// writes its own beads and its share of the warm start to a piece, restart_sSTEP_pK.h5 beside restart.h5, and
// process 0 writes restart.h5 as an index. The index holds everything else (clock, counters, header) and, as
// HDF5 virtual datasets, /beads/* and /contacts/cache/*: read through the index, the pieces' rows follow one
// another in process order, so h5py and every reader of restart.h5 see one archive. /pieces/{files, beads,
// entries} name each piece and its rows; read_restart checks that every piece is there and belongs to the index
// (same clock, same rows) before reading, then puts the beads in id order and the entries in key order: the
// archive of a one-process run of the same state, which any number of processes continues.
// The warm starts a run has or not beside the contacts' cache: generalized-α's position problem's
// (/contacts/position_cache, its rows in each piece /pieces/position_entries) and rolling resistance's
// (/contacts/rolling_cache, /pieces/rolling_entries).
enum OptionalWarmStart { kPositionWarmStart, kRollingWarmStart, kOptionalWarmStarts };
struct ArchivePieces {
  std::vector<std::string> files;     // one per process, relative to the index's folder
  std::vector<hsize_t> beads, entries;  // rows of each piece's /beads and /contacts/cache
  bool material = false;              // every piece writes /beads/material (some bead is not "bead")
  // The optional warm starts the run has: every piece writes each of them (rows: optional_entries), and the index
  // maps it like the cache.
  std::array<bool, kOptionalWarmStarts> optional{};
  std::array<std::vector<hsize_t>, kOptionalWarmStarts> optional_entries;
};
// The piece of process `rank` of the archive of step `step`.
std::string restart_piece_name(long step, int rank);
// A piece: the first `own` beads of `local` (a partitioned model's own beads; the ghosts after them are left out),
// `cache` (this process's share of the warm start, keys increasing) and `optional` (its shares of the optional warm
// starts; null: the run has none), with the clock and header of the index.
void write_restart_piece(const std::filesystem::path& file, const talus::Model& local, int own, const CacheContent& cache,
                         const std::array<const CacheContent*, kOptionalWarmStarts>& optional, bool material,
                         const ArchiveHeader& header, double h);

// Refuses (std::runtime_error naming the file) a model with a non-finite value: a restart archive never holds NaN.
// A group's material dataset (uint8, ids into the scene's Model::materials) is written only when one of its
// bodies is not "bead", so the archive of a scene without materials is what it was before they existed; read
// back, an absent one means "bead", and the scene's table must hold every id. `header`: null for an archive of
// the model alone (its scene and scheme unnamed).
// `pieces`: the index of an archive in pieces (above): the beads and the cache come from the pieces, and the
// model's own beads and `stepper`'s cache are not written.
void write_restart(const std::filesystem::path& file, const talus::Model& model, const StepperArchive* stepper = nullptr,
                   const RunCounters* counters = nullptr, const ArchiveHeader* header = nullptr, double h = 0.0,
                   const ArchivePieces* pieces = nullptr);
// Replaces model's beads, capsules (none when the archive has none), beams' state, time and step by the
// archive's, and fills `extras` when given. The archive is validated before anything is replaced: a large-path
// archive, finite values, positive radii and masses, consistent sizes, unique ids below the next id, a finite
// clock >= 0, strictly increasing cache keys; every error is a std::runtime_error naming the file and the dataset.
//
// `share`: a partitioned run under mpirun (issue 15) reads share k of K of the archive's beads and warm starts
// (RowWindow::share of the rows of /beads and of /contacts/{cache, position_cache, rolling_cache}; through the
// index of an archive in pieces, the pieces' rows in process order), so that no process reads them all: the
// partition then sends the beads to their owners (BeadDomain with shares) and the warm starts after them
// (BeadDomain::route_warm_start).
// The checks are those of the rows read; ids are checked unique over the processes when routed. An archive with
// capsules is refused in shares (the partitioned model holds beads only).
struct ArchiveShare {
  int share = 0, shares = 1;
};
void read_restart(const std::filesystem::path& file, talus::Model& model, RestartExtras* extras = nullptr,
                  ArchiveShare share = {});

}  // namespace talus::app
