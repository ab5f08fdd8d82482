#pragma once
// The model as the Newmark-family schemes (nonsmooth Newmark / HHT / generalized-α) and the Schatzman–Paoli
// scheme see it: one second-order system in the global coordinates of engine/DofLayout.hpp,
//     M(q) dv = f(t, q, v) dt + Jᵀ(q) di,   q̇ = v,                       (seed 000 eqs 51, 68; seed 004 eq 36)
// with f = F_ext(t) − K q − C v on LTI systems and the user's force on nonlinear ones
// (engine/SystemMatrices.hpp). It classifies the interactions into bilateral rows (EqualityLaw) and unilateral
// rows (NewtonImpactLaw), and provides the tangent matrices K_t = −∂f/∂q, C_t = −∂f/∂v of the iteration matrix
// β′M + γ′C_t + K_t (seed 002 eq 10).
//
// Scope, checked at construction (std::invalid_argument): these schemes update q by vector arithmetic
// (q_{k+1} = q_k + h v_k + …), so rigid bodies, whose quaternion coordinates are not a vector space, are
// rejected unless the scheme asks for them (BodySupport::LieGroup: every scheme here, which then updates the
// positions on the group, q_{k+1} = q_k ∘ exp(Δ) with the increment Δ in velocity coordinates; see
// NonsmoothGeneralizedAlpha.hpp), and then only movable ones (a fixed body has a zero mass block); so are
// friction laws (the seeds define Newmark, HHT and Schatzman–Paoli for frictionless contact),
// except Coulomb friction for the schemes that ask for it (FrictionSupport::Coulomb: generalized-α, seed 004's
// friction example): its interactions have `dim` rows, normal then one (planar) or two (3-D) tangents, one dim
// for the whole model (the scheme's friction-contact problem has one block size).
#include <vector>

#include "engine/ConstraintAssembly.hpp"
#include "engine/Model.hpp"

namespace talus {

enum class FrictionSupport { None, Coulomb };
enum class BodySupport { None, LieGroup };

class SecondOrderSystem {
 public:
  explicit SecondOrderSystem(Model& model, FrictionSupport friction = FrictionSupport::None,
                             BodySupport bodies = BodySupport::None);

  Model& model() { return *model_; }
  const Model& model() const { return *model_; }
  const DofLayout& layout() const { return layout_; }
  Index dofs() const { return layout_.n_vels; }

  // Interactions by kind, in the order their rows are stacked: all bilateral rows first, then the unilateral
  // ones (one row each; dim, normal then tangents, with Coulomb friction). constraint_order() = bilateral ++
  // unilateral, the `which` of assemble_constraints.
  const std::vector<int>& bilateral() const { return bilateral_; }
  const std::vector<int>& unilateral() const { return unilateral_; }
  const std::vector<int>& constraint_order() const { return order_; }
  Index bilateral_rows() const { return bilateral_rows_; }
  // Newton restitution coefficient of unilateral interaction i (index into unilateral()).
  double restitution(Index i) const { return restitution_[i]; }
  // Coulomb coefficient μ of unilateral interaction i (0 when frictionless) and its number of rows (1, 2 or 3).
  double friction(Index i) const { return friction_[i]; }
  int unilateral_row_count(Index i) const { return friction_rows_[i]; }
  // The friction laws' dim (2 or 3; one for the whole model), 0 when no interaction has a friction law.
  int friction_dim() const { return friction_dim_; }

  // Classifies the model's interactions again (the constructor does it once): after the detection stage
  // (engine/detection/SmallPathDetection.hpp) changed the list. Throws as the constructor does.
  void classify_interactions();

