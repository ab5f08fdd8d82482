// Saddle-point solves and constraint evaluations shared by RKF45, HEM5 and generalized-α (seed 002 eqs 5,
// 10, 14, 15). See ConstrainedEvaluator.hpp for the conventions.
#include "engine/eventdriven/ConstrainedEvaluator.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace talus::eventdriven {

void validate(const MechanicalSystem& s) {
  auto fail = [](const std::string& what) { throw std::invalid_argument("MechanicalSystem: " + what); };
  if (s.nv <= 0) fail("nv must be positive");
  if (s.nq < s.nv) fail("nq must be >= nv");
  if (s.nq != s.nv && !s.velocity_map) fail("nq != nv needs a velocity_map (q̇ = T(q) v)");
  if (s.rows < 0) fail("rows must be >= 0");
  if (!s.mass) fail("mass callback missing");
  if (!s.force) fail("force callback missing");
  if (s.rows > 0 && (!s.gap || !s.jacobian)) fail("constraint rows need gap and jacobian callbacks");
}

DaeWork& DaeWork::operator+=(const DaeWork& o) {
  force_evaluations += o.force_evaluations;
  jacobian_evaluations += o.jacobian_evaluations;
  curvature_evaluations += o.curvature_evaluations;
  mass_evaluations += o.mass_evaluations;
  linear_systems += o.linear_systems;
  force_jacobian_evaluations += o.force_jacobian_evaluations;
  newton_iterations += o.newton_iterations;
  accepted_steps += o.accepted_steps;
  rejected_steps += o.rejected_steps;
  forced_steps += o.forced_steps;
  projections += o.projections;
  return *this;
}

const char* to_string(SaddleStatus s) {
  switch (s) {
    case SaddleStatus::Ok: return "ok";
    case SaddleStatus::SingularMass: return "mass matrix not positive definite";
    case SaddleStatus::SingularConstraints: return "active constraints singular (incompatible or redundant rows)";
    case SaddleStatus::NotFinite: return "non-finite value";
  }
  return "?";
}

ConstrainedEvaluator::ConstrainedEvaluator(const MechanicalSystem& system, DaeWork& work)
    : sys_(system), work_(work) {
  validate(system);
}

void ConstrainedEvaluator::set_active(const std::vector<Index>& rows) {
  for (Index r : rows)
    if (r < 0 || r >= sys_.rows) throw std::invalid_argument("ConstrainedEvaluator: active row out of range");
  active_ = rows;
}

void ConstrainedEvaluator::coordinate_rate(const Vector& q, const Vector& v, Vector& qdot) const {
  if (sys_.identity_kinematics()) {
    qdot = v;
    return;
  }
  qdot.resize(sys_.nq);
  sys_.velocity_map(q, v, qdot);
}

void ConstrainedEvaluator::coordinate_acceleration(const Vector& q, const Vector& v, const Vector& a,
                                                   Vector& qddot) const {
  if (sys_.identity_kinematics()) {
    qddot = a;
    return;
  }
  // q̈ = T(q) a + ∂(T(q) v)/∂q · q̇ ; the second term by a central difference along q̇ (only used for dense
  // output, where O(ε²) is far below the interpolation error).
  Vector qdot(sys_.nq), tp(sys_.nq), tm(sys_.nq);
  sys_.velocity_map(q, v, qdot);
  sys_.velocity_map(q, a, qddot);
  const double n = qdot.lpNorm<Eigen::Infinity>();
  if (n == 0.0) return;
  const double eps = 1e-5 * (1.0 + q.lpNorm<Eigen::Infinity>()) / n;
  sys_.velocity_map(q + eps * qdot, v, tp);
  sys_.velocity_map(q - eps * qdot, v, tm);
  qddot += (tp - tm) / (2.0 * eps);
}

void ConstrainedEvaluator::select_rows(const Vector& all, Vector& out) const {
  out.resize(active_rows());
  for (Index i = 0; i < active_rows(); ++i) out[i] = all[active_[i]];
}

void ConstrainedEvaluator::select_rows(const Matrix& all, Matrix& out) const {
  out.resize(active_rows(), all.cols());
  for (Index i = 0; i < active_rows(); ++i) out.row(i) = all.row(active_[i]);
}

void ConstrainedEvaluator::gap(const Vector& q, Vector& g) {
  if (active_.empty()) {
    g.resize(0);
    return;
  }
  g_all_.setZero(sys_.rows);
  sys_.gap(q, g_all_);
  select_rows(g_all_, g);
}

