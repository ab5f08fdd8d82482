#pragma once
// The runner's view of a partitioned model under mpirun (issue 15 item 1; apps/MpiLaunch.cpp builds it over
// engine/distributed/BeadDomain.hpp and solvers/distributed/InterfaceNsgs.hpp). Every process has built the whole
// scene, or its share of the beads; the partition keeps this process's beads, fetches the ghosts before each step,
// and gives the runner what it needs to report the run as one run: sums and maxima over the processes, the measurements' view of the spread
// bodies, each process's share of the restart archive, and the whole model on process 0 for --whole-restart. This
// header knows no MPI, so the runner builds without it.
#include <string>
#include <vector>

#include "contact/ContactCache.hpp"
#include "engine/Model.hpp"
#include "engine/analysis/ContactForces.hpp"
#include "engine/analysis/SpreadBodies.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "engine/granular/RegionFill.hpp"

namespace talus::app {

class ModelPartition {
 public:
  virtual ~ModelPartition() = default;
  // Why this scene cannot be partitioned (the run then holds the whole model on every process and spreads only
  // the solve), or an empty string.
  virtual std::string unsupported(const Model& model, const granular::GranularParameters& params) const = 0;
  // Keeps this process's beads of `model`; returns the parameters its stepper takes. `shares`: each process's
  // `model` holds another share of the beads (GranularFlags::share), not all of them: the regions are cut from
  // the shares and the beads sent to their owners.
  virtual granular::GranularParameters begin(Model& model, const granular::GranularParameters& params,
                                             bool shares) = 0;
  // Before each step: the regions rebalanced every so often, the ghosts fetched.
  virtual void prepare_step(granular::GranularStepper& stepper) = 0;
  virtual int own_beads() const = 0;
  // Whether contact i of the stepper's last step is this process's to report (each contact once over all).
  virtual bool counts_contact(int i) const = 0;
  // Removes the own beads flagged (flags over [0, own_beads()): outflow).
  virtual void remove_own(const std::vector<char>& flags) = 0;
  // In place: the sum or the largest over the processes, the same bits on every process (collective).
  virtual void sum(double* values, int n) = 0;
  virtual void max(double* values, int n) = 0;
  // Collective: on process 0, `whole` becomes the model with every process's beads (id order) and `cache` the warm
  // start `cache_of` over all processes (--whole-restart). Elsewhere nothing is written.
  virtual void gather(Model& whole, const contact::ContactCache& cache_of, contact::ContactCache& cache) = 0;
  // Collective: on process 0, `cache` becomes another warm start (the position or rolling cache) over all processes.
  virtual void gather_cache(const contact::ContactCache& cache_of, contact::ContactCache& cache) = 0;
  // The bodies as the measurements see them spread over the processes (own beads, reported contacts, reductions).
  virtual SpreadBodies& spread() = 0;
  // Where beads added during the run go (pours, the dropped ball; engine/granular/RegionFill.hpp): every process
  // places the same beads and keeps those in its region.
  virtual granular::PourSpread& pours() = 0;
  // This process's share of the warm start `cache_of` in a restart archive in pieces (apps/RestartPieces.hpp):
  // each entry in exactly one process's share.
  virtual void piece_cache(const contact::ContactCache& cache_of, std::vector<contact::ContactKey>& keys,
                           std::vector<Eigen::Vector3d>& impulses) const = 0;
  // Collective, after begin(): `cache` (this process's share of a warm start read in shares from a restart
  // archive) becomes the entries naming this process's own beads (BeadDomain::route_warm_start); every bead id is
  // below `ids_below`.
  virtual void route_warm_start(contact::ContactCache& cache, std::uint32_t ids_below) = 0;
  // Collective: where the processes' time went (the partitioned domain and the solve): the text on process 0.
  virtual std::string summary() = 0;
};

}  // namespace talus::app
