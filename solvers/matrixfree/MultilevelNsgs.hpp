#pragma once
// A friction-contact solve whose cost does not grow with stack height (issue 10 item 2): V-cycles whose
// smoother is the fine coloured NSGS sweep (MatrixFreeNsgs.hpp) and whose coarse levels are rigid aggregates
// of beads (the rigid-body interface problem of Visseq–Alart–Dureisseix's domain decomposition, the
// aggregation of Servin–Wang; ../shared/research/fast-contact-solvers.md §4.1).
//
// Why: Gauss–Seidel carries a correction about one contact layer per sweep, so a column L layers tall needs
// ~L² sweeps. A rigid motion of a whole aggregate changes no relative velocity inside it, so the error that
// GS diffuses slowly — a block of beads moving together against its neighbours — is one unknown per aggregate.
//
// Levels: level 1 groups the beads that touch (a closed contact of the step) and whose centres fall in one cubic cell
// of side `aggregate_diameters` bead diameters; level k+1 groups level-k aggregates the same way in cells twice
// as large, until coarsening stalls. Fixed beads and walls belong to no aggregate (they are the fixed body).
// Level k's problem is an exact Coulomb friction-contact problem between rigid aggregates (mass, centre, world
// inertia tensor summed from the beads) on the *unchanged* cones of the contacts between different aggregates
// ("boundary" contacts); its free velocity is that of the aggregates' mean rigid motions, its unknown the change of the
// boundary reactions; internal reactions are kept.
//
// A visit of level k: each aggregate's mean rigid velocity (its momentum and angular momentum averaged over
// its beads: a boundary bead's own velocity may already point away from a contact that its aggregate as a
// whole still closes — a column's bottom bead pushed up by the floor while the beads above still fall), a few
// coarse NSGS sweeps on the boundary contacts (the 3×3 block of each is replaced by its Gershgorin majorant
// diag(wn, wt, wt), so the closed-form isotropic local solve is a majorise–minimise step), then the correction
// carried back to the beads: the impulse each bead lacks to move with its aggregate's new rigid velocity,
// m_i (V + Ω × (x_i − X)) − m_i v_i minus what the boundary contacts gave it, sums to zero over the aggregate and
// is routed to a root, leaves first, each bead passing its need to the beads nearer the root (breadth-first hops
// over the internal contacts). Along one tree contact per bead (the statically determinate load path of a column)
// a face-centred pack lost nearly all of it: its beads rest on contacts 45° off the load, which a Coulomb cone of
// μ = 0.3 cuts down. Spread over all of a bead's contacts toward the root (`spread_routing`, the least-squares
// share of route_and_apply), the weight passes as normal forces. Every changed reaction is projected on
// its cone and applied through M⁻¹ Hᵀ, so the velocities stay exactly those of the reactions whatever the coarse
// step did: the correction can be poor, never inconsistent, and the fine natural-map residual stays the only
// stopping test.
//
// A solve starts with up to `plain_first` plain sweeps (a warm-started step often needs no more); then cycles:
// every level from the finest to the coarsest (`coarse_sweeps` sweeps each, `coarsest_sweeps` at the
// last, which stops earlier once its sweeps change nothing), back up when `up_leg`, then `pre_sweeps +
// post_sweeps` fine sweeps and one residual evaluation. Safeguard: the state (reactions, velocities) is
// checkpointed every `trial_cycles` cycles; if the residual is then not below the checkpoint's, the cycles are
// taken back, the coarse weight halved, and after three such failures the solve continues with plain sweeps
// (and so do the next `retry_after` steps, doubled after each further such solve in a row, up to 32 ×).
// A column on a floor is solved exactly by one cycle; what rigid aggregates do not capture (rolling, sliding
// and opening inside an aggregate) is left to the fine sweeps. Coarse levels run on one thread in a fixed
// order, so the result is the same for every thread count (the fine sweeps are already). A partitioned model
// keeps each aggregate inside one process and gathers the coarsest level (solvers/distributed/InterfaceNsgs.hpp,
// solve_multilevel); multilevel_cycles and the visit's pieces below are shared with it.
#include <Eigen/Dense>
#include <cstdint>
#include <string>
#include <vector>

#include "solvers/matrixfree/MatrixFreeNsgs.hpp"
#include "solvers/matrixfree/BodyArrays.hpp"
#include "solvers/matrixfree/SweepContact.hpp"
#include "solvers/matrixfree/SweepPartition.hpp"
#include "solvers/core/SolverStats.hpp"