void ConstrainedEvaluator::jacobian(const Vector& q, Matrix& G) {
  ++work_.jacobian_evaluations;
  if (active_.empty()) {
    G.resize(0, sys_.nv);
    return;
  }
  G_all_.setZero(sys_.rows, sys_.nv);
  sys_.jacobian(q, G_all_);
  select_rows(G_all_, G);
}

void ConstrainedEvaluator::curvature_all(const Vector& q, const Vector& v, Vector& c) {
  c.setZero(sys_.rows);
  if (sys_.curvature) {
    sys_.curvature(q, v, c);
    return;
  }
  // c = (d/dt G(q(t))) v along q̇ = T(q) v: central differences D(δ) = [G(q + δ q̇) − G(q − δ q̇)] v / 2δ,
  // Richardson-extrapolated (4 D(δ/2) − D(δ)) / 3 so that the truncation error is O(δ⁴): with
  // δ ‖q̇‖ = 1e-3 (1 + ‖q‖) it stays near 1e-12 relative while round-off stays near 1e-13.
  coordinate_rate(q, v, qdot_);
  const double n = qdot_.lpNorm<Eigen::Infinity>();
  if (n == 0.0) return;
  const double delta = 1e-3 * (1.0 + q.lpNorm<Eigen::Infinity>()) / n;
  Vector d[2];
  for (int k = 0; k < 2; ++k) {
    const double e = k == 0 ? delta : 0.5 * delta;
    qp_ = q + e * qdot_;
    qm_ = q - e * qdot_;
    Gp_.setZero(sys_.rows, sys_.nv);
    Gm_.setZero(sys_.rows, sys_.nv);
    sys_.jacobian(qp_, Gp_);
    sys_.jacobian(qm_, Gm_);
    d[k] = (Gp_ - Gm_) * v / (2.0 * e);
  }
  c = (4.0 * d[1] - d[0]) / 3.0;
  // A kink of G inside the stencil (an edge where the curvature jumps, seed 002 §4) shows as D(δ) and D(δ/2)
  // disagreeing at first order instead of O(δ²); such rows take the forward difference of curvature_ahead,
  // whose stencil is 1000 times shorter and only looks the way the motion goes.
  const double floor = 1e-9 * v.norm() * n / (1.0 + q.lpNorm<Eigen::Infinity>());
  kinked_.assign(static_cast<size_t>(sys_.rows), 0);
  bool any = false;
  for (Index r = 0; r < sys_.rows; ++r) {
    const double jump = std::abs(d[1][r] - d[0][r]);
    kinked_[static_cast<size_t>(r)] = jump > 1e-3 * (std::abs(d[0][r]) + std::abs(d[1][r])) + floor * Gp_.row(r).norm();
    any |= kinked_[static_cast<size_t>(r)] != 0;
  }
  if (!any) return;
  forward_curvature(q, v, c_ahead_);
  for (Index r = 0; r < sys_.rows; ++r)
    if (kinked_[static_cast<size_t>(r)]) c[r] = c_ahead_[r];
}

void ConstrainedEvaluator::forward_curvature(const Vector& q, const Vector& v, Vector& c) {
  c.setZero(sys_.rows);
  coordinate_rate(q, v, qdot_);
  const double n = qdot_.lpNorm<Eigen::Infinity>();
  if (n == 0.0) return;
  // [−3 G(q) + 4 G(q + δq̇) − G(q + 2δq̇)] v / 2δ: exact for G quadratic along the path, never looks back.
  const double delta = 1e-6 * (1.0 + q.lpNorm<Eigen::Infinity>()) / n;
  Gp_.setZero(sys_.rows, sys_.nv);
  sys_.jacobian(q, Gp_);
  c = -3.0 * (Gp_ * v);
  qp_ = q + delta * qdot_;
  Gp_.setZero(sys_.rows, sys_.nv);
  sys_.jacobian(qp_, Gp_);
  c += 4.0 * (Gp_ * v);
  qp_ = q + 2.0 * delta * qdot_;
  Gp_.setZero(sys_.rows, sys_.nv);
  sys_.jacobian(qp_, Gp_);
  c -= Gp_ * v;
  c /= 2.0 * delta;
}

void ConstrainedEvaluator::curvature(const Vector& q, const Vector& v, Vector& c) {
  ++work_.curvature_evaluations;
  if (active_.empty()) {
    c.resize(0);
    return;
  }
  if (look_ahead) {
    curvature_ahead_all(q, v, c_all_);
  } else {
    curvature_all(q, v, c_all_);
  }
  select_rows(c_all_, c);
}

void ConstrainedEvaluator::curvature_ahead(const Vector& q, const Vector& v, Vector& c) {
  ++work_.curvature_evaluations;
  if (active_.empty()) {
    c.resize(0);
    return;
  }
  curvature_ahead_all(q, v, c_all_);
  select_rows(c_all_, c);
}

