#pragma once
// Moreau–Jean θ-scheme at velocity level (seed 000 eqs 36–41; seed 004 eq 31), for all three families of
// systems, with the activation forecast ḡ = g + γ h U (eq 41e). The one-step problem is assembled as
// W = J M̂⁻¹ Jᵀ, q = J v_free (+ e U_k terms) with sparse matrices; M̂ = M + hθC + h²θ²K is factorised once
// when constant. Variants:
//  - Standard: eqs 41a–e.
//  - Dissipative: seed 000 eq 87 (q_{k+1} = q_k + h v_{k+1/2}, always dissipative for θ >= 1/2, eq 88).
//  - Paoli: the velocity-based scheme of seed 001 (q_{i+1} = q_i + h u_i, then the projection formula for
//    u_{i+1} with the weighted velocity (u_{i+1} + e u_i)/(1+e)).
#include <string>

#include "engine/Model.hpp"
#include "engine/StepReport.hpp"
#include "solvers/core/FrictionContactProblem.hpp"

namespace talus {

enum class MoreauJeanVariant { Standard, Dissipative, Paoli };
enum class OneStepSolverKind { Lemke, Psor, Nsgs };

struct MoreauJeanParameters {
  double h = 1e-3;      // time step [s]
  double theta = 0.5;   // θ ∈ [0, 1]
  double gamma = 1.0;   // forecast ḡ = g + γ h U, γ ∈ [0, 1]
  // [length] ḡ <= activation_tolerance activates a contact. It absorbs the round-off of a resting contact
  // (U_k ≈ 1e-17 instead of 0 would otherwise deactivate it every other step and make it chatter by g h²);
  // activating a contact this close to touching only forbids approach for one step.
  double activation_tolerance = 1e-12;
  MoreauJeanVariant variant = MoreauJeanVariant::Standard;
  OneStepSolverKind solver = OneStepSolverKind::Lemke;
  double solver_tolerance = 1e-12;   // in the solver family's common residual measure
  int solver_max_iterations = 10000;
  double newton_tolerance = 1e-10;   // nonlinear systems: Newton on the θ-scheme residual
  int newton_max_iterations = 50;
  // Joints (engine/joints/RigidJoint.hpp) are held at velocity level by the scheme, and their positions are then
  // projected back onto g = 0 after every step (engine/joints/JointProjection.hpp), to this tolerance [m or rad].
  bool project_joints = true;
  double joint_projection_tolerance = 1e-12;
  // A step that cannot be completed (StepReport.hpp): RollBack throws StepFailure and leaves the model as it was;
  // Keep applies it (the solver's last iterate, the last Newton iterate) and says so in the report's solver status
  // and message.
  FailurePolicy on_failure = FailurePolicy::RollBack;
};

class MoreauJean {
 public:
  MoreauJean(Model& model, const MoreauJeanParameters& params);
  ~MoreauJean();
  MoreauJean(const MoreauJean&) = delete;
  MoreauJean& operator=(const MoreauJean&) = delete;

  // Advances the model by one step h. When the one-step problem is not solved to tolerance, Newton does not
  // converge, the joint projection fails or the state becomes non-finite, the step fails by
  // parameters().on_failure: never silently accepted. Under RollBack StepFailure names the step, its time and
  // the interactions or the body, and the model is as it was (the contacts found by this step's detection
  // excepted). Throws std::invalid_argument for a model that fails Model::validate() (checked whenever systems
  // or interactions were added).
  // After a step every interaction holds gap (row 0: g(q_{k+1})), velocity U_{k+1} = J(q_J) v_{k+1} and
  // impulse P_{k+1} (zero when it was not active); the impulses warm-start the next solve.
  const StepReport& step();
  const StepReport& last_report() const;
  const MoreauJeanParameters& parameters() const;
  // Changes h for the following steps (adaptive step-size control, engine/adaptive): the iteration matrix is
  // re-factorised on the next step only when h changed. Throws std::invalid_argument unless h > 0 and finite.
  void set_step_size(double h);

  // FCLIB dumps (issue 11 item 2: the assembled one-step problem): asks the next step to keep its one-step
  // problem. kept_problem() is then that step's friction-contact problem (u = W r + q over the active contacts, in
  // the order of their interactions; a Newton loop's last), or nullptr when the step had none: no active
  // contact, a frictionless step (an LCP), or joints beside the contacts (a mixed problem FCLIB has no form for).
  void keep_next_problem();
  const solvers::FrictionContactProblem* kept_problem() const;

 private:
  struct Impl;
  Impl* impl_;
};

const char* to_string(MoreauJeanVariant v);
const char* to_string(OneStepSolverKind s);

}  // namespace talus