  // No nonlinear system and no rigid body: M, K, C are constant, f is affine, and the iteration matrices can be
  // factorised once.
  bool linear_dynamics() const { return linear_dynamics_; }
  // Rigid bodies present (BodySupport::LieGroup): positions are updated by retract(), not by vector sums.
  bool has_bodies() const { return layout_.bodies > 0; }
  // q ∘ exp(Δ): q + Δ on LTI and nonlinear systems; x + Δx and quat ⊗ exp(½ Δφ) on rigid bodies (DofLayout.hpp's
  // advance_coordinates with h = 1). Δ has one entry per velocity.
  void retract(const Vector& q, const Vector& delta, Vector& out) const;
  // qa ⊖ qb: the increment d with qa = qb ∘ exp(d) (qa − qb without rigid bodies; DofLayout.hpp's
  // coordinate_difference with them).
  void difference(const Vector& qa, const Vector& qb, Vector& out) const;
  // K q for coordinates q (one entry per velocity; K lives on the LTI block, where coordinates and velocities
  // share offsets).
  void stiffness_times(const Vector& q, Vector& out) const;
  // Every relation is a LinearRelation: gaps are affine in q and J is constant.
  bool linear_relations() const { return linear_relations_; }

  void gather(Vector& q, Vector& v) const;
  void scatter(const Vector& q, const Vector& v);

  // Global mass M(q) (constant, and q ignored, when linear_dynamics()).
  void mass(const Vector& q, SparseMatrix& M) const;
  // Smooth force f(t, q, v) (SystemMatrices.hpp).
  void force(double t, const Vector& q, const Vector& v, Vector& f) const;
  // K_t = −∂f/∂q, C_t = −∂f/∂v: the LTI blocks K, C and, for nonlinear systems, the Jacobian callbacks or
  // central finite differences when a callback is empty. ∂(M(q) a)/∂q is left out (a quasi-Newton iteration
  // matrix; the Newton loops check convergence on the increments, so only the rate is affected).
  void tangent(double t, const Vector& q, const Vector& v, SparseMatrix& Kt, SparseMatrix& Ct) const;

  // Constant LTI stiffness and damping (zero blocks on nonlinear systems).
  const SparseMatrix& stiffness() const { return K_; }
  const SparseMatrix& damping() const { return C_; }

  // External force of the energy balances (seed 000 eqs 79, 83, 91): F_ext(t) on LTI systems; on nonlinear
  // systems the force minus its conservative part, f + ∇V when a potential V is given (∇V by central
  // differences), f otherwise. LTI damping is reported apart (EnergyReport::damping_work).
  void external_force(double t, const Vector& q, const Vector& v, Vector& F) const;
  // The two parts of f that a scheme may discretise differently (Schatzman–Paoli): F_ext(t) on the LTI rows
  // (zero on the others), and the nonlinear systems' and rigid bodies' f(t, q, v) (zero on LTI rows; the bodies'
  // load, gravity and gyroscopic term −ω × Iω).
  void lti_external_force(double t, Vector& F) const;
  void nonlinear_force(double t, const Vector& q, const Vector& v, Vector& f) const;
  // ½ qᵀ K q + Σ V(q) of the nonlinear systems that give a potential.
  double potential_energy(const Vector& q) const;

  // Gaps (every row of an equality), J and ∂g/∂t at (q, t) for constraint_order(), or for bilateral() only.
  void constraints(const Vector& q, double t, ConstraintRows& rows, bool bilateral_only = false) const;
  // Normal gaps of the unilateral interactions at q (size unilateral().size()).
  void unilateral_gaps(const Vector& q, double t, Vector& g) const;

  // Writes gap (all rows), relative velocity J v + ∂g/∂t and impulse back into each interaction of
  // constraint_order().
  void store_interaction_outputs(const ConstraintRows& rows, const Vector& v, const Vector& impulse_rows);

 private:
  Model* model_;
  FrictionSupport friction_support_ = FrictionSupport::None;
  BodySupport body_support_ = BodySupport::None;
  DofLayout layout_;
  std::vector<int> bilateral_, unilateral_, order_;
  std::vector<double> restitution_, friction_;
  std::vector<int> friction_rows_;
  int friction_dim_ = 0;
  Index bilateral_rows_ = 0;
  bool linear_dynamics_ = true;
  bool linear_relations_ = true;
  SparseMatrix M_, K_, C_;
};

}  // namespace talus
