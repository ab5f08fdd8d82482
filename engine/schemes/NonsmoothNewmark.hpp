#pragma once
// Nonsmooth Newmark and Hilber–Hughes–Taylor schemes (seed 000 eqs 68–73). The measure M dv is split into a
// smooth part M a dt, collocated as in the smooth schemes, and an impulsive part M dv^con integrated to first
// order over the step (eqs 69–72):
//   M a_{k+1}        = (1 − α) f(t_{k+1}, q_{k+1}, v_{k+1}) + α f(t_k, q_k, v_k)          (F_{k+1+α}, eq 102)
//   M Δv^con_{k+1}   = Jᵀ Λ_{k+1}
//   v_{k+1} = v_k + h a_{k+γ} + Δv^con_{k+1},   a_{k+γ} = (1 − γ) a_k + γ a_{k+1}
//   q_{k+1} = q_k + h v_k + ½h² a_{k+2β} + ½ h Δv^con_{k+1}                                      (eq 73)
// with the constraints at velocity level: Newton's law 0 ≤ U_{k+1} + e U_k ⟂ Λ ≥ 0 for the unilateral rows
// whose forecast gap g(q_k + h v_k + ½h² a_k) is ≤ 0, and U_{k+1} = 0 on bilateral rows (always active, also
// impulsive: the collocation carries no constraint force). α = 0 is Newmark; α ∈ [0, 1/3] with γ = ½ + α and
// β = (1 + α)²/4 is HHT (hht_parameters()). Positions are not projected: gaps and bilateral constraints drift
// at position level by O(h) per impact (the generalized-α scheme with position correction removes it).
// Rigid bodies: the position update above is taken on the Lie group, q_{k+1} = q_k ∘ exp(Δ) with Δ the bracketed
// increment in velocity coordinates (SecondOrderSystem::retract), as generalized-α does; the small path's
// detection stage (engine/detection/SmallPathDetection.hpp) runs before each step.
//
// One step = one MLCP in Λ after eliminating a: the iteration matrix is S = M + (1 − α)(h²β K_t + hγ C_t)
// (seed 000 eq 56), factorised once for LTI systems (CHOLMOD); nonlinear systems or relations iterate
// Josephy–Newton (relinearise, re-solve) until the increments fall below the tolerance.
//
// Energy (seed 000 eqs 91–95, 103–104, derived for this collocation in docs/schemes.md): with
//   algorithmic = (h²/4)(2β − γ) a_{k+1}ᵀ M a_{k+1} + ½ α (1 − γ) ‖q_{k+1} − q_k‖²_K,
//   external_work = Δqᵀ F̂_{k+γ},  damping_work = −Δqᵀ (C v)^_{k+γ},  x̂_j = (1 − α) x_j + α x_{j−1},
//   contact_work = ½ (U_k + U_{k+1})ᵀ Λ  (U = J v),
//   numerical_dissipation = −(γ − ½ − α)‖Δq‖²_K − (γ − ½)(h²/2)(2β − γ)‖Δa‖²_M − ½ α (1 − γ)‖Δq_{k+1} − Δq_k‖²_K,
// the identity Δ(E + algorithmic) = external_work + damping_work + contact_work + numerical_dissipation holds to
// round-off for LTI systems with linear relations (eq 95 for α = 0, eq 104 for HHT).
#include "engine/Model.hpp"
#include "engine/StepReport.hpp"
#include "solvers/lcp/LcpSolver.hpp"

namespace talus {

struct NonsmoothNewmarkParameters {
  double h = 1e-3;      // time step [s]
  double gamma = 0.5;   // γ
  double beta = 0.25;   // β
  double alpha = 0.0;   // HHT α ∈ [0, 1/3]; 0 = Newmark
  double newton_tolerance = 1e-10;  // on the increments between Newton iterates (see StepKernels.hpp)
  int newton_max_iterations = 50;
  solvers::LcpSolverOptions lcp;
  // A step whose MLCP is not solved, whose Newton loop does not converge or whose state is not finite
  // (engine/StepReport.hpp): RollBack throws StepFailure and leaves the model and the scheme as they were; Keep
  // applies it (the last iterate) and says so in the report's solver status and message.
  FailurePolicy on_failure = FailurePolicy::RollBack;
};

// HHT with the standard rule γ = ½ + α, β = (1 + α)²/4 (seed 000 eq 60 with α ↦ −α; α ∈ [0, 1/3]).
NonsmoothNewmarkParameters hht_parameters(double h, double alpha);

class NonsmoothNewmark {
 public:
  // a₀ = M⁻¹ f(t₀, q₀, v₀). Throws std::invalid_argument on bad parameters or an unsupported model.
  NonsmoothNewmark(Model& model, const NonsmoothNewmarkParameters& params);
  ~NonsmoothNewmark();
  NonsmoothNewmark(const NonsmoothNewmark&) = delete;
  NonsmoothNewmark& operator=(const NonsmoothNewmark&) = delete;

  // Advances by h. An unsolved MLCP, a Newton failure or a non-finite state fails the step by
  // parameters().on_failure (StepFailure names the step, its time and the interactions or the system).
  const StepReport& step();
  const StepReport& last_report() const;
  const NonsmoothNewmarkParameters& parameters() const;
  const Vector& acceleration() const;

  // What a step reads of the previous ones besides the model's (t_k, q_k, v_k) (restart archives,
  // apps/SceneRestart.hpp): a_k, the α-weighted external and damping forces F̂_k and (C v)^_k of the HHT
  // collocation and energy terms, and the last increment q_k − q_{k−1} of the HHT dissipation term.
  struct CarriedState {
    Vector acceleration, weighted_external_force, weighted_damping_force, last_increment;
  };
  CarriedState carried_state() const;
  // Continues a run from its carried state: everything else a step reads (f(t_k, q_k, v_k), J_U v_k, F_k, C v_k,
  // the iteration matrices) the constructor recomputes from the model with the expressions that end a step, so
  // the continuation is bitwise. Call it before the first step; sizes (dofs) and finiteness are checked
  // (std::invalid_argument).
  void restore_carried_state(const CarriedState& s);

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace talus