void ConstrainedEvaluator::curvature_ahead_all(const Vector& q, const Vector& v, Vector& c) {
  if (!sys_.curvature) {
    forward_curvature(q, v, c);
    return;
  }
  // A closed-form curvature is the system's word on which side of an edge q lies; ahead is a hair along q̇.
  coordinate_rate(q, v, qdot_);
  const double n = qdot_.lpNorm<Eigen::Infinity>();
  qp_ = q;
  if (n > 0.0) qp_ += (1e-9 * (1.0 + q.lpNorm<Eigen::Infinity>()) / n) * qdot_;
  c.setZero(sys_.rows);
  sys_.curvature(qp_, v, c);
}

void ConstrainedEvaluator::drift(const Vector& q, const Vector& v, Vector& gap_abs, Vector& velocity_abs) {
  gap(q, gap_abs);
  gap_abs = gap_abs.cwiseAbs();
  if (active_.empty()) {
    velocity_abs.resize(0);
    return;
  }
  G_all_.setZero(sys_.rows, sys_.nv);
  sys_.jacobian(q, G_all_);
  select_rows(G_all_, Gp_);
  velocity_abs = (Gp_ * v).cwiseAbs();
}

void ConstrainedEvaluator::force(double t, const Vector& q, const Vector& v, Vector& F) {
  ++work_.force_evaluations;
  F.setZero(sys_.nv);
  sys_.force(t, q, v, F);
}

bool ConstrainedEvaluator::factor_mass(const Vector& q) {
  if (sys_.constant_mass && mass_factored_) return true;
  ++work_.mass_evaluations;
  M_.setZero(sys_.nv, sys_.nv);
  sys_.mass(q, M_);
  mass_llt_.compute(M_);
  mass_factored_ = mass_llt_.info() == Eigen::Success;
  return mass_factored_;
}

void ConstrainedEvaluator::solve_mass(Matrix& rhs) const { mass_llt_.solveInPlace(rhs); }
void ConstrainedEvaluator::solve_mass(Vector& rhs) const { mass_llt_.solveInPlace(rhs); }

SaddleStatus ConstrainedEvaluator::accelerations(double t, const Vector& q, const Vector& v, Vector& a,
                                                 Vector& lambda, const Matrix* G_known) {
  ++work_.linear_systems;
  if (!factor_mass(q)) return SaddleStatus::SingularMass;
  force(t, q, v, F_);
  a = F_;
  solve_mass(a);
  if (active_.empty()) {
    lambda.resize(0);
    return a.allFinite() ? SaddleStatus::Ok : SaddleStatus::NotFinite;
  }
  if (G_known) {
    G_ = *G_known;
  } else {
    jacobian(q, G_);
  }
  curvature(q, v, c_);
  // W λ = −c − G M⁻¹ F with W = G M⁻¹ Gᵀ
  Y_ = G_.transpose();
  solve_mass(Y_);
  S_.noalias() = G_ * Y_;
  schur_lu_.compute(S_);
  if (!(schur_lu_.rcond() > singular_tolerance)) return SaddleStatus::SingularConstraints;
  rhs_ = -c_;
  rhs_.noalias() -= G_ * a;
  lambda = schur_lu_.solve(rhs_);
  a.noalias() += Y_ * lambda;
  return a.allFinite() && lambda.allFinite() ? SaddleStatus::Ok : SaddleStatus::NotFinite;
}

SaddleStatus ConstrainedEvaluator::stage(double t, const Vector& Q, const Vector& V, const Matrix& G_Q,
                                         const Matrix& G_next, const Vector& r, Vector& vdot, Vector& Lambda) {
  ++work_.linear_systems;
  if (!factor_mass(Q)) return SaddleStatus::SingularMass;
  force(t, Q, V, F_);
  vdot = F_;
  solve_mass(vdot);
  if (active_.empty()) {
    Lambda.resize(0);
    return vdot.allFinite() ? SaddleStatus::Ok : SaddleStatus::NotFinite;
  }
  Y_ = G_Q.transpose();
  solve_mass(Y_);
  S_.noalias() = G_next * Y_;
  schur_lu_.compute(S_);
  if (!(schur_lu_.rcond() > singular_tolerance)) return SaddleStatus::SingularConstraints;
  rhs_ = r;
  rhs_.noalias() -= G_next * vdot;
  Lambda = schur_lu_.solve(rhs_);
  vdot.noalias() += Y_ * Lambda;
  return vdot.allFinite() && Lambda.allFinite() ? SaddleStatus::Ok : SaddleStatus::NotFinite;
}

}  // namespace talus::eventdriven
