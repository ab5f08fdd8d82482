#pragma once
// The linear algebra every DAE integrator of the event-driven path shares, on the active rows A of a
// MechanicalSystem (engine/eventdriven/MechanicalSystem.hpp):
//  - the index-1 solve (seed 002 eq 15, seed 003 eq 12): M a = F + G_Aᵀ λ, G_A a + c_A = 0;
//  - the HEM5 stage solve (seed 002 eq 14): M(Q_i) V̇ = F + G(Q_i)ᵀ Λ, G(Q_{i+1}) V̇ = r — the two Jacobians
//    differ, so the saddle matrix is not symmetric;
//  - evaluations of g_A, G_A and c_A, with the work counted in DaeWork.
// Saddle systems are solved by the Schur complement on the multipliers (M is SPD, factorised by Cholesky, once
// when the mass is constant). A Schur complement whose reciprocal condition number falls below
// singular_tolerance is reported as singular: that is how the geometric singularities of seed 002 section 4
// (two incompatible active constraints at an edge) reach the caller, never as a silently wrong acceleration.
#include <vector>

#include "engine/eventdriven/MechanicalSystem.hpp"

namespace talus::eventdriven {

enum class SaddleStatus { Ok, SingularMass, SingularConstraints, NotFinite };
const char* to_string(SaddleStatus s);

class ConstrainedEvaluator {
 public:
  ConstrainedEvaluator(const MechanicalSystem& system, DaeWork& work);

  void set_active(const std::vector<Index>& rows);
  const std::vector<Index>& active() const { return active_; }
  Index active_rows() const { return static_cast<Index>(active_.size()); }
  const MechanicalSystem& system() const { return sys_; }
  DaeWork& work() { return work_; }

  // q̇ = T(q) v and q̈ = T(q) a + (d/dt T(q)) v (a central difference of T along q̇ when T is not the identity).
  void coordinate_rate(const Vector& q, const Vector& v, Vector& qdot) const;
  void coordinate_acceleration(const Vector& q, const Vector& v, const Vector& a, Vector& qddot) const;

  // Index-1 accelerations and multipliers at (t, q, v). G_known: G_A(q) when the caller already has it.
  SaddleStatus accelerations(double t, const Vector& q, const Vector& v, Vector& a, Vector& lambda,
                             const Matrix* G_known = nullptr);

  // One HEM5 stage: vdot, Lambda from M(Q) vdot = F(t, Q, V) + G_Qᵀ Λ, G_next vdot = r.
  SaddleStatus stage(double t, const Vector& Q, const Vector& V, const Matrix& G_Q, const Matrix& G_next,
                     const Vector& r, Vector& vdot, Vector& Lambda);

  // Active rows only. One "G evaluation" of seed 002 table 2 counts g and G together: gap() alone is free.
  void gap(const Vector& q, Vector& g);
  void jacobian(const Vector& q, Matrix& G);
  void curvature(const Vector& q, const Vector& v, Vector& c);
  // The limit of c from the side q moves to (t → t*⁺): a second-order forward difference of G along q̇,
  // with δ‖q̇‖ = 1e-6 (1 + ‖q‖∞) (or the closed form a hair ahead along q̇). At an edge where a constraint's curvature jumps (seed 002 §4), the central
  // value is an average of the two sides and neither side's; the event-driven scheme needs the coming side.
  void curvature_ahead(const Vector& q, const Vector& v, Vector& c);

  // |g_A(q)| and |G_A(q) v| per active row, for monitoring the drift (not counted as work of the method).
  void drift(const Vector& q, const Vector& v, Vector& gap_abs, Vector& velocity_abs);

  // F and M at a point (counted), and the Cholesky factor of M (kept for constant masses).
  void force(double t, const Vector& q, const Vector& v, Vector& F);
  bool factor_mass(const Vector& q);
  void solve_mass(Matrix& rhs) const;  // in place M⁻¹ rhs with the last factor
  void solve_mass(Vector& rhs) const;

  // curvature() returns curvature_ahead(): set by the event-driven scheme while it restarts a smooth phase
  // on the far side of an edge, where the state sits on the kink itself.
  bool look_ahead = false;
  double singular_tolerance = 1e-13;  // on the reciprocal condition number of the Schur complement

 private:
  void select_rows(const Vector& all, Vector& out) const;
  void select_rows(const Matrix& all, Matrix& out) const;
  void curvature_all(const Vector& q, const Vector& v, Vector& c);
  void forward_curvature(const Vector& q, const Vector& v, Vector& c);    // all rows
  void curvature_ahead_all(const Vector& q, const Vector& v, Vector& c);  // all rows

  const MechanicalSystem& sys_;
  DaeWork& work_;
  std::vector<Index> active_;
  bool mass_factored_ = false;
  Eigen::LLT<Matrix> mass_llt_;
  // workspaces reused between calls
  Matrix M_, G_all_, G_, Y_, S_, Gp_, Gm_;
  Vector F_, g_all_, c_all_, c_, rhs_, qdot_, qp_, qm_, c_ahead_;
  std::vector<char> kinked_;
  Eigen::PartialPivLU<Matrix> schur_lu_;
};

}  // namespace talus::eventdriven
