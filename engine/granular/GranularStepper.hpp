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
// Each contact's μ and e are those of the pair of its materials (Model::materials, engine/Materials.hpp),
// looked up once in the narrow phase: μ goes into the contact, e into its normal target, and the sweeps read
// nothing else.
//
// Scheme GeneralizedAlpha: the nonsmooth generalized-α scheme of Chen, Acary, Virlez and Brüls (seed 004 eqs
// 34–42) on the same stages, for beads and capsules with 3-D Coulomb friction. The motion is split into a smooth
// part, q̃_{k+1} = q_k + h v_k + h²(½ − β) a_k + h²β a_{k+1} and ṽ_{k+1} = v_k + h(1 − γ) a_k + hγ a_{k+1}
// (eqs 41a–41e), an impulsive velocity jump and a position correction:
//   velocity  v_{k+1} = ṽ_{k+1} + M⁻¹ Hᵀ Λ: the friction-contact problem above, on ṽ_{k+1}, with Newton's law
//             u_N,k+1 + e u_N,k >= 0 for the contacts the smooth prediction q* makes close (g(q*) <= 0, eq 40h);
//   position  q_{k+1} = q̃_{k+1} + M⁻¹ Hᵀ ν: a second friction-contact problem on the "velocity" (q̃_{k+1} − q_k)/h
//             with the normal law g(q_{k+1}) >= 0, i.e. u_N + gap_k/h >= 0 ⟂ ν_N (eq 40's position level), and
//             Coulomb's law on the step's tangential displacement (ν_T in the cone μ ν_N, opposite to it).
// For rigid bodies under gravity the smooth acceleration is constant (unilateral contacts carry no smooth
// multiplier, λ̃_U = 0), so a_k = g whatever α_m, α_f (eq 41e) and ṽ_{k+1} = v_k + h g, q̃_{k+1} = q_k + h v_k +
// ½h² g: free flight is exact and ρ∞ drops out. Capsules' rotations are predicted with ω_k (their gyroscopic
// term enters the velocity as under Moreau–Jean), first order.
// Why friction at position level: with the normal correction alone, a body sticking on a slope keeps v = 0 but
// ½h² g's tangential part moves it every step, an O(h) creep; with it, sticking needs |ν_T| <= μ ν_N, i.e.
// tan θ <= μ, exactly as the continuous law (tests/granular/test_generalized_alpha.cpp).
// A contact that q* leaves open keeps Moreau–Jean's open law u_N + gap_k/h >= 0 in the velocity problem rather
// than Λ = 0: it binds only if the new velocity closes the gap within the step, and a resting contact that the
// position correction left a round-off gap open keeps its support instead of chattering between the laws.
// Both problems are solved by the chosen solver to the same tolerance, each warm-started from its own cache; the
// report's solver statistics are the two solves together (sweeps summed, the larger residual, the position
// solve's failure named as such).
//
// Joints (issue 11: a mechanism meets beads): the model's interactions may be bilateral joints
// (engine/joints/RigidJoint.hpp: spherical, revolute, prismatic, driver) between two capsules or a capsule and the
// world. Their rows U = J v + target = 0 join the contacts in the same solve (solvers/matrixfree/JointSweep.hpp:
// each block of joints sharing a body solved exactly after the contacts of every sweep, its errors in the common
// residual), with J(q_k) in world velocity coordinates (the relations give body-frame Ω columns: J_ω = J_Ω Rᵀ).
// Like a contact's gap_k/h, the target ∂g/∂t + g(q_k)/h asks the step to close the joint's gap, so
// g(q_{k+1}) = O(h²) of the manifold's curvature and does not accumulate (no drift, no projection stage). Under
// generalized-α the velocity problem holds J v_{k+1} + ∂g/∂t = 0 and the position problem, whose unknown is
// (q_{k+1} − q_k)/h, takes the target ∂g/∂t + g(q_k)/h. Each problem warm-starts its multipliers from its last
// solve (joints keep their order in the interaction list). Beads cannot be jointed: the Morton re-sort moves
// them. The assembled, multilevel and nncg solvers refuse joints.
//
// A step whose solve does not reach the tolerance, or leaves a non-finite impulse or velocity, is not applied
// (FailurePolicy::RollBack, engine/StepReport.hpp, the default): the velocities are restored (positions, caches,
// clock and step count are only written once the solves succeeded) and StepFailure names the step, its time and
// the contact or body (the fastest body after the failed solve). With FailurePolicy::Keep it is applied and
// reported (status, message), as benches that count failed solves need. No heap allocation once the buffers reach their high-water
// mark; results depend on the thread count only through nothing: colouring and reductions are thread-count
// independent (checked by tests/granular determinism test).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "contact/BroadPhase.hpp"
#include "contact/CellGrid.hpp"
#include "contact/ContactCache.hpp"
#include "contact/MeshContact.hpp"
#include "contact/MeshProximityGrid.hpp"
#include "contact/NarrowPhase.hpp"
#include "engine/StepProfile.hpp"
#include "engine/StepReport.hpp"
#include "solvers/matrixfree/BodyColouring.hpp"
#include "engine/granular/BeamContacts.hpp"
#include "engine/granular/GeneralDetection.hpp"
#include "engine/granular/GranularFailure.hpp"
#include "engine/Model.hpp"
#include "solvers/matrixfree/JointSweep.hpp"
#include "solvers/matrixfree/MatrixFreeNsgs.hpp"
#include "solvers/matrixfree/MultilevelNsgs.hpp"
#include "solvers/matrixfree/PartitionedSolve.hpp"
#include "solvers/matrixfree/RollingResistance.hpp"
#include "solvers/matrixfree/SweepContact.hpp"
#include "solvers/matrixfree/SweepPartition.hpp"
#include "solvers/core/FrictionContactProblem.hpp"
#include "solvers/core/SolverStats.hpp"
#include "solvers/fc/GlobalFrictionContactProblem.hpp"

