#pragma once
// The matrix-free friction-contact solve of a partitioned model (issue 15 items 1–2; engine/distributed/
// BeadDomain.hpp): each process holds its own beads and copies ("ghosts") of the other processes' beads within
// reach of them, finds the contacts among all of these, and solves only those touching one of its own beads.
//
// Which contact is whose:
// - interior: no ghost (two own beads, or an own bead and an obstacle). Swept by this process in the sweep's own
//   order (blocks in parallel over the threads, then the layout's interface colours), exactly as one process
//   would sweep them (MatrixFreeNsgs.hpp);
// - pair contact: an own bead and a ghost owned by process s. Both processes find it (the same positions, radii
//   and margin: PartitionedSolve::common_margin), with the same frame and warm start: the cache keys and frames
//   follow the beads' ids (GranularStepper's narrow phase), not their local indices. The lower of the two ranks
//   sweeps it; the other keeps its copy only for the impulse it receives at the end;
// - anything else (two ghosts, a ghost against an obstacle): belongs to another process and is left alone.
//
// The pair contacts between two processes are swept in one round, in the order of their ids, which both derive
// alike: the partner sends the sweeper the velocities of its beads in those contacts, the sweeper updates the
// contacts Gauss–Seidel style, and sends the beads back. Rounds are an edge colouring of the graph of processes
// that share contacts (greedy, in rank order), so a process takes part in one pair per round; every process
// derives the same rounds from the table of pair-contact counts, which it gathers at every solve and which also
// checks that both sides of every pair found the same number of contacts. A sweep is then: interior contacts,
// then the rounds in order; a process reading a bead always reads its current velocity. So it is a Gauss–Seidel
// sweep of the whole problem in a fixed order, converging to the same solution as one process, and the same bits
// from run to run for a fixed rank and thread count (not across rank counts: the order differs).
//
// The residual is the common one (FrictionContactProblem.hpp) over every contact once, the partial sums added by
// the fixed tree of FixedOrderSum.hpp, and ‖q‖ likewise (contact_velocity_norm): the stopping test is that of one
// process. Anderson acceleration (AndersonSweep.hpp) keeps the history of the contacts this process sweeps; its
// Gram entries are reduced likewise, and the extrapolated impulses move the beads in the sweep's order, with the
// same rounds. At the end each sweeper sends the pair contacts' impulses to the partner, so both caches agree.
//
// Contacts of other shapes (GeneralContactSweep.hpp: a bead against a drum or a moving mesh) touch one bead and an
// obstacle that every process holds: the bead's owner alone has them (the stepper drops its ghosts'), sweeps them
// after its interior contacts in every sweep and counts them in the residual. With any of them on any process,
// Anderson is off on every process, as in the one-process solve.
//
// Rolling resistance (RollingResistance.hpp): each contact's rolling rows are updated right after its Coulomb
// rows by whoever sweeps the contact (the round's messages carry ω with v, so the rolling update of a pair contact
// turns the partner's bead too), their errors enter the common residual, and the sweeper sends the rolling
// impulses with the others at the end. Anderson is then off, as in the one-process solve.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "solvers/distributed/DistributedNsgs.hpp"
#include "solvers/matrixfree/AndersonSweep.hpp"
#include "solvers/matrixfree/PartitionedSolve.hpp"

