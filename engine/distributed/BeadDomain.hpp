#pragma once
// A partitioned granular model over MPI processes (issue 15 item 1; docs/distributed.md, "The partitioned model").
// Each process holds its own beads (those whose centre lay in its region at the last rebalance) followed by copies
// of the other processes' beads within reach of them (ghosts), and steps that local model with the one granular
// stepper (engine/granular/GranularStepper.hpp); the solve of the contacts between its beads and the ghosts is
// shared with their owners (solvers/distributed/InterfaceNsgs.hpp). Memory and every phase of the step (detection,
// assembly, solve, integration) are divided among the processes.
//
// Before each step (prepare_step):
// - every `rebalance_every` steps, and at the first: the regions are recomputed by recursive coordinate bisection
//   (RecursiveBisection.hpp) of all beads weighted by 1 + their contacts of the last step; no centre is sent, the
//   planes come from reductions over the processes, and every process derives the same regions. The beads outside
//   their process's region move to the new owner with every contact-cache entry that names them, so their warm
//   start survives; each process then sorts its beads along a Morton curve (the stepper's own re-sort stays off);
// - every step: the ghosts are dropped and fetched anew. Process s receives a copy of bead i when the distance from
//   i's centre to the bounding box of s's centres is at most r_i + r_max + margin, the step's activation margin
//   over all beads (the stepper's formula, GranularStepper.hpp): every contact the step can activate between two
//   beads of different processes then has both beads on both processes, with the same bits.
// Ghosts are moved by the stepper's integration like the process's own beads; their copies are simply dropped.
//
// What a partitioned model refuses (unsupported() says which, to be checked before building one): capsules and
// other non-spherical bodies, joints and user interactions, FE beams, and solvers other than matrix_free, anderson
// and multilevel (with a drum or a moving mesh: other than matrix_free and anderson). Fixed walls, boxes, cones,
// meshes and drums, moving or not, are held by every process (each bead's contacts with them are its owner's; with
// a drum or a moving mesh these are contacts of other shapes, InterfaceNsgs.hpp). Rolling resistance is partitioned: the solve takes the rolling rows
// (InterfaceNsgs.hpp) and the rolling warm start migrates with the beads like the contacts' one. So is the
// generalized-α scheme: both of its problems are solved across the processes, and the position problem's warm start
// migrates with the beads like the velocity problem's. So are periodic boundaries: the regions cut one period
// (positions wrapped), and a bead is a ghost of every process whose centres lie within reach of one of its periodic
// images; each process's detection then finds the contacts across the seam by the minimum image, as one process
// does.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "contact/ContactCache.hpp"
#include "engine/Model.hpp"
#include "engine/analysis/ContactForces.hpp"
#include "engine/analysis/SpreadBodies.hpp"
#include "engine/distributed/RecursiveBisection.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "engine/granular/RegionFill.hpp"
#include "solvers/distributed/InterfaceNsgs.hpp"

namespace talus::distributed {

struct DomainTimes {
  double ghosts = 0.0;     // ghost refresh (boxes, selection, exchange, copies), wall seconds
  double rebalance = 0.0;  // regions, migration and Morton sort
  std::int64_t ghost_beads = 0;   // ghosts received, summed over steps
  std::int64_t migrated = 0;      // beads that left this process
  std::int64_t bytes_sent = 0;    // by the refreshes and migrations
  std::int64_t rebalances = 0;
  double balance_weight = 0.0;    // the last rebalance's weight of the own beads: Σ (1 + the last step's contacts)
};

// The beads of all processes, gathered to `root` in id order (outputs and tests).
struct GatheredBeads {
  std::vector<std::uint32_t> id;
  std::vector<Eigen::Vector3d> x, v, w;
};

// The domain is also the spread of the bodies the measurements take (engine/analysis/SpreadBodies.hpp): the own
// beads first, the ghosts after them, the contacts this process counts, reductions over the processes.
class BeadDomain final : public SpreadBodies, public granular::PourSpread {
 public:
  // Every process has built the same model (the whole scene): keeps this process's beads. With `shares`, each
  // process's model holds another share of the beads instead (the same walls and obstacles; disjoint beads, ids
  // unique over all): the regions are cut from the shares by reductions and the beads sent to their owners, so
  // that no process ever holds them all. The stepper must be built afterwards on `model` with
  // GranularParameters::distributed = &solve and resort_every = 0 (stepper_parameters). Throws
  // std::invalid_argument with unsupported()'s reason.
  BeadDomain(Model& model, InterfaceNsgs& solve, int rebalance_every = 50, MPI_Comm comm = MPI_COMM_WORLD,
             bool shares = false);

  // Why `model` stepped with `params` cannot be partitioned, or an empty string.
  static std::string unsupported(const Model& model, const granular::GranularParameters& params);
  // params as the stepper of a partitioned model needs them (the solve attached, the re-sort off).
  granular::GranularParameters stepper_parameters(granular::GranularParameters params) const;

  void prepare_step(granular::GranularStepper& stepper);

