#pragma once
// One Moreau–Jean step of a bead assembly (issue 4 items 2–4; seed 004: Moreau–Jean with Newton impact and
// Coulomb friction, θ = 1), as a list of timed stages (STYLE.md practice 3; docs/granular.md):
//   broad     (every resort_every steps: Morton re-sort of the beads) cell grid, candidate pairs
//   narrow    exact distances, frames, colouring on bodies (contacts laid out in sweep order), diagonal
//             blocks of W, warm start from the contact cache
//   assembly  free velocities v* = v_k + h g, ‖q‖ with q = H v* + extra (and W itself when asked)
//   solve     matrix-free coloured NSGS (MatrixFreeNsgs.hpp) or, for comparison, assembled W + solvers' nsgs
//   integration  x_{k+1} = x_k + h v_{k+1}; reactions stored in the contact cache
//
// Activation forecast: a contact enters the one-step problem when its surfaces can meet during the step,
// gap_k <= margin = h (2 max|v_k| + h|g|) (a bound on the approach speed); its normal law is then
// u_N,k+1 + gap_k/h >= 0 (gap_k > 0: the beads may close the gap exactly but not pass through; with e = 0 this
// is Newton's law at the moment of contact) or u_N,k+1 + e u_N,k >= 0 (gap_k <= 0: Newton's impact law of the
// seed). A stack at rest thus keeps every contact closed with zero velocity instead of chattering on/off.
//
// A step whose solve does not reach the tolerance is reported (status, message) and still applied: the caller
// decides (the granular runner stops, tests fail). No heap allocation once the buffers reach their high-water
// mark; results depend on the thread count only through nothing: colouring and reductions are thread-count
// independent (checked by tests/granular determinism test).
#include <array>
#include <cstdint>
#include <vector>

#include "contact/BroadPhase.hpp"
#include "contact/CellGrid.hpp"
#include "contact/ContactCache.hpp"
#include "contact/NarrowPhase.hpp"
#include "engine/granular/BodyColouring.hpp"
#include "engine/granular/GeneralDetection.hpp"
#include "engine/granular/GranularModel.hpp"
#include "engine/granular/MatrixFreeNsgs.hpp"
#include "engine/granular/MultilevelNsgs.hpp"
#include "engine/granular/PhaseProfile.hpp"
#include "engine/granular/SweepContact.hpp"
#include "engine/granular/SweepPartition.hpp"
#include "solvers/core/FrictionContactProblem.hpp"
#include "solvers/core/SolverStats.hpp"

namespace talus::granular {

// MatrixFree: plain coloured NSGS sweeps (MatrixFreeNsgs.hpp). Multilevel: the same sweeps as smoother of
// V-cycles whose coarse levels are rigid aggregates of beads (MultilevelNsgs.hpp). Nncg: the sweeps with
// nonsmooth nonlinear conjugate-gradient acceleration. Assembled: W formed and solved by solvers' nsgs
// (comparison only).
enum class GranularSolver { MatrixFree, Assembled, Multilevel, Nncg };


struct GranularParameters {
  double h = 1e-3;          // time step [s]
  double tolerance = 1e-4;  // common friction-contact residual, every step
  int max_sweeps = 10000;
  int check_every = 4;      // sweeps between residual checks (matrix-free)
  bool check_first = true;  // matrix-free: residual of the warm start before the first sweep
  double relaxation = 1.0;  // ω of the matrix-free projected SOR
  bool symmetric = false;   // alternate forward and backward matrix-free sweeps
  int partitions = 0;       // matrix-free sweep blocks (SweepPartition.hpp); 0 = default_partitions(N)
  int threads = 1;
  int resort_every = 50;    // steps between Morton re-sorts; 0 = never
  GranularSolver solver = GranularSolver::MatrixFree;
  bool record_history = false;  // keep every residual evaluation of each solve (residual_history())
  MultilevelParameters multilevel;  // solver == Multilevel
};

struct GranularStepReport {
  double time = 0.0;
  long step = 0;
  int contacts = 0;
  int colours = 0;
  double max_penetration = 0.0;  // max(−gap) over the contacts at the start of the step [m]
  solvers::SolverStats solver;
  int residual_checks = 0;  // matrix-free: residual evaluations beside the sweeps
  int cycles = 0;           // multilevel: V-cycles
  int levels = 0;           // multilevel: coarse levels built for the step
  std::array<double, kPhaseCount> phase_seconds{};
  // CPU time of the calling thread per phase: the whole cost with one thread, and what the wall time of a
  // loaded machine cannot tell (time spent descheduled is not counted).
  std::array<double, kPhaseCount> phase_cpu_seconds{};
};

class GranularStepper {
 public:
  // Throws std::invalid_argument for bad parameters.
  GranularStepper(GranularModel& model, const GranularParameters& params, PhaseProfile* profile = nullptr);