namespace talus::distributed {

// What a partitioned model tells the solve about its local beads (set before every step).
struct BeadOwnership {
  int owned = 0;                      // beads [0, owned) are this process's, [owned, ...) ghosts
  std::vector<int> ghost_rank;        // per ghost (index − owned): the process that owns it
  const std::uint32_t* id = nullptr;  // every local bead's id, the same on every process
};

class InterfaceNsgs final : public matrixfree::PartitionedSolve {
 public:
  explicit InterfaceNsgs(MPI_Comm comm = MPI_COMM_WORLD);
  int ranks() const override { return size_; }
  int rank() const { return rank_; }
  int min_sweep_blocks() const override { return 1; }
  bool spreads_rolling() const override { return true; }
  int own_spheres(int) const override { return own_.owned; }
  void largest_over_processes(double& value, std::int64_t& tag) override;
  void sum_over_processes(double* values, int n) override;
  double common_margin(double local) override;
  double contact_velocity_norm(const std::vector<matrixfree::SweepContact>& contacts,
                               const matrixfree::BodyArrays& bodies, double local,
                               double own_general_squared = 0.0) override;
  bool spreads_general() const override { return true; }
  bool any_over_processes(bool local) override;
  solvers::SolverStats solve(std::vector<matrixfree::SweepContact>& contacts, const matrixfree::SweepLayout& layout,
                             const matrixfree::BodyArrays& bodies, double q_norm,
                             const matrixfree::MatrixFreeParameters& p, matrixfree::RollingContacts* rolling,
                             matrixfree::GeneralContactSweep* general = nullptr) override;

  // The multilevel solve spread over the processes (InterfaceMultilevel.cpp): the aggregates of each level hold one
  // process's beads only; the lower levels are visited by each process over its interior contacts (the pair
  // contacts keep their reactions through those visits), and the top levels (the coarsest and up to three below
  // it) are gathered: every process's aggregates of the level, the contacts between them (the pair contacts among
  // them, given by their sweepers) and, at each visit, their mean velocities and reactions go to every process,
  // which all sweep the same coarse problem in the same order and carry the correction back to their own beads and
  // contacts. The fine sweeps, the residual and
  // the stopping test are those of solve(); the aggregates' numbering follows the ranks, so the result is the same
  // bits from run to run for a fixed rank and thread count.
  bool spreads_multilevel() const override { return true; }
  solvers::SolverStats solve_multilevel(std::vector<matrixfree::SweepContact>& contacts,
                                        const matrixfree::SweepLayout& layout, const matrixfree::BodyArrays& bodies,
                                        double q_norm, const matrixfree::MatrixFreeParameters& fine,
                                        const matrixfree::MultilevelParameters& params,
                                        matrixfree::MultilevelWorkspace& work, const double* gaps) override;

  BeadOwnership& ownership() { return own_; }
  SolveTimes& times() { return times_; }
  // The last solve's contacts counted by this process: interior ones and the pair contacts it swept.
  int counted_contacts() const { return counted_; }
  // Whether contact i of the last solve is counted here (its impulse is this process's to report).
  bool counts(int i) const { return kind_[i] == kInterior || kind_[i] == kSwept; }
  bool counts_contact(int i) const override { return i >= 0 && i < static_cast<int>(kind_.size()) && counts(i); }
  // Whether contact i touches one of this process's beads (its impulse is known here: counted, or a pair contact
  // the partner swept).
  bool touches_own(int i) const { return kind_[i] != kOther; }