namespace talus::granular {

// MatrixFree: plain coloured NSGS sweeps (MatrixFreeNsgs.hpp). Multilevel: the same sweeps as smoother of
// V-cycles whose coarse levels are rigid aggregates of beads (MultilevelNsgs.hpp). Nncg: the sweeps with
// nonsmooth nonlinear conjugate-gradient acceleration. Anderson: the sweeps with Anderson acceleration
// (AndersonSweep.hpp). Assembled: W formed and solved by solvers' nsgs (comparison only).
enum class GranularSolver { MatrixFree, Assembled, Multilevel, Nncg, Anderson };

// The solvers' names in scene files and benches ("matrix_free", "assembled", "multilevel", "nncg", "anderson"),
// in enum order; the lookup throws std::invalid_argument naming the known ones.
const std::vector<std::string>& granular_solver_names();
const std::string& granular_solver_name(GranularSolver solver);
GranularSolver granular_solver_from_name(const std::string& name);

// The time-stepping scheme (this file's header): Moreau–Jean (θ = 1) or nonsmooth generalized-α.
enum class GranularScheme { MoreauJean, GeneralizedAlpha };


struct GranularParameters {
  double h = 1e-3;          // time step [s]
  double tolerance = 1e-4;  // common friction-contact residual, every step
  int max_sweeps = 10000;
  int check_every = 4;      // sweeps between residual checks (matrix-free)
  bool check_first = true;  // matrix-free: residual of the warm start before the first sweep
  double relaxation = 1.0;  // ω of the matrix-free projected SOR
  bool symmetric = false;   // alternate forward and backward matrix-free sweeps
  int partitions = 0;       // matrix-free sweep blocks (SweepPartition.hpp); 0 = automatic_partitions(N, threads)
  int threads = 1;
  int resort_every = 50;    // steps between Morton re-sorts; 0 = never
  GranularSolver solver = GranularSolver::MatrixFree;
  int anderson_memory = 2;  // solver == Anderson: sweeps the extrapolation looks back on, 1..8
  int anderson_every = 2;   // solver == Anderson: sweeps per extrapolation, 1..4 (docs/stack-height.md: 2 measured fastest)
  int anderson_restarts = 8;  // solver == Anderson: history restarts after which a solve goes on with plain sweeps
  double anderson_stall = 0.0;  // solver == Anderson: a residual check lower by less than this fraction restarts too
  // solver == Anderson, > 0: a step whose warm start is within this factor of the tolerance is solved by plain
  // sweeps (docs/stack-height.md, "Plain sweeps for a good warm start": 3 makes a settled 10⁴ pack 3× cheaper;
  // opt-in, as whole settling runs are a draw).
  double anderson_warm = 0.0;
  // Order of the contacts inside each sweep block: detection order (bead pairs cell by cell, then the wall
  // contacts), or by the height of the contact point against gravity, bottom-up or top-down (docs/stack-height.md,
  // "Sweep order by height": measured, opt-in). With no gravity, detection order.
  enum class ContactOrder { Detection, BottomUp, TopDown };
  ContactOrder contact_order = ContactOrder::Detection;
  double order_layer = 0.1;  // > 0: heights binned in layers of this many bead radii (detection order inside a
                             // layer, a linear-time sort); 0: sorted exactly
  GranularScheme scheme = GranularScheme::MoreauJean;
  // The θ of the model's FE beams (BeamContacts.hpp; Moreau–Jean only): 1, the beads' θ, by default; ½
  // conserves a free beam's energy but lets closed contacts drift into it (BeamContacts.hpp).
  double beam_theta = 1.0;
  // The spectral radius at infinity ρ∞ of generalized-α (seed 004 eq 42) for the model's FE beams (BeamContacts.hpp):
  // beads and capsules under gravity do not depend on it (header).
  double rho_infinity = 0.8;
  bool record_history = false;  // keep every residual evaluation of each solve (residual_history())
  FailurePolicy on_failure = FailurePolicy::RollBack;  // a step whose solve fails (header)
  // matrix_free and anderson on bead contacts (with rolling resistance too, not with capsule contacts or joints): a
  // solve that fails from its warm start is solved once more from zero impulses before the step is given up. In the
  // creep of a settling pile the previous step's impulses can start Gauss–Seidel in a cycle that never reaches the
  // tolerance, where a cold start converges (docs/stack-height.md, "A cold retry"). Steps that converge are untouched.
  bool cold_retry = true;
  MultilevelParameters multilevel;  // solver == Multilevel
  // Under mpirun (issue 15): the bead contacts' solve spread over the processes (not owned), each holding the whole
  // model (solvers/distributed/DistributedNsgs.hpp) or its part of it (InterfaceNsgs.hpp). Used for the matrix-free
  // and Anderson solvers on steps without capsule contacts or joints, and with rolling resistance where the solve
  // spreads it (PartitionedSolve::spreads_rolling: a partitioned model); other steps are solved whole on every
  // process. The beads are then cut into at least min_sweep_blocks() sweep blocks.
  PartitionedSolve* distributed = nullptr;
};

// The engine's one report (engine/StepReport.hpp: time, step, active = every contact of the step, solver
// statistics, per-stage wall and CPU times) with what only the granular path measures.
struct GranularStepReport : StepReport {
  int contacts = 0;         // bead contacts (the sweep kernel's); active adds the contacts touching a capsule
  int colours = 0;
  double max_penetration = 0.0;  // max(−gap) over the contacts at the start of the step [m]
  int residual_checks = 0;  // matrix-free: residual evaluations beside the sweeps
  int cycles = 0;           // multilevel: V-cycles
  int levels = 0;           // multilevel: coarse levels built for the step
  int position_sweeps = 0;  // generalized-α: sweeps of the position correction (included in solver.iterations)
  int beam_resolves = 0;    // generalized-α with FE beams: velocity problems solved again for the coupling (BeamContacts.hpp)
  int cold_retries = 0;     // solves done again from zero impulses after failing from their warm start (cold_retry)
};

class GranularStepper {
 public:
  // Throws std::invalid_argument for bad parameters.
  GranularStepper(Model& model, const GranularParameters& params, PhaseProfile* profile = nullptr);

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
  // Throws std::invalid_argument, saying why, when unkeepable_problem() is not empty.
  void keep_next_problem();
  // Why this model's step problems cannot be kept (the kept problem holds the bead contacts only: rolling
  // resistance, capsules, drums, moving meshes and FE beams would be left out), or an empty string.
  std::string unkeepable_problem() const;
  const solvers::FrictionContactProblem& last_problem() const { return problem_; }
  // The same problem in FCLIB's global form (AssembledProblem.hpp), kept with it.
  const solvers::GlobalFrictionContactProblem& last_global_problem() const { return global_problem_; }
  // The residual evaluations of the last solve, when parameters().record_history (empty otherwise).
  const std::vector<ResidualSample>& residual_history() const {
    return params_.solver == GranularSolver::Multilevel ? multilevel_.fine.history : work_.history;
  }
  // The warm start kept between steps (restart archives save and restore it): one cache of every contact, bead
  // contacts and those touching a capsule or met by a drum or a moving mesh alike (contact/ContactKey.hpp).
  contact::ContactCache& contact_cache() { return cache_; }
  // Generalized-α: the position corrections' warm start (impulse-like ν, world frame), every contact.
  contact::ContactCache& position_cache() { return position_cache_; }
  // The model's joints (all its interactions), in their order: joint k's rows are [joint_row_start()[k],
  // joint_row_start()[k + 1]) of joint_impulses(), the last step's impulses of the velocity problem (the force
  // over the step is impulse / h; a driver's row is its torque about its axis times h). Also the warm start.
  const std::vector<double>& joint_impulses() const { return joints_.impulse; }
  // Generalized-α: the joints' impulses of the last position correction (its warm start).
  const std::vector<double>& joint_position_impulses() const { return joint_position_impulse_; }
  // A restart's joint warm start (restart archives save joint_impulses() and joint_position_impulses()): taken at
  // the next step when the joints' rows still match in number, dropped otherwise.
  void restore_joint_impulses(std::vector<double> velocity, std::vector<double> position) {
    pending_joint_impulse_ = std::move(velocity), pending_joint_position_impulse_ = std::move(position);
  }
  const std::vector<int>& joint_row_start() const { return joints_.row_start; }
  // Generalized-α with FE beams (BeamContacts.hpp): each beam's a_n and ṽ̇_n, beam after beam in the model's order
  // (empty before the first step), which (q_n, v_n) alone do not determine; restore_beam_accelerations continues a
  // run from an archive's (std::invalid_argument when the sizes are not the beams').
  void beam_accelerations(std::vector<double>& a, std::vector<double>& vdot) const;
  void restore_beam_accelerations(const std::vector<double>& a, const std::vector<double>& vdot);
  // The joints' rows of the last step (world-frame Jacobians at its start: a row's impulse λ acts on body a as
  // the force λ J_a[0:3] and the torque λ J_a[3:6] about its centre).
  const JointSweep& joint_sweep() const { return joints_; }
  // Rolling resistance (a material pair with ContactLaw::rolling > 0): the last step's rolling records of the bead
  // contacts (in contacts()' order; empty without rolling resistance) and their warm start (world vectors
  // R*-scaled, RollingResistance.hpp), which restart archives save. General contacts carry their own records
  // (GeneralContact::roll).
  bool has_rolling_resistance() const { return has_rolling_; }
  const RollingContacts& rolling_contacts() const { return rolling_; }
  // (general contacts between a bead and an obstacle, drums and moving meshes, included).
  contact::ContactCache& rolling_cache() { return rolling_cache_; }
  // The FE beams' part of the step (BeamContacts.hpp): their contacts' keys, in general_contacts().flexible's order.
  const BeamContacts& beam_contacts() const { return beams_; }
  // Forget the warm start (after beads were added, for instance: not needed, keys stay valid).
  void clear_cache() { cache_.clear(); }

