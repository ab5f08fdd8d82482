// Global block-diagonal M, K, C and the smooth force (conventions in SystemMatrices.hpp).
#include "engine/SystemMatrices.hpp"

namespace talus {

namespace {

void append_block(const SparseMatrix& B, Index off, std::vector<Triplet>& t) {
  for (Index r = 0; r < B.outerSize(); ++r)
    for (SparseMatrix::InnerIterator it(B, r); it; ++it)
      t.emplace_back(static_cast<int>(off + it.row()), static_cast<int>(off + it.col()), it.value());
}

SparseMatrix lti_blocks(const Model& model, const DofLayout& layout, const SparseMatrix LagrangianLti::*field) {
  std::vector<Triplet> t;
  for (size_t i = 0; i < model.lti.size(); ++i) {
    const SparseMatrix& B = model.lti[i].*field;
    if (B.size() != 0) append_block(B, layout.lti_offset[i], t);
  }
  SparseMatrix A(layout.n_vels, layout.n_vels);
  A.setFromTriplets(t.begin(), t.end());
  return A;
}

}  // namespace

SparseMatrix global_mass(const Model& model, const DofLayout& layout, const Vector& q) {
  std::vector<Triplet> t;
  for (size_t i = 0; i < model.lti.size(); ++i) append_block(model.lti[i].M, layout.lti_offset[i], t);
  Matrix Mi;
  for (size_t i = 0; i < model.nonlinear.size(); ++i) {
    const LagrangianNonlinear& s = model.nonlinear[i];
    const Index o = layout.nonlinear_offset[i];
    Mi.setZero(s.n, s.n);
    s.mass(q.segment(o, s.n), Mi);
    for (Index c = 0; c < s.n; ++c)
      for (Index r = 0; r < s.n; ++r)
        if (Mi(r, c) != 0.0) t.emplace_back(static_cast<int>(o + r), static_cast<int>(o + c), Mi(r, c));
  }
  const RigidBodies& b = model.bodies;
  for (Index k = 0; k < layout.bodies; ++k) {
    if (b.inv_mass[k] == 0.0) continue;
    const int o = static_cast<int>(layout.rigid_vel_offset + 6 * k);
    for (int d = 0; d < 3; ++d) {
      t.emplace_back(o + d, o + d, b.mass[k]);
      t.emplace_back(o + 3 + d, o + 3 + d, b.inertia[k][d]);
    }
  }
  SparseMatrix M(layout.n_vels, layout.n_vels);
  M.setFromTriplets(t.begin(), t.end());
  return M;
}

SparseMatrix global_stiffness(const Model& model, const DofLayout& layout) {
  return lti_blocks(model, layout, &LagrangianLti::K);
}

SparseMatrix global_damping(const Model& model, const DofLayout& layout) {
  return lti_blocks(model, layout, &LagrangianLti::C);
}

void smooth_force(const Model& model, const DofLayout& layout, double t, const Vector& q, const Vector& v,
                  Vector& f) {
  f.setZero(layout.n_vels);
  for (size_t i = 0; i < model.lti.size(); ++i) {
    const LagrangianLti& s = model.lti[i];
    const Index o = layout.lti_offset[i], n = s.dofs();
    auto fi = f.segment(o, n);
    if (s.f_const.size()) fi = s.f_const;
    if (s.f_time) s.f_time(t, fi);
    if (s.K.size()) fi.noalias() -= s.K * q.segment(o, n);
    if (s.C.size()) fi.noalias() -= s.C * v.segment(o, n);
  }
  Vector fi;
  for (size_t i = 0; i < model.nonlinear.size(); ++i) {
    const LagrangianNonlinear& s = model.nonlinear[i];
    const Index o = layout.nonlinear_offset[i];
    fi.setZero(s.n);
    s.force(t, q.segment(o, s.n), v.segment(o, s.n), fi);
    f.segment(o, s.n) = fi;
  }
  for (Index k = 0; k < layout.bodies; ++k)
    if (model.bodies.inv_mass[k] != 0.0) rigid_body_force(model, layout, q, v, k, f);
}

void rigid_body_force(const Model& model, const DofLayout& layout, const Vector& q, const Vector& v, Index k,
                      Vector& f) {
  const RigidBodies& b = model.bodies;
  const Index o = layout.rigid_vel_offset + 6 * k;
  f.segment<3>(o) = b.force_of(static_cast<int>(k)) + b.mass[k] * model.gravity;
  const Eigen::Vector3d w = v.segment<3>(o + 3);
  // Euler's equations in the body frame: the stored torque is world frame, rotated by the q of this force.
  f.segment<3>(o + 3) = body_torque(model, layout, q, k) - w.cross(b.inertia[k].cwiseProduct(w));
}

std::vector<Index> fixed_velocity_dofs(const Model& model, const DofLayout& layout) {
  std::vector<Index> dofs;
  for (Index k = 0; k < layout.bodies; ++k)
    if (model.bodies.inv_mass[k] == 0.0)
      for (Index d = 0; d < 6; ++d) dofs.push_back(layout.rigid_vel_offset + 6 * k + d);
  return dofs;
}

}  // namespace talus
