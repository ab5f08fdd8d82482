#pragma once
// Nonsmooth generalized-α scheme of Chen, Acary, Virlez and Brüls (seed 004 eqs 34–42; seed 000 slides 57–73),
// with the GGL position correction of seed 004 eq 37.
//
// The motion is split (eq 34) into a smooth part, integrated by the generalized-α formulas with second-order
// accuracy, and an impulsive part integrated to first order:
//   q_{n+1} = q̃_{n+1} + U_{n+1},   q̃_{n+1} = q_n + h v_n + h²(½ − β) a_n + h²β a_{n+1}        (41a, 41b)
//   v_{n+1} = ṽ_{n+1} + W_{n+1},   ṽ_{n+1} = v_n + h(1 − γ) a_n + hγ a_{n+1}                  (41c, 41d)
//   (1 − α_m) a_{n+1} + α_m a_n = (1 − α_f) ṽ̇_{n+1} + α_f ṽ̇_n                                 (41e)
// with, at t_{n+1} (eq 40):
//   smooth:    M ṽ̇ = f(t, q_{n+1}, v_{n+1}) + J_Bᵀ λ̃,   J_B ṽ_{n+1} = 0   (bilateral rows only; λ̃_U = 0)
//   impulsive: M W = Jᵀ Λ,   J_B v_{n+1} = 0,
//              0 ≤ J_j v_{n+1} + e_j J_j(q_n) v_n ⟂ Λ_j ≥ 0  for the unilateral j with g_j(q*) ≤ 0 (40h)
//   position:  M U = Jᵀ ν,   g_B(q_{n+1}) = 0,   0 ≤ g_U(q_{n+1}) ⟂ ν_U ≥ 0
// so the impact never enters the acceleration-like variable a: the post-impact velocity of a bouncing ball is
// exactly −e v⁻, and gaps and bilateral constraints hold at position AND velocity level. The activation
// forecast q* is the smooth prediction q_n + h v_n + h²(½ − β) a_n + h²β a*, with a* the value of a_{n+1} for
// ṽ̇_{n+1} = ṽ̇_n.
//
// Coulomb friction (NewtonImpactFrictionLaw, planar dim 2 or spatial dim 3) acts on the impulsive part with the
// impact law: the tangent impulse Λ_T enters W, and (Λ_N, Λ_T) obeys Coulomb's law on U = J v_{n+1} with the
// Newton normal row, Λ ∈ K_μ, −U_T ∈ N_{D(μΛ_N)}(Λ_T) (seed 004's law, the De Saxcé form of
// solvers/core/FrictionContactProblem.hpp on (U_N + e U_n, U_T)). It acts on the position correction too (an
// extension of eq 40a–c, which is normal only): ν, the integral of the impulse measure over the step (eq 38b),
// gets a tangential part on each active contact with friction, M U = Jᵀν + J_Tᵀν_T, under the same law written
// on the tangential displacement of the step d_T = J_T(q_{n+½})(q_{n+1} − q_n): (ν_N, ν_T) ∈ K_μ against
// (g_N(q_{n+1}), d_T), i.e. ‖ν_T‖ ≤ μν_N, ν_T = −μν_N d_T/‖d_T‖ when d_T ≠ 0.
// Why: the smooth part carries no unilateral force (λ̃_U = 0, eq 35d), so q̃_{n+1} holds the whole smooth
// displacement h v_n + h²(½ − β)a_n + h²β a_{n+1} along the contact (gravity along a slope); a normal-only
// correction removes its normal part and leaves the tangential one, and a body sticking at zero velocity crept
// by O(h) (½h T g sin α). With the tangential rows, a point mass on a slope with M, g constant moves by
// d_T = h v_n + ½h² g_T + ν_T/m with |ν_T| ≤ μν_N, ν_N/m = ½h² g_N: it sticks with d_T = 0 exactly when
// tan α ≤ μ, and slides by h v_n + ½h² a with a = g_T ∓ μ g_N, the closed form of Coulomb's law (the friction's
// O(h²) share of the displacement is what the normal-only correction missed). ν_Tᵀd_T = −μν_N‖d_T‖ ≤ 0: the
// position-level friction never does positive work. J_T is taken at q_{n+½} = ½(q_n + q_{n+1}) (the
// midpoint rule, exact to O(h³) per step when J_T depends on q; at q_{n+1} a rotating body's pivot slipped by
// O(h²) per step) and is J_T itself for linear relations. Tests: generalized_alpha_friction_test.cpp.
//
// Rigid bodies (Model::bodies): their quaternions are not a vector space, so the scheme is used in its Lie group
// form (Brüls, Cardona and Arnold, "Lie group generalized-α time integration of constrained flexible multibody
// systems", Mech. Mach. Theory 48, 2012): every position formula above is read as an increment in velocity
// coordinates (world v, body Ω; DofLayout.hpp), Δ = h v_n + h²(½ − β) a_n + h²β a_{n+1} + U, and the new
// coordinates are q_{n+1} = q_n ∘ exp(Δ) (x + Δx, quat ⊗ exp(½ Δφ)). The constraints are linearised in Δ at the
// iterate with J in velocity coordinates, which is the tangent of g(q_n ∘ exp(Δ)) up to O(‖Δ‖) (a quasi-Newton
// step: the fixed point still satisfies g = 0 exactly). The gyroscopic force −Ω × IΩ is part of f and, like
// ∂(M a)/∂q, is left out of the iteration matrix. Fixed bodies (inv_mass 0) are refused: M would be singular.
//
// Rheonomous rows (the joints' driver, engine/joints/RigidJoint.hpp): the bilateral velocity rows read
// J_B ṽ + ∂g/∂t = 0 and J_B v + ∂g/∂t = 0, and g_B(q_{n+1}, t_{n+1}) = 0 at position level.
//
// Solution of one step: the three sub-problems are coupled through f(q_{n+1}, v_{n+1}) (K U and C W). Each
// iteration linearises f (iteration matrix S = M + c₁(h²β K_t + hγ C_t), c₁ = (1 − α_f)/(1 − α_m), i.e.
// c₁h²β (β′M + γ′C_t + K_t) of seed 002 eq 10) and the constraints at the current iterate, eliminates ṽ̇, U
// and W, and solves ONE problem in (λ̃, ν, Λ):
// - no forecast contact with friction: a mixed LCP (equalities λ̃, ν_B, Λ_B; complementarity ν_U, Λ_A) with
//   solve_lcp (Lemke); without bilateral rows and with K_t = C_t = 0 it is symmetric positive semidefinite and the
//   dual active-set method solves it first (symmetric_by_active_set);
// - otherwise: the friction-contact problem with equality blocks (solvers/core/FrictionContactProblem.hpp) in
//   (λ̃, ν_B, Λ_B | (ν_N, ν_T) per unilateral contact | (Λ_N, Λ_T) per forecast contact), solved by the mixed
//   NSGS (solvers/fc/MixedNsgs.hpp; the equality multipliers of a mechanism as one exact block, each contact by
//   the exact local Coulomb solve), to round-off. Why not Lemke on the LCP form of planar friction, as before:
//   that LCP is not copositive-plus, and with a bead bed under a jointed paddle Lemke ended on a secondary ray
//   (docs/friction-solvers.md §3b); and 3-D friction has no such LCP form. The solve starts cold each step
//   (warm within the Newton loop), so that a restarted run takes the same steps.
// For LTI systems with linear relations that single solve is exact; otherwise the loop is a Josephy–Newton
// iteration stopped on the increments.
// The iteration matrix and M are factorised once for LTI systems (CHOLMOD), every iteration otherwise.
//
// Energy (EnergyReport): kinetic and potential energy of (q_{n+1}, v_{n+1}); external_work = the trapezoidal
// supply (q_{n+1} − q_n)ᵀ (F_n + F_{n+1})/2 (SecondOrderSystem::external_force); damping_work =
// −(q_{n+1} − q_n)ᵀ C (v_n + v_{n+1})/2; contact_work = the work of the velocity jump ½ (ṽ_{n+1} + v_{n+1})ᵀ Jᵀ Λ
// (seed 000 eq 81 with v⁻ = ṽ_{n+1}, so ≤ 0 for e = 0); numerical_dissipation = the remainder ΔE − external_work − damping_work − contact_work, i.e. the
// algorithmic dissipation plus the work of the position correction, its friction part ν_Tᵀd_T ≤ 0 included
// (no closed-form identity is claimed for this scheme; docs/schemes.md says what the tests check instead).
#include "engine/GeneralizedAlphaCoefficients.hpp"
#include "engine/Model.hpp"
#include "engine/StepReport.hpp"
#include "solvers/fc/Nsgs.hpp"
#include "solvers/lcp/LcpSolver.hpp"