 private:
  void resort();
  void wrap_positions();
  void detect(double margin);
  bool obstacle_point(int obstacle, int bead, contact::ContactPoint& cp) const;
  void order_candidates(int np, int n);
  void narrow();
  void build_joints();
  void assemble();
  // with_rolling: the rolling rows join the solve (generalized-α's position problem has none).
  void solve(bool with_rolling = true);
  void integrate();
  void correct_positions();
  // The position problem's free velocities; with FE beams (BeamContacts.hpp), the move between the two problems
  // and the rounds that solve them again until their coupling terms agree.
  void position_free_velocities();
  void swap_problems();
  void couple_beam_problems(solvers::SolverStats& velocity, solvers::SolverStats& position);
  void store_impulses(contact::ContactCache& cache);
  // After a solve: false when it completed; otherwise, under RollBack, the velocities of the step's start are
  // restored and StepFailure is thrown, under Keep the report says what failed and true is returned.
  bool solve_failed(const char* which);
  Eigen::Vector3d mesh_position(int mesh, int bead) const;
  Eigen::Vector3d mesh_warm_start(int mesh, int feature, std::uint32_t bead_id) const;
  bool generalized_alpha() const { return params_.scheme == GranularScheme::GeneralizedAlpha; }

  Model& m_;
  GranularParameters params_;
  PhaseProfile* profile_;
  GranularStepReport report_;

