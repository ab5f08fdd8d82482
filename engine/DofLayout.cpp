// Global ordering of coordinates and velocities (see DofLayout.hpp), gather/scatter, and the coordinate update
// shared by every integrator.
#include "engine/DofLayout.hpp"

#include <stdexcept>
#include <string>

#include <cassert>
#include <cmath>

namespace talus {

Index DofLayout::coord_offset(const SystemRef& s) const {
  switch (s.family) {
    case SystemFamily::Lti: return lti_offset[s.index];
    case SystemFamily::Nonlinear: return nonlinear_offset[s.index];
    case SystemFamily::Rigid: return rigid_coord_offset + 7 * s.index;
  }
  return 0;
}

Index DofLayout::vel_offset(const SystemRef& s) const {
  switch (s.family) {
    case SystemFamily::Lti: return lti_offset[s.index];
    case SystemFamily::Nonlinear: return nonlinear_offset[s.index];
    case SystemFamily::Rigid: return rigid_vel_offset + 6 * s.index;
  }
  return 0;
}

Index DofLayout::coord_size(const SystemRef& s, const Model& m) const {
  switch (s.family) {
    case SystemFamily::Lti: return m.lti[s.index].dofs();
    case SystemFamily::Nonlinear: return m.nonlinear[s.index].dofs();
    case SystemFamily::Rigid: return 7;
  }
  return 0;
}

Index DofLayout::vel_size(const SystemRef& s, const Model& m) const {
  return s.family == SystemFamily::Rigid ? 6 : coord_size(s, m);
}

DofLayout make_dof_layout(const Model& model) {
  // The small-system schemes see bodies only through user relations; beads, capsules and obstacles live in the
  // same model but are detected and integrated by the granular stepper, which does not step the rest yet.
  const RigidBodies& b = model.bodies;
  if (b.spheres() > 0 || b.capsules() > 0 || !model.walls.empty() || !model.boxes.empty() || !model.drums.empty() ||
      !model.cones.empty() || !model.meshes.empty())
    throw std::invalid_argument("model: " + std::to_string(b.spheres()) + " beads, " + std::to_string(b.capsules()) +
                                " capsules and " +
                                std::to_string(model.walls.size() + model.boxes.size() + model.drums.size() + model.cones.size() +
                                               model.meshes.size()) +
                                " obstacles with detected contacts: the small-system schemes integrate LTI, "
                                "nonlinear and general rigid bodies with user interactions only (use the granular "
                                "stepper for those)");
  DofLayout l;
  Index off = 0;
  for (const auto& s : model.lti) {
    l.lti_offset.push_back(off);
    off += s.dofs();
  }
  for (const auto& s : model.nonlinear) {
    l.nonlinear_offset.push_back(off);
    off += s.dofs();
  }
  l.bodies = model.bodies.count();
  l.rigid_coord_offset = off;
  l.rigid_vel_offset = off;
  l.n_coords = off + 7 * l.bodies;
  l.n_vels = off + 6 * l.bodies;
  return l;
}

void gather_coordinates(const Model& model, const DofLayout& l, Vector& q) {
  q.resize(l.n_coords);
  for (size_t i = 0; i < model.lti.size(); ++i) q.segment(l.lti_offset[i], model.lti[i].dofs()) = model.lti[i].q;
  for (size_t i = 0; i < model.nonlinear.size(); ++i)
    q.segment(l.nonlinear_offset[i], model.nonlinear[i].dofs()) = model.nonlinear[i].q;
  const RigidBodies& b = model.bodies;
  for (Index k = 0; k < l.bodies; ++k) {
    const Index o = l.rigid_coord_offset + 7 * k;
    q.segment<3>(o) = b.x[k];
    q.segment<4>(o + 3) << b.q[k].w(), b.q[k].x(), b.q[k].y(), b.q[k].z();
  }
}

void gather_velocities(const Model& model, const DofLayout& l, Vector& v) {
  v.resize(l.n_vels);
  for (size_t i = 0; i < model.lti.size(); ++i) v.segment(l.lti_offset[i], model.lti[i].dofs()) = model.lti[i].v;
  for (size_t i = 0; i < model.nonlinear.size(); ++i)
    v.segment(l.nonlinear_offset[i], model.nonlinear[i].dofs()) = model.nonlinear[i].v;
  const RigidBodies& b = model.bodies;
  for (Index k = 0; k < l.bodies; ++k) {
    const Index o = l.rigid_vel_offset + 6 * k;
    v.segment<3>(o) = b.v[k];
    v.segment<3>(o + 3) = b.q[k].toRotationMatrix().transpose() * b.w[k];  // ω_body = Rᵀ ω_world
  }
}

void scatter_coordinates(const DofLayout& l, const Vector& q, Model& model) {
  assert(q.size() == l.n_coords);
  for (size_t i = 0; i < model.lti.size(); ++i) model.lti[i].q = q.segment(l.lti_offset[i], model.lti[i].dofs());
  for (size_t i = 0; i < model.nonlinear.size(); ++i)
    model.nonlinear[i].q = q.segment(l.nonlinear_offset[i], model.nonlinear[i].dofs());
  RigidBodies& b = model.bodies;
  for (Index k = 0; k < l.bodies; ++k) {
    const Index o = l.rigid_coord_offset + 7 * k;
    b.x[k] = q.segment<3>(o);
    b.q[k] = Eigen::Quaterniond(q[o + 3], q[o + 4], q[o + 5], q[o + 6]);  // (w, x, y, z), stored as given
  }
}

void scatter_velocities(const DofLayout& l, const Vector& v, Model& model) {
  assert(v.size() == l.n_vels);
  for (size_t i = 0; i < model.lti.size(); ++i) model.lti[i].v = v.segment(l.lti_offset[i], model.lti[i].dofs());
  for (size_t i = 0; i < model.nonlinear.size(); ++i)
    model.nonlinear[i].v = v.segment(l.nonlinear_offset[i], model.nonlinear[i].dofs());
  RigidBodies& b = model.bodies;
  for (Index k = 0; k < l.bodies; ++k) {
    const Index o = l.rigid_vel_offset + 6 * k;
    b.v[k] = v.segment<3>(o);
    b.w[k] = b.q[k].toRotationMatrix() * v.segment<3>(o + 3);  // ω_world = R ω_body, R of the stored orientation
  }
}

void scatter_state(const DofLayout& l, const Vector& q, const Vector& v, Model& model) {
  scatter_coordinates(l, q, model);  // first: scatter_velocities rotates ω with the orientation it finds
  scatter_velocities(l, v, model);
}

Eigen::Vector3d body_torque(const Model& model, const DofLayout& l, const Vector& q, Index k) {
  const Index o = l.rigid_coord_offset + 7 * k + 3;
  const Eigen::Quaterniond quat(q[o], q[o + 1], q[o + 2], q[o + 3]);
  return quat.toRotationMatrix().transpose() * model.bodies.torque_of(static_cast<int>(k));  // τ_body = Rᵀ τ_world
}

void advance_coordinates(const DofLayout& l, const Vector& q0, const Vector& v, double h, Vector& q1) {
  assert(q0.size() == l.n_coords && v.size() == l.n_vels && &q0 != &q1);
  q1.resize(l.n_coords);
  const Index n_lin = l.rigid_coord_offset;
  q1.head(n_lin) = q0.head(n_lin) + h * v.head(n_lin);
  for (Index k = 0; k < l.bodies; ++k) {
    const Index qo = l.rigid_coord_offset + 7 * k, vo = l.rigid_vel_offset + 6 * k;
    q1.segment<3>(qo) = q0.segment<3>(qo) + h * v.segment<3>(vo);
    const Eigen::Vector3d phi = h * v.segment<3>(vo + 3);
    const double angle = phi.norm();
    // exp(½ φ) as a quaternion; sin(a/2)/a is evaluated by its series near 0 to stay exact for tiny rotations.
    const double half = 0.5 * angle;
    const double s = angle > 1e-8 ? std::sin(half) / angle : 0.5 - angle * angle / 48.0;
    const Eigen::Quaterniond dq(std::cos(half), s * phi.x(), s * phi.y(), s * phi.z());
    const Eigen::Vector4d& a = q0.segment<4>(qo + 3);
    Eigen::Quaterniond r = Eigen::Quaterniond(a[0], a[1], a[2], a[3]) * dq;
    r.normalize();
    q1.segment<4>(qo + 3) << r.w(), r.x(), r.y(), r.z();
  }
}

void coordinate_difference(const DofLayout& l, const Vector& q1, const Vector& q0, Vector& d) {
  assert(q0.size() == l.n_coords && q1.size() == l.n_coords);
  d.resize(l.n_vels);
  const Index n_lin = l.rigid_coord_offset;
  d.head(n_lin) = q1.head(n_lin) - q0.head(n_lin);
  for (Index k = 0; k < l.bodies; ++k) {
    const Index qo = l.rigid_coord_offset + 7 * k, vo = l.rigid_vel_offset + 6 * k;
    d.segment<3>(vo) = q1.segment<3>(qo) - q0.segment<3>(qo);
    const Eigen::Vector4d &a = q0.segment<4>(qo + 3), &b = q1.segment<4>(qo + 3);
    Eigen::Quaterniond r = Eigen::Quaterniond(a[0], a[1], a[2], a[3]).conjugate() * Eigen::Quaterniond(b[0], b[1], b[2], b[3]);
    if (r.w() < 0.0) r.coeffs() = -r.coeffs();  // the same rotation, the shorter way round
    // φ = 2 atan2(|r_v|, r_w) r_v / |r_v|, by its series near 0 (as advance_coordinates' exp).
    const Eigen::Vector3d rv = r.vec();
    const double s = rv.norm();
    const double scale = s > 1e-8 ? 2.0 * std::atan2(s, r.w()) / s : 2.0 / r.w();
    d.segment<3>(vo + 3) = scale * rv;
  }
}

Eigen::Matrix<double, 4, 3> quaternion_rate_matrix(const Eigen::Vector4d& q) {
  Eigen::Matrix<double, 4, 3> G;
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  G << -x, -y, -z,
        w, -z,  y,
        z,  w, -x,
       -y,  x,  w;
  return 0.5 * G;
}

}  // namespace talus
