#pragma once
// Schatzman–Paoli two-step scheme at position level (seed 000 eqs 42–43; seed 004 eqs 32–33):
//   M (q_{k+1} − 2 q_k + q_{k−1}) − h² F_{k+θ} = p_{k+1} = h Jᵀ Λ_{k+1},
//   v_{k+1} = (q_{k+1} − q_{k−1}) / (2h),
//   0 ≤ g(q̂) ⟂ Λ ≥ 0,  q̂ = (q_{k+1} + e q_{k−1}) / (1 + e)  (per unilateral row, with its e),
//   g_B(q_{k+1}) = 0 on bilateral rows.
// Newton's impact law is not imposed in one step but through the weighted position over two steps.
//
// F_{k+θ}: the seeds leave it abstract. On LTI systems it is the θ-average of the three positions,
//   F_{k+θ} = θF_{k+1} + (1 − 2θ)F_k + θF_{k−1} − K (θ q_{k+1} + (1 − 2θ) q_k + θ q_{k−1}) − C (q_{k+1} − q_{k−1})/(2h),
// θ ∈ [0, ½]: θ = 0 is the explicit central difference (stable for h ω_max < 2), θ = ¼ the unconditionally
// stable, second-order average used by default. On nonlinear systems f is explicit, f(t_k, q_k, (q_k − q_{k−1})/h),
// and M is taken at q_k. The iteration matrix M + h²θK + (h/2)C is factorised once for LTI systems.
// Linear relations are imposed exactly; nonlinear g and their gradients ∇g(q̂) are linearised at the current
// iterate and the MLCP re-solved (Josephy–Newton) until the increments fall below the tolerance.
//
// Starting procedure: the virtual previous position q_{−1} = q₀ − h v₀ + ½h² M⁻¹ f(t₀, q₀, v₀) (Taylor), after
// which the scheme runs unchanged from k = 0 (so v₁ = (q₁ − q_{−1})/(2h) and the energy balance holds from the
// first step).
//
// Energy (derived in docs/schemes.md): the discrete energy lives at t_{k+1/2},
//   kinetic = ½ ‖(q_{k+1} − q_k)/h‖²_M,  potential = ½ [θ(‖q_{k+1}‖²_K + ‖q_k‖²_K) + (1 − 2θ) q_{k+1}ᵀK q_k],
//   external_work = ½ (q_{k+1} − q_{k−1})ᵀ F^ext_{k+θ},  damping_work = −‖q_{k+1} − q_{k−1}‖²_C / (4h),
//   contact_work = U_{k+1}ᵀ Λ with U_{k+1} = J v_{k+1} (J: the impulse directions applied),
// and ΔE = external_work + damping_work + contact_work exactly for LTI systems (any relations; M constant):
// numerical_dissipation reports the remainder, zero to round-off there.
//
// Rigid bodies: every difference of positions above is taken on the Lie group, q_a ⊖ q_b (DofLayout.hpp
// coordinate_difference: x_a − x_b and the body-frame rotation vector of quat_b⁻¹ quat_a), and q_{k+1} =
// q_k ∘ exp(Δ_{k+1}): the step solves for Δ_{k+1} with q_{k+1} − 2q_k + q_{k−1} read as Δ_{k+1} − Δ_k. The bodies'
// load, gravity and gyroscopic term −ω × Iω are explicit at (q_k, Δ_k / h), like the nonlinear systems' force.
#include "engine/Model.hpp"
#include "engine/StepReport.hpp"
#include "solvers/lcp/LcpSolver.hpp"

namespace talus {

struct SchatzmanPaoliParameters {
  double h = 1e-3;       // time step [s]
  double theta = 0.25;   // weight of the stiffness/external force average, θ ∈ [0, ½]
  double newton_tolerance = 1e-10;
  int newton_max_iterations = 50;
  solvers::LcpSolverOptions lcp;
  // A step whose MLCP is not solved, whose Newton loop does not converge or whose state is not finite
  // (engine/StepReport.hpp): RollBack throws StepFailure and leaves the model and the scheme as they were; Keep
  // applies it (the last iterate) and says so in the report's solver status and message.
  FailurePolicy on_failure = FailurePolicy::RollBack;
};

class SchatzmanPaoli {
 public:
  SchatzmanPaoli(Model& model, const SchatzmanPaoliParameters& params);
  ~SchatzmanPaoli();
  SchatzmanPaoli(const SchatzmanPaoli&) = delete;
  SchatzmanPaoli& operator=(const SchatzmanPaoli&) = delete;

  // Advances by h. An unsolved MLCP, a Newton failure or a non-finite state fails the step by
  // parameters().on_failure (StepFailure names the step, its time and the interactions or the system).
  const StepReport& step();
  const StepReport& last_report() const;
  const SchatzmanPaoliParameters& parameters() const;
  // q_{k−1}: the previous position the two-step scheme carries (the virtual q_{−1} before the first step).
  const Vector& previous_position() const;
  // F_{k−1}: the LTI systems' external force at the previous step, which the θ-weighted force reads.
  const Vector& previous_external_force() const;
  // Continues a run from its q_{k−1} and F_{k−1} (restart archives, apps/SceneRestart.hpp), which (q_k, v_k) do
  // not determine: the constructor's virtual q_{−1} and F(t − h) are replaced, and the energy E_{k−1/2} the next
  // step's balance starts from is recomputed from them as a step ends, so the continuation is bitwise. Call it
  // before the first step; sizes and finiteness are checked (std::invalid_argument).
  void restore_previous(const Vector& q_prev, const Vector& F_prev);

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace talus
