// The model as one global second-order system for the Newmark family and Schatzman–Paoli (see the header).
#include "engine/schemes/SecondOrderSystem.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/SystemMatrices.hpp"

namespace talus {

namespace {

// Step of the central differences: balances truncation O(δ²) against round-off O(ε/δ).
double difference_step(double x) { return 6.055454e-6 * std::max(1.0, std::abs(x)); }  // ε^(1/3)

// Dense n × n block at (off, off) appended to triplets, exact zeros skipped.
void append_dense(const Matrix& B, Index off, double scale, std::vector<Triplet>& t) {
  for (Index c = 0; c < B.cols(); ++c)
    for (Index r = 0; r < B.rows(); ++r)
      if (B(r, c) != 0.0) t.emplace_back(int(off + r), int(off + c), scale * B(r, c));
}

void append_sparse(const SparseMatrix& B, std::vector<Triplet>& t) {
  for (Index r = 0; r < B.outerSize(); ++r)
    for (SparseMatrix::InnerIterator it(B, r); it; ++it) t.emplace_back(int(it.row()), int(it.col()), it.value());
}

// ∂f/∂x of a nonlinear system by central differences in x ∈ {q, v}.
template <class Eval>
void difference_jacobian(Eval&& f_of, const Vector& x, Matrix& J) {
  const Index n = x.size();
  J.resize(n, n);
  Vector xp = x, fp, fm;
  for (Index i = 0; i < n; ++i) {
    const double d = difference_step(x[i]);
    xp[i] = x[i] + d;
    f_of(xp, fp);
    xp[i] = x[i] - d;
    f_of(xp, fm);
    xp[i] = x[i];
    J.col(i) = (fp - fm) / (2.0 * d);
  }
}

}  // namespace

SecondOrderSystem::SecondOrderSystem(Model& model, FrictionSupport friction, BodySupport bodies) : model_(&model) {
  model.validate();
  if (model.bodies.count() != 0 && bodies != BodySupport::LieGroup)
    throw std::invalid_argument(
        "second-order schemes: rigid bodies are not supported by this scheme (its positions are updated by "
        "q + h v + …, not on the Lie group); use Moreau–Jean, Newmark, HHT, Schatzman–Paoli or generalized-α");
  for (int k = 0; k < model.bodies.count(); ++k)
    if (model.bodies.inv_mass[k] == 0.0)
      throw std::invalid_argument("second-order schemes: body " + std::to_string(k) +
                                  " is fixed (inv_mass 0), which makes the mass matrix singular; attach bodies to "
                                  "the world with a joint instead, or use Moreau–Jean");
  layout_ = make_dof_layout(model);
  // A rigid body's gyroscopic force −ω × Iω is not affine in v, so no single linear solve is exact.
  linear_dynamics_ = model.nonlinear.empty() && model.bodies.count() == 0;
  friction_support_ = friction;
  body_support_ = bodies;
  classify_interactions();
  Vector q, v;
  gather(q, v);
  M_ = global_mass(model, layout_, q);
  K_ = global_stiffness(model, layout_);
  C_ = global_damping(model, layout_);
}

void SecondOrderSystem::classify_interactions() {
  bilateral_.clear();
  unilateral_.clear();
  restitution_.clear();
  friction_.clear();
  friction_rows_.clear();
  friction_dim_ = 0;
  bilateral_rows_ = 0;
  linear_relations_ = true;
  for (int a = 0; a < static_cast<int>(model_->interactions.size()); ++a) {
    const Interaction& in = model_->interactions[a];
    if (std::holds_alternative<SphereContactRelation>(in.relation) && body_support_ != BodySupport::LieGroup)
      throw std::invalid_argument("interaction '" + in.name + "': sphere contacts need rigid bodies");
    if (!std::holds_alternative<LinearRelation>(in.relation)) linear_relations_ = false;
    if (const auto* eq = std::get_if<EqualityLaw>(&in.law)) {
      bilateral_.push_back(a);
      bilateral_rows_ += eq->rows;
    } else if (const auto* nl = std::get_if<NewtonImpactLaw>(&in.law)) {
      if (!(nl->e >= 0.0 && nl->e <= 1.0))
        throw std::invalid_argument("interaction '" + in.name + "': restitution must be in [0, 1]");
      unilateral_.push_back(a);
      restitution_.push_back(nl->e);
      friction_.push_back(0.0);
      friction_rows_.push_back(1);
    } else {
      const auto& fl = std::get<NewtonImpactFrictionLaw>(in.law);
      if (friction_support_ != FrictionSupport::Coulomb)
        throw std::invalid_argument("interaction '" + in.name +
                                    "': friction is not supported by Newmark, HHT and Schatzman–Paoli (frictionless "
                                    "unilateral contact and equalities only); use generalized-α or Moreau–Jean");
      if (fl.dim != 2 && fl.dim != 3)
        throw std::invalid_argument("interaction '" + in.name + "': friction dim must be 2 or 3, not " +
                                    std::to_string(fl.dim));
      if (friction_dim_ != 0 && fl.dim != friction_dim_)
        throw std::invalid_argument("interaction '" + in.name + "' has friction dim " + std::to_string(fl.dim) +
                                    " but earlier interactions have dim " + std::to_string(friction_dim_) +
                                    "; generalized-α solves one friction-contact problem with one dim per model");
      if (!(fl.e >= 0.0 && fl.e <= 1.0) || !(fl.mu >= 0.0))
        throw std::invalid_argument("interaction '" + in.name + "': restitution must be in [0, 1] and mu >= 0");
      friction_dim_ = fl.dim;
      unilateral_.push_back(a);
      restitution_.push_back(fl.e);
      friction_.push_back(fl.mu);
      friction_rows_.push_back(fl.dim);
    }
  }
  order_.assign(bilateral_.begin(), bilateral_.end());
  order_.insert(order_.end(), unilateral_.begin(), unilateral_.end());
}

void SecondOrderSystem::gather(Vector& q, Vector& v) const {
  gather_coordinates(*model_, layout_, q);
  gather_velocities(*model_, layout_, v);
}

void SecondOrderSystem::retract(const Vector& q, const Vector& delta, Vector& out) const {
  advance_coordinates(layout_, q, delta, 1.0, out);
}

void SecondOrderSystem::difference(const Vector& qa, const Vector& qb, Vector& out) const {
  if (!has_bodies()) {
    out = qa - qb;
    return;
  }
  coordinate_difference(layout_, qa, qb, out);
}

void SecondOrderSystem::stiffness_times(const Vector& q, Vector& out) const {
  const Index lin = layout_.rigid_coord_offset;
  out.setZero(dofs());
  if (K_.nonZeros()) out.head(lin) = K_.topLeftCorner(lin, lin) * q.head(lin);
}

void SecondOrderSystem::scatter(const Vector& q, const Vector& v) {
  scatter_state(layout_, q, v, *model_);  // coordinates first (DofLayout.hpp)
}

void SecondOrderSystem::mass(const Vector& q, SparseMatrix& M) const {
  M = linear_dynamics_ ? M_ : global_mass(*model_, layout_, q);
}

void SecondOrderSystem::force(double t, const Vector& q, const Vector& v, Vector& f) const {
  smooth_force(*model_, layout_, t, q, v, f);
}

void SecondOrderSystem::tangent(double t, const Vector& q, const Vector& v, SparseMatrix& Kt,
                                SparseMatrix& Ct) const {
  if (linear_dynamics_) {
    Kt = K_;
    Ct = C_;
    return;
  }
  std::vector<Triplet> tk, tc;
  append_sparse(K_, tk);
  append_sparse(C_, tc);
  Matrix J;
  for (size_t i = 0; i < model_->nonlinear.size(); ++i) {
    const LagrangianNonlinear& s = model_->nonlinear[i];
    const Index o = layout_.nonlinear_offset[i];
    const Vector qi = q.segment(o, s.n), vi = v.segment(o, s.n);
    if (s.force_jacobian_q) {
      J.setZero(s.n, s.n);
      s.force_jacobian_q(t, qi, vi, J);
    } else {
      difference_jacobian([&](const Vector& x, Vector& out) { out.setZero(s.n); s.force(t, x, vi, out); }, qi, J);
    }
    append_dense(J, o, -1.0, tk);
    if (s.force_jacobian_v) {
      J.setZero(s.n, s.n);
      s.force_jacobian_v(t, qi, vi, J);
    } else {
      difference_jacobian([&](const Vector& x, Vector& out) { out.setZero(s.n); s.force(t, qi, x, out); }, vi, J);
    }
    append_dense(J, o, -1.0, tc);
  }
  Kt.resize(dofs(), dofs());
  Kt.setFromTriplets(tk.begin(), tk.end());
  Ct.resize(dofs(), dofs());
  Ct.setFromTriplets(tc.begin(), tc.end());
}

void SecondOrderSystem::external_force(double t, const Vector& q, const Vector& v, Vector& F) const {
  F.setZero(dofs());
  for (size_t i = 0; i < model_->lti.size(); ++i) {
    const LagrangianLti& s = model_->lti[i];
    const Index o = layout_.lti_offset[i], n = s.dofs();
    auto Fi = F.segment(o, n);
    if (s.f_const.size()) Fi = s.f_const;
    if (s.f_time) s.f_time(t, Fi);
  }
  Vector fi;
  for (size_t i = 0; i < model_->nonlinear.size(); ++i) {
    const LagrangianNonlinear& s = model_->nonlinear[i];
    const Index o = layout_.nonlinear_offset[i];
    Vector qi = q.segment(o, s.n);
    fi.setZero(s.n);
    s.force(t, qi, v.segment(o, s.n), fi);
    if (s.potential) {
      for (Index j = 0; j < s.n; ++j) {
        const double x = qi[j], d = difference_step(x);
        qi[j] = x + d;
        const double vp = s.potential(qi);
        qi[j] = x - d;
        const double vm = s.potential(qi);
        qi[j] = x;
        fi[j] += (vp - vm) / (2.0 * d);
      }
    }
    F.segment(o, s.n) = fi;
  }
  // Rigid bodies: the applied load and gravity (the gyroscopic term is not external).
  const RigidBodies& b = model_->bodies;
  for (Index k = 0; k < layout_.bodies; ++k) {
    const Index o = layout_.rigid_vel_offset + 6 * k;
    F.segment<3>(o) = b.force_of(static_cast<int>(k)) + b.mass[k] * model_->gravity;
    F.segment<3>(o + 3) = body_torque(*model_, layout_, q, k);
  }
}

void SecondOrderSystem::lti_external_force(double t, Vector& F) const {
  F.setZero(dofs());
  for (size_t i = 0; i < model_->lti.size(); ++i) {
    const LagrangianLti& s = model_->lti[i];
    auto Fi = F.segment(layout_.lti_offset[i], s.dofs());
    if (s.f_const.size()) Fi = s.f_const;
    if (s.f_time) s.f_time(t, Fi);
  }
}

void SecondOrderSystem::nonlinear_force(double t, const Vector& q, const Vector& v, Vector& f) const {
  f.setZero(dofs());
  Vector fi;
  for (size_t i = 0; i < model_->nonlinear.size(); ++i) {
    const LagrangianNonlinear& s = model_->nonlinear[i];
    const Index o = layout_.nonlinear_offset[i];
    fi.setZero(s.n);
    s.force(t, q.segment(o, s.n), v.segment(o, s.n), fi);
    f.segment(o, s.n) = fi;
  }
  for (Index k = 0; k < layout_.bodies; ++k) rigid_body_force(*model_, layout_, q, v, k, f);
}

double SecondOrderSystem::potential_energy(const Vector& q) const {
  // K lives on the LTI block, where coordinates and velocities share offsets.
  const Index lin = layout_.rigid_coord_offset;
  double e = K_.nonZeros() ? 0.5 * q.head(lin).dot(K_.topLeftCorner(lin, lin) * q.head(lin)) : 0.0;
  for (size_t i = 0; i < model_->nonlinear.size(); ++i) {
    const LagrangianNonlinear& s = model_->nonlinear[i];
    if (s.potential) e += s.potential(q.segment(layout_.nonlinear_offset[i], s.n));
  }
  return e;
}

void SecondOrderSystem::constraints(const Vector& q, double t, ConstraintRows& rows, bool bilateral_only) const {
  assemble_constraints(*model_, layout_, q, bilateral_only ? bilateral_ : order_, rows, t);
  // assemble_constraints fills only row 0 of each gap (the normal row of a contact) but every row of a joint; an
  // equality law needs every row, so the other bilateral interactions with several rows are evaluated here.
  Vector ql, gl;
  for (size_t i = 0; i < bilateral_.size(); ++i) {
    const Interaction& in = model_->interactions[bilateral_[i]];
    const Index r0 = rows.row_offset[i], n = rows.row_offset[i + 1] - r0;
    if (n == 1 || std::holds_alternative<JointRelation>(in.relation)) continue;
    Index size = 0;
    for (const SystemRef& s : in.systems) size += layout_.coord_size(s, *model_);
    ql.resize(size);
    Index o = 0;
    for (const SystemRef& s : in.systems) {
      const Index m = layout_.coord_size(s, *model_);
      ql.segment(o, m) = q.segment(layout_.coord_offset(s), m);
      o += m;
    }
    if (const auto* rel = std::get_if<LinearRelation>(&in.relation)) {
      rows.gap.segment(r0, n) = rel->C * ql + rel->b;
    } else {
      const auto& nl = std::get<NonlinearRelation>(in.relation);
      gl.setZero(n);
      nl.gap(ql, gl);
      rows.gap.segment(r0, n) = gl;
    }
  }
}

void SecondOrderSystem::unilateral_gaps(const Vector& q, double t, Vector& g) const {
  evaluate_normal_gaps(*model_, layout_, q, unilateral_, g, t);
}

void SecondOrderSystem::store_interaction_outputs(const ConstraintRows& rows, const Vector& v,
                                                  const Vector& impulse_rows) {
  const Vector U = rows.J * v + rows.rate;
  for (size_t i = 0; i < rows.interactions.size(); ++i) {
    Interaction& in = model_->interactions[rows.interactions[i]];
    const Index r0 = rows.row_offset[i], n = rows.row_offset[i + 1] - r0;
    in.gap = rows.gap.segment(r0, n);
    in.velocity = U.segment(r0, n);
    in.impulse = impulse_rows.segment(r0, n);
  }
}

}  // namespace talus