  contact::CellGrid grid_;
  std::vector<std::vector<contact::BodyPair>> pair_buffers_;
  std::vector<contact::BodyPair> pairs_;
  struct WallHit {
    std::int32_t bead;
    std::int32_t wall, feature;  // feature: a wall's plane or rim, a cone's surface or rim, a mesh's feature
  };
  std::vector<std::vector<WallHit>> wall_buffers_;
  // wall index w < walls.size(), else box w − walls.size() below boxes.size(), else cone w − walls − boxes below
  // cones.size(), else mesh w − walls − boxes − cones
  std::vector<WallHit> wall_hits_;
  std::vector<std::vector<contact::MeshCandidate>> mesh_scratch_;  // per thread
  std::vector<std::uint32_t> mesh_feature_offset_;  // mesh k's features in the cache keys start here
  // Where each mesh is (MeshProximityGrid.hpp), for beads reaching no farther than its pad: built at the first
  // detection with pad 1.25 (r_max + margin), again (1.25 times the reach) should a bead reach farther.
  std::vector<contact::MeshProximityGrid> mesh_grids_;
  double mesh_grid_pad_ = 0.0;
  std::vector<double> mesh_travel_;  // how far each moving mesh's surface moves in a step at most (0: fixed)
  std::vector<contact::Wall> walls_now_;      // the walls at the start of the step
  std::vector<double> wall_speed_, wall_margin_;
  std::vector<std::int32_t> cand_a_, cand_b_;
  SweepLayout layout_;
  std::vector<SweepContact> contacts_;
  std::vector<contact::ContactKey> keys_;
  std::vector<int> obstacle_slots_;  // the slots of contacts_ against an obstacle (a < 0), in layout order
  std::vector<int> counted_slots_;   // with a distributed solve: those of obstacle_slots_ this process reports
  std::vector<double> gaps_;
  std::vector<Eigen::Vector3d> world_impulses_;
  contact::ContactCache cache_;
  // Rolling resistance: whether any law has it, the contacts' rolling records (sweep order), their warm start.
  bool has_rolling_ = false;
  RollingContacts rolling_;
  contact::ContactCache rolling_cache_;
  // Generalized-α: each contact's position-level normal target, the velocity solve's impulses while the
  // position problem holds the contacts, and the bodies' v_k, ω_k (start) and v_{k+1}, ω_{k+1} (end), beads and capsules alike.
  // v_start_, w_start_ are also what a failed step restores (RollBack).
  std::vector<double> position_extra_;
  std::vector<Eigen::Vector3d> velocity_r_;
  std::vector<Eigen::Vector3d> v_start_, w_start_, v_end_, w_end_;
  // The bodies' free velocities of the current solve, for a cold retry (GranularParameters::cold_retry).
  std::vector<Eigen::Vector3d> free_v_, free_w_;
  std::vector<Eigen::Vector3d> v_free_, w_free_;  // the velocity problem's free velocities (kept with FE beams)
  double other_q_norm_ = 0.0;                      // generalized-α: ‖q‖ of the problem not being solved
  // Generalized-α with FE beams: the norms of the beam contacts' free velocities in the two problems, and the
  // rounds' unknowns and Anderson history (couple_beam_problems).
  double beam_velocity_scale_ = 0.0, beam_position_scale_ = 0.0;
  Vector beam_nu_used_, beam_nu_found_;
  std::vector<Vector> anderson_f_, anderson_g_;
  bool in_position_problem_ = false;
  contact::ContactCache position_cache_;
  MatrixFreeWorkspace work_;
  MultilevelWorkspace multilevel_;
  double q_norm_ = 0.0;
  bool keep_problem_ = false;
  solvers::FrictionContactProblem problem_;
  solvers::GlobalFrictionContactProblem global_problem_;
  std::vector<std::int32_t> order_;
  std::vector<std::int32_t> candidate_order_;             // narrow(): candidate k is detected contact candidate_order_[k]
  std::vector<std::pair<double, std::int32_t>> height_;  // narrow(): sort keys of contact_order
  std::vector<std::int32_t> layer_count_, layer_of_;     // narrow(): counting sort by layer (order_layer > 0)
  std::vector<std::pair<std::uint64_t, std::int32_t>> sort_scratch_;
  std::vector<char> permute_scratch_;
  GeneralDetectionBuffers general_buffers_;
  GeneralContactSet general_;
  // FE beams (BeamContacts.hpp), their contacts being general_.flexible; the margin of the step's detection, which
  // their detection widens; the keys and world impulses of general_ and the beams' contacts together (the cache's
  // second list).
  BeamContacts beams_;
  double margin_ = 0.0;
  std::vector<contact::ContactKey> other_keys_;
  std::vector<Eigen::Vector3d> other_impulses_;
  // Joints: the rows of the step; their targets for the velocity and (generalized-α) position problems; the
  // position problem's warm start; the impulses at the step's start (RollBack) and the velocity solve's while the
  // position problem holds the rows; evaluation scratch.
  JointSweep joints_;
  std::vector<double> joint_velocity_target_, joint_position_target_, joint_position_impulse_;
  std::vector<double> joint_start_impulse_, joint_velocity_impulse_;
  std::vector<double> pending_joint_impulse_, pending_joint_position_impulse_;  // restore_joint_impulses
  std::vector<int> joint_rows_;
  Eigen::MatrixXd joint_ja_ = Eigen::MatrixXd(6, 6), joint_jb_ = Eigen::MatrixXd(6, 6);
  Eigen::VectorXd joint_g_ = Eigen::VectorXd(6), joint_dgdt_ = Eigen::VectorXd(6);
};

}  // namespace talus::granular