  const GranularStepReport& step();

  const GranularParameters& parameters() const { return params_; }
  // Bytes held by the beads and by the stepper's buffers (capacities, the contact cache included).
  std::size_t memory_bytes() const;
  const GranularStepReport& last_report() const { return report_; }
  // The last step's contacts (sweep order) with their impulses, and their cache keys in the same order.
  const std::vector<SweepContact>& contacts() const { return contacts_; }
  const std::vector<contact::ContactKey>& contact_keys() const { return keys_; }
  // The last step's contacts touching a capsule (full 3×3 blocks of W), with their keys.
  const GeneralContactSet& general_contacts() const { return general_; }
  // Asks the next step to keep its one-step problem (assembled W, q, μ) in last_problem().
  void keep_next_problem() { keep_problem_ = true; }
  const solvers::FrictionContactProblem& last_problem() const { return problem_; }
  // The residual evaluations of the last solve, when parameters().record_history (empty otherwise).
  const std::vector<ResidualSample>& residual_history() const {
    return params_.solver == GranularSolver::Multilevel ? multilevel_.fine.history : work_.history;
  }
  // The warm start kept between steps (restart archives save and restore it): bead contacts, and contacts
  // touching a capsule.
  contact::ContactCache& contact_cache() { return cache_; }
  contact::ContactCache& capsule_contact_cache() { return general_.cache; }
  // Forget the warm start (after beads were added, for instance: not needed, keys stay valid).
  void clear_cache() { cache_.clear(); }

 private:
  void resort();
  void wrap_positions();
  void detect(double margin);
  bool obstacle_point(int obstacle, int bead, contact::ContactPoint& cp) const;
  void narrow();
  void assemble();
  void solve();
  void integrate();

  GranularModel& m_;
  GranularParameters params_;
  PhaseProfile* profile_;
  GranularStepReport report_;

  contact::CellGrid grid_;
  std::vector<std::vector<contact::BodyPair>> pair_buffers_;
  std::vector<contact::BodyPair> pairs_;
  struct WallHit {
    std::int32_t bead;
    std::int16_t wall, feature;
  };
  std::vector<std::vector<WallHit>> wall_buffers_;
  std::vector<WallHit> wall_hits_;  // wall index w < walls.size(), else box w − walls.size()
  std::vector<contact::Wall> walls_now_;      // the walls at the start of the step
  std::vector<double> wall_speed_, wall_margin_;
  std::vector<std::int32_t> cand_a_, cand_b_;
  SweepLayout layout_;
  std::vector<SweepContact> contacts_;
  std::vector<contact::ContactKey> keys_;
  std::vector<double> gaps_;
  std::vector<Eigen::Vector3d> world_impulses_;
  contact::ContactCache cache_;
  MatrixFreeWorkspace work_;
  MultilevelWorkspace multilevel_;
  double q_norm_ = 0.0;
  bool keep_problem_ = false;
  solvers::FrictionContactProblem problem_;
  std::vector<std::int32_t> order_;
  std::vector<std::pair<std::uint64_t, std::int32_t>> sort_scratch_;
  SphereBodies permute_scratch_;
  GeneralDetectionBuffers general_buffers_;
  GeneralContactSet general_;
};

}  // namespace talus::granular