namespace talus {

// The friction solve's defaults: NSGS to round-off (10⁻¹⁴ on the extended residual), 2·10⁴ sweeps at most.
inline solvers::NsgsParameters generalized_alpha_friction_solver() {
  solvers::NsgsParameters s;
  s.tolerance = 1e-14;
  s.max_iterations = 20000;
  return s;
}

struct NonsmoothGeneralizedAlphaParameters {
  double h = 1e-3;                                                      // time step [s]
  GeneralizedAlphaCoefficients coefficients = generalized_alpha_coefficients(0.8);
  double newton_tolerance = 1e-10;  // on max(‖Δq‖∞ / (1 + ‖q‖∞), ‖Δv‖∞ / (1 + ‖v‖∞)) between iterates
  int newton_max_iterations = 50;
  solvers::LcpSolverOptions lcp;    // the one-step MLCP (Lemke by default), when no forecast contact has friction
  // When that MLCP is symmetric positive semidefinite — no bilateral rows and K_t = C_t = 0 (rigid bodies, point
  // masses), so that W = diag(J_U M⁻¹J_Uᵀ, J_A M⁻¹J_Aᵀ) — it is solved by the dual active-set method
  // (solvers/lcp/DualActiveSet.hpp) instead, with data_tolerance = newton_tolerance (the accuracy to which the
  // step's gaps and velocities are known), and by `lcp` (Lemke) only if that fails, both outcomes in the report's
  // message. Why: redundant contacts (stacked packings) make W singular, and Lemke alone ended on secondary rays
  // on such MLCPs (docs/schemes.md, "Stacked packings"). false: `lcp` for every MLCP.
  bool symmetric_by_active_set = true;
  // The one-step friction-contact problem with equality blocks (solvers/fc/MixedNsgs.hpp), when a forecast
  // contact has friction: tolerance on its extended residual (normalised by 1 + ‖q‖). Round-off by default, so
  // that a sticking contact does not creep and the Newton loop's increments settle.
  solvers::NsgsParameters friction = generalized_alpha_friction_solver();
  // A step whose one-step problem is not solved, whose Newton loop does not converge or whose state is not
  // finite (engine/StepReport.hpp): RollBack throws StepFailure and leaves the model and the scheme as they were
  // (the contacts found by this step's detection excepted); Keep applies it (the last iterate) and says so in the
  // report's solver status and message.
  FailurePolicy on_failure = FailurePolicy::RollBack;
};

class NonsmoothGeneralizedAlpha {
 public:
  // Validates the model and the parameters (std::invalid_argument), and computes the initial smooth
  // acceleration a₀ = ṽ̇₀ from M ṽ̇₀ = f(t₀, q₀, v₀) + J_Bᵀ λ̃, J_B ṽ̇₀ = 0 (exact when v₀ = 0 or the
  // bilateral constraints are linear).
  NonsmoothGeneralizedAlpha(Model& model, const NonsmoothGeneralizedAlphaParameters& params);
  ~NonsmoothGeneralizedAlpha();
  NonsmoothGeneralizedAlpha(const NonsmoothGeneralizedAlpha&) = delete;
  NonsmoothGeneralizedAlpha& operator=(const NonsmoothGeneralizedAlpha&) = delete;