namespace talus::matrixfree {

struct MultilevelParameters {
  int pre_sweeps = 6;                 // fine sweeps before the coarse levels, per cycle
  int post_sweeps = 6;                // fine sweeps after them
  int coarse_sweeps = 3;              // sweeps at each intermediate level, per visit
  int coarsest_sweeps = 40;           // at the coarsest level (stops earlier once the sweeps change nothing)
  double aggregate_diameters = 2.0;   // level-1 cell side in bead diameters (doubled at each level)
  int max_levels = 16;
  bool up_leg = true;                 // visit the levels again on the way back up
  int trial_cycles = 12;              // cycles after which the residual must be below the checkpoint's
  bool normal_routing = false;        // tree contacts carry only the normal part of a subtree's need
  bool spread_routing = true;         // a bead's need goes to all its contacts toward the root, not one tree contact
  int retry_after = 25;               // plain steps (no levels built) after a solve gave its levels up (×2 in a row)
  int plain_first = 16;               // plain sweeps before the first cycle (a warm start often needs no more)
  int anderson = 2;                   // memory of Anderson acceleration on the sweeps outside the cycles (0: plain)
  int anderson_every = 2;             // sweeps per extrapolation there
};

// How a visit carries each bead's need (the impulse it lacks to move with its aggregate) to its aggregate's root.
struct Routing {
  bool normal_only = false;  // (tree) the tree contact carries only the normal part of the need
  bool spread = true;        // shared by all the bead's contacts toward the root (AggregateLevel::route_contacts)
};
inline Routing routing_of(const MultilevelParameters& p) { return {p.normal_routing, p.spread_routing}; }

// One coarse level: aggregates of the level below and the contacts between two different aggregates.
struct AggregateLevel {
  int count = 0;                             // aggregates
  std::vector<std::int32_t> bead_aggregate;  // per bead: its aggregate at this level, −1 for a fixed bead
  std::vector<double> inv_mass;              // per aggregate
  std::vector<Eigen::Matrix3d> inv_inertia;  // world frame, about the centre
  std::vector<Eigen::Vector3d> centre;
  std::vector<Eigen::Vector3d> v0, w0;       // mean (rigid) velocity at the start of the current visit
  std::vector<Eigen::Vector3d> dv, dw;       // its change by the coarse sweeps

  // Boundary contacts: fine contact index, its two aggregates (−1: fixed), lever arms from the aggregates'
  // centres to the contact point, the Gershgorin majorant diag(wn, wt, wt) of the 3×3 block, and the fine
  // relative velocity and reaction at the start of the visit.
  struct Contact {
    std::int32_t fine = 0, A = -1, B = -1;
    double wn = 0.0, wt = 0.0;
    Eigen::Vector3d la = Eigen::Vector3d::Zero(), lb = Eigen::Vector3d::Zero();
    Eigen::Vector3d u0 = Eigen::Vector3d::Zero(), r0 = Eigen::Vector3d::Zero();
  };
  std::vector<Contact> contacts;