  int owned() const { return owned_; }
  int ghosts() const { return model_.bodies.spheres() - owned_; }
  const RankRegions& regions() const { return regions_; }
  DomainTimes& times() { return times_; }
  // Beads over all processes (a sum over the processes; collective).
  long total_beads();
  // Collective: the own beads of every process, in id order, on root (empty elsewhere).
  GatheredBeads gather(int root = 0);
  // Collective: on root, `whole` becomes this process's model with the beads of every process (all their fields, in
  // id order) and no ghosts; with `contacts_of`, `forces` its last step's contact forces indexed into `whole` (each
  // contact once: engine/analysis/ContactForces.hpp; the step's contacts must still index the beads); with
  // `cache_of`, `cache` the entries of that cache naming an own bead of some process (what a one-process run's
  // archive holds; the copies of a pair contact on its two processes hold the same impulse). Elsewhere they are
  // left alone. The restart archive and the measures of a partitioned run are written from them.
  void gather_model(Model& whole, const granular::GranularStepper* contacts_of, std::vector<ContactForce>* forces,
                    const contact::ContactCache* cache_of, contact::ContactCache* cache, int root = 0);
  // Collective: on root, `cache` becomes the entries of `cache_of` naming an own bead of some process, each once
  // (gather_model's cache; also the rolling warm start of --whole-restart).
  void gather_cache(const contact::ContactCache& cache_of, contact::ContactCache& cache, int root = 0);
  // This process's share of the warm start in a restart archive in pieces (apps/LargePathRestart.hpp): the entries
  // of `cache_of` whose smallest bead id is an own bead's. A pair contact's entry is on both its processes (with
  // the same impulse); this way each entry is written once over all processes. Keys increasing, as in the cache.
  void piece_cache_entries(const contact::ContactCache& cache_of, std::vector<contact::ContactKey>& keys,
                           std::vector<Eigen::Vector3d>& impulses) const;
  // Collective, after the partition: `keys` and `impulses` (a warm start, each process holding any share of its
  // entries, e.g. its rows of a restart archive) become the entries naming one of this process's own beads, keys
  // increasing; entries naming no bead of the model are dropped. `ids_below`: every bead id is below it (the
  // model's next id). Throws std::runtime_error when two processes hold a bead of the same id.
  void route_warm_start(std::vector<contact::ContactKey>& keys, std::vector<Eigen::Vector3d>& impulses,
                        std::uint32_t ids_below);
  // SpreadBodies (collective where it says so): sums by the fixed tree, least values by MPI_MIN, and each own
  // bead's value to its ghosts as the last refresh sent them (the ghosts are still those of the last step).
  int own_spheres() const override { return owned_; }  // SpreadBodies and PourSpread
  bool reports(int contact) const override { return solve_.counts_contact(contact); }
  void sum(double* values, int n) override;
  void min(double* values, int n) override;
  void to_copies(const double* own_values, double* copy_values) override;
  // PourSpread (RegionFill.hpp; collective where it says so): beads added during the run. add_sphere drops the
  // ghosts first (the next prepare_step fetches them again), so the own beads still lead the sphere group.
  double max_over_processes(double value) override;
  void gather_spheres(std::vector<granular::PlacedSphere>& spheres) override;
  std::uint32_t add_sphere(const Eigen::Vector3d& centre, double radius, double density, const Eigen::Vector3d& velocity,
                           std::uint8_t material) override;
  // Removes the own beads whose flag is set (flags over at least [0, owned()): outflow); the ghosts go too (the
  // next prepare_step fetches them again).
  void remove_own(const std::vector<char>& flags);

 private:
  void rebalance(granular::GranularStepper* stepper);
  // Collective, in rebalance: the entries of `cache` (null: none) naming a bead bound for another process
  // (`destination`: id → process) go there, and the arriving entries replace this process's copies.
  void migrate_cache_entries(contact::ContactCache* cache, const std::unordered_map<std::uint32_t, int>& destination);
  void exchange_entries(const std::vector<std::vector<std::uint64_t>>& keys_to,
                        const std::vector<std::vector<double>>& impulses_to, std::vector<std::uint64_t>& keys,
                        std::vector<double>& impulses);
  void refresh_ghosts(const granular::GranularStepper& stepper);
  void morton_sort();
  // Before the first bead added or removed since the last step: the own beads' ids, which the step's contacts index.
  void keep_stepped_ids();

  Model& model_;
  InterfaceNsgs& solve_;
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  int rebalance_every_ = 50;
  int owned_ = 0;
  long steps_ = 0;
  // Beads added (every process counts each, as every process places it) since the last rebalance, and all
  // processes' beads after it: a quarter more beads, and at least kFillRebalance, rebalances at the next step
  // (a pour into an empty region would otherwise land on one rank until the next scheduled rebalance).
  static constexpr long kFillRebalance = 64;
  long added_since_rebalance_ = 0, beads_at_rebalance_ = 0;
  // Beads added or removed since the last step (pours, outflow) moved the indices its contacts name: the rebalance's
  // weights find them again through the ids the own beads had then.
  bool layout_changed_ = false;
  std::vector<std::uint32_t> stepped_ids_;
  RankRegions regions_;
  Eigen::Vector3d region_centre_ = Eigen::Vector3d::Zero();  // along periodic axes: this process's region's centre
  DomainTimes times_;
  // Scratch reused from step to step.
  std::vector<double> send_, recv_, boxes_, sum_scratch_;
  std::vector<int> send_counts_, recv_counts_, send_offsets_, recv_offsets_;
  std::vector<std::vector<std::int32_t>> send_lists_;
  std::vector<std::int32_t> order_;
  std::vector<std::pair<std::uint64_t, std::int32_t>> sort_scratch_;
  std::vector<char> permute_scratch_;
};

}  // namespace talus::distributed