  // Advances the model by h. An unsolved one-step problem, a Newton failure or a non-finite state fails the
  // step by parameters().on_failure (StepFailure names the step, its time and the interactions or the system).
  const StepReport& step();
  const StepReport& last_report() const;
  const NonsmoothGeneralizedAlphaParameters& parameters() const;
  // The acceleration-like variable a_n and the smooth acceleration ṽ̇_n (global velocity ordering).
  const Vector& acceleration() const;
  const Vector& smooth_acceleration() const;
  // Continues a run from a saved state (restart archives, apps/SceneRestart.hpp): replaces the a₀ = ṽ̇₀ the
  // constructor computed by the a_n and ṽ̇_n of the run being continued, which (q_n, v_n) alone do not
  // determine. Everything else a step reads from the previous one — J_U(q_n) v_n, F(t_n), the energy at t_n
  // and, for LTI systems, the factorisations — the constructor recomputes from the model's (t_n, q_n, v_n)
  // with the very expressions that end a step, so a scheme built on the restored model and given a_n and ṽ̇_n
  // takes the same steps bit for bit. (The MLCP's z is a warm start for PSOR only; the default Lemke ignores
  // it.) Call it before the first step; sizes (dofs) and finiteness are checked (std::invalid_argument).
  void restore_accelerations(const Vector& a, const Vector& smooth_a);
  // The velocities v_n the scheme carries (global ordering; a rigid body's ω in its body frame, as the scheme
  // integrates it). The model holds them rotated to the world frame, and Rᵀ(R ω) is ω only up to round-off: a
  // scheme built on a restored model gathers other bits than the run it continues had.
  const Vector& velocity() const;
  // Continues from the saved v_n (restart archives): replaces the v_n the constructor gathered from the model
  // and recomputes from it what the constructor derived (J_U v_n, F(t_n), the energy, the iteration matrices).
  // Call it before restore_accelerations and the first step. v must be the model's velocities up to round-off
  // (1e-12 relative), finite, one per velocity (std::invalid_argument).
  void restore_velocity(const Vector& v);

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace talus