  // Spanning forest of the aggregates' internal contacts over the beads: beads in breadth-first order
  // aggregate by aggregate (roots first), each bead's tree parent (−1: a root or a fixed bead) and the fine
  // contact to it.
  std::vector<std::int32_t> order, tree_parent, tree_contact;
  // Per bead, its internal contacts to beads nearer the root (fewer breadth-first hops):
  // route_contacts[route_start[i] .. route_start[i + 1]), the tree contact among them.
  std::vector<std::int32_t> route_start, route_contacts;
};

struct MultilevelWorkspace {
  std::vector<AggregateLevel> levels;
  // Scratch of the build and the reconstruction (reused from step to step).
  std::vector<std::int32_t> uf, node_of, head, adjacency, adjacency_start;
  std::vector<std::int64_t> cell;
  std::vector<std::int32_t> depth;                                 // breadth-first hops from the root
  std::vector<Eigen::Vector3d> share;                               // a bead's contacts' changes (spread routing)
  std::vector<char> share_active;
  std::vector<Eigen::Vector3d> deficit;                            // per bead
  std::vector<std::pair<std::int32_t, Eigen::Vector3d>> touched;   // reaction changes of a visit
  std::vector<Eigen::Vector3d> saved_r, saved_v, saved_w;  // checkpoint of a cycle
  MatrixFreeWorkspace fine;
  int cycles = 0;
  int cooldown = 0;  // steps left to solve plainly
  int give_ups = 0;  // solves in a row that gave their levels up (each doubles the next cooldown)
  double coarse_weight = 1.0;
  double setup_seconds = 0.0, coarse_seconds = 0.0;
};

// Builds the aggregate levels of the step's contacts (positions and contacts are those of the step; gaps[k] is
// contact k's gap at the start of the step: only closed contacts bind beads into aggregates). A partitioned model
// (solvers/distributed/InterfaceNsgs.hpp) builds its own beads' levels: `joinable` (one flag per contact; null: all)
// names the contacts that may bind beads or bound aggregates, and beads [own, n) (its ghosts; own < 0: none) belong
// to no aggregate.
void build_aggregate_levels(const std::vector<SweepContact>& contacts, const double* gaps, const BodyArrays& beads,
                            const MultilevelParameters& params, MultilevelWorkspace& work,
                            const std::uint8_t* joinable = nullptr, int own = -1);

// What the cycles ask of the fine problem. The whole model: the coloured sweep of MatrixFreeNsgs.hpp and a visit
// of its coarsest level like the others; a partitioned model (InterfaceNsgs.hpp) spreads each over its processes
// and visits its top levels gathered from all of them. One virtual call per batch of sweeps, none per contact.
class MultilevelFine {
 public:
  virtual ~MultilevelFine() = default;
  // The common residual (`sweeps`: fine sweeps so far, for the history).
  virtual double residual(int sweeps) = 0;
  // Sweeps under `p` (its budget, Anderson, its own residual schedule) until p's tolerance or budget.
  virtual solvers::SolverStats plain(const MatrixFreeParameters& p, int sweeps) = 0;
  // `count` plain forward sweeps, no residual.
  virtual void sweep(int count) = 0;
  // Whether this solve can cycle (a level with contacts to visit).
  virtual bool coarse() const = 0;
  // How many of the top levels visit_top() visits (≥ 1 when coarse(); the whole model: the coarsest alone).
  virtual int top_levels() const = 0;
  // The visit of top level t, 0 ≤ t < top_levels(), t = top_levels() − 1 the coarsest (the whole model: the last
  // of work.levels).
  virtual void visit_top(int t, int sweeps, double weight, Routing routing) = 0;
};

// The solve's control (header comment: plain sweeps first, cycles, checkpoints, the fallback to plain sweeps) over
// `fine`; the levels below its top levels are the first work.levels.size() − fine.top_levels(), visited in place. `nothing_to_solve`: the
// residual is 0 without evaluating it. `name` names the solver in a failure's message.
solvers::SolverStats multilevel_cycles(MultilevelFine& fine, std::vector<SweepContact>& contacts,
                                       const BodyArrays& beads, const MatrixFreeParameters& fine_params,
                                       const MultilevelParameters& params, MultilevelWorkspace& work,
                                       bool nothing_to_solve, const std::string& name);

// A visit's pieces, for a coarsest level gathered over processes (InterfaceNsgs.hpp):
// - the aggregates' mean rigid velocities from their beads (v0, w0; dv, dw zeroed);
void mean_velocities(AggregateLevel& L, const BodyArrays& beads);
// - the coarse sweeps over L's boundary contacts, whose frames, μ, extra and reactions are contacts[cc.fine]
//   (cc.r0 set by the caller); they stop early once a sweep changes nothing;
void coarse_sweeps(AggregateLevel& L, std::vector<SweepContact>& contacts, int sweeps);
// - the lever arms and Gershgorin majorant of boundary contact cc (cc.A, cc.B set) with frame c, touching its
//   aggregates at pa and pb;
void set_coarse_block(const AggregateLevel& L, const SweepContact& c, const Eigen::Vector3d& pa,
                      const Eigen::Vector3d& pb, AggregateLevel::Contact& cc);
// - each bead's deficit: what it lacks to move with the new rigid velocity of its aggregate, aggregate
//   `offset + tree.bead_aggregate[i]` of `motion` (none: tree null), times `weight`; clears the changes;
void start_deficits(const AggregateLevel* tree, const AggregateLevel& motion, int offset, double weight,
                    const BodyArrays& beads, MultilevelWorkspace& work);
// - a boundary contact's reaction change d (local contact k): its impulse leaves the deficits;
void add_boundary_change(int k, const Eigen::Vector3d& d, const std::vector<SweepContact>& contacts,
                         MultilevelWorkspace& work);
// - the deficits routed toward tree's roots, leaves first (none: tree null), then every change applied to its
//   contact and, through M⁻¹ Hᵀ, to the beads (Routing: how).
void route_and_apply(const AggregateLevel* tree, Routing routing, std::vector<SweepContact>& contacts,
                     const BodyArrays& beads, MultilevelWorkspace& work);

// Solves like solve_matrix_free (same entry conditions, residual and statistics: stats.counters.sweeps are the
// fine sweeps, and so are the iterations; the cycles are in work.cycles), with V-cycles over the levels that build_aggregate_levels made.
solvers::SolverStats solve_multilevel(std::vector<SweepContact>& contacts, const SweepLayout& layout,
                                      const BodyArrays& beads, double q_norm, const MatrixFreeParameters& fine,
                                      const MultilevelParameters& params, MultilevelWorkspace& work,
                                      GeneralContactSweep* general = nullptr);

}  // namespace talus::matrixfree