 private:
  enum : std::uint8_t { kInterior = 0, kSwept = 1, kPartner = 2, kOther = 3 };
  struct Pair {
    int rank = 0;                        // the other process
    bool sweeper = false;                // this process sweeps the pair's contacts
    std::vector<std::int32_t> contacts;  // local contact indices, in the order of their bead ids
    std::vector<std::int32_t> beads;     // the partner's beads in them (ghosts here when sweeper, own beads
                                         // otherwise), in id order
  };
  // A top level gathered over the processes (InterfaceMultilevel.cpp).
  struct GatheredLevel {
    matrixfree::AggregateLevel level;               // every process's aggregates of this level, in rank order, and
                                                    // the contacts between them that the coarse sweeps solve
    std::vector<matrixfree::SweepContact> contacts; // every gathered contact's frame, μ, extra and reaction
    std::vector<std::int32_t> local;                // per gathered contact: this process's copy (−1: none)
    std::vector<std::int32_t> given;                // the local contacts this process gives, in gathered order
    std::vector<int> aggregates, contact_count;     // per process: aggregates and contacts given
    std::vector<int> counts, displacements;         // the visits' gather (6 per aggregate, 3 per contact)
    int offset = 0;                                 // this process's first aggregate
    int sweep_cap = 0;                              // coarse sweeps a visit may take (the coarsest level)
    std::vector<std::int32_t> aggregate_of;         // per local bead: its gathered aggregate, −1 fixed, −2 none
    std::vector<double> send, receive;
    std::vector<Eigen::Vector3d> previous;          // the gathered reactions before a coarse sweep
    std::vector<Eigen::Vector3d> point_a, point_b;  // scratch of the build: each gathered contact's points
    std::vector<std::int32_t> side_a, side_b;       // and aggregates
  };
  enum class Spread { kSolve, kSweeps, kResidual };
  // solve() after classification: the whole solve, `count` plain sweeps, or the residual alone.
  solvers::SolverStats spread(std::vector<matrixfree::SweepContact>& contacts, const matrixfree::SweepLayout& layout,
                              const matrixfree::BodyArrays& bodies, double q_norm,
                              const matrixfree::MatrixFreeParameters& p, matrixfree::RollingContact* rolling,
                              matrixfree::GeneralContactSweep* general, Spread what, int count);
  // Gathers top level t from this process's level `level` (null: none), the coarsest when `coarsest`.
  void gather_level(int t, const std::vector<matrixfree::SweepContact>& contacts, const matrixfree::BodyArrays& bodies,
                    const matrixfree::AggregateLevel* level, bool coarsest);
  void visit_gathered(int t, std::vector<matrixfree::SweepContact>& contacts, const matrixfree::BodyArrays& bodies,
                      matrixfree::AggregateLevel* level, matrixfree::MultilevelWorkspace& work, int sweeps,
                      double weight, matrixfree::Routing routing);
  void classify(const std::vector<matrixfree::SweepContact>& contacts);
  void plan_rounds();
  // The round's exchange of pair k's partner beads (sweeper: receive, sweep with f, send back; partner: send,
  // receive); f(contact index, place in the Anderson history).
  template <class F>
  void round(int k, bool backward, const matrixfree::BodyArrays& bodies, F&& f);
  // Every sweeper gets its partners' current bead velocities (before a residual evaluation).
  void refresh(const matrixfree::BodyArrays& bodies);
  void send_impulses(std::vector<matrixfree::SweepContact>& contacts, matrixfree::RollingContact* rolling);
  // g(contact, Anderson slot) over this process's contacts: the interior ones in sweep order (slot = index),
  // then the swept pair contacts round by round (slot = contacts + place).
  template <class G>
  void for_mine(G&& g) const {
    const int n = static_cast<int>(kind_.size());
    for (int i = 0; i < n; ++i)
      if (kind_[i] == kInterior) g(i, i);
    for (int k = 0; k < static_cast<int>(swept_.size()); ++k) g(swept_[k], n + k);
  }

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  BeadOwnership own_;
  SolveTimes times_;
  std::vector<std::uint8_t> kind_;
  std::size_t classified_ = static_cast<std::size_t>(-1);  // contact count classify() ran on
  std::vector<Pair> pairs_;          // one per partner process, in rank order
  std::vector<int> round_pair_;      // per round: the index in pairs_ of this process's pair, or −1
  std::vector<int> pair_count_, all_counts_;
  int interior_count_ = 0;
  std::vector<std::int32_t> swept_;     // the pair contacts this process sweeps, round by round
  std::vector<int> swept_start_;        // per pair: offset of its contacts in swept_ (sweeper pairs only)
  int counted_ = 0;
  std::vector<double> send_, recv_, reduce_scratch_;
  std::vector<std::vector<double>> refresh_buffers_;
  std::vector<MPI_Request> requests_;
  std::vector<std::pair<std::uint64_t, std::int32_t>> sort_scratch_;
  std::vector<Eigen::Vector3d> history_;  // Anderson, per contact swept here
  std::vector<GatheredLevel> gathered_;  // the top levels, coarsest last
  std::vector<std::uint8_t> joinable_;   // per contact: interior (may bind beads into aggregates)
};

}  // namespace talus::distributed
