// Kinetic and potential energy of the model (conventions in DiscreteEnergy.hpp).
#include "engine/DiscreteEnergy.hpp"

namespace talus {

double kinetic_energy(const Model& model, const DofLayout& layout, const Vector& q, const Vector& v) {
  double e = 0.0;
  for (size_t i = 0; i < model.lti.size(); ++i) {
    const auto vi = v.segment(layout.lti_offset[i], model.lti[i].dofs());
    e += 0.5 * vi.dot(model.lti[i].M * vi);
  }
  Matrix M;
  for (size_t i = 0; i < model.nonlinear.size(); ++i) {
    const LagrangianNonlinear& s = model.nonlinear[i];
    const Index o = layout.nonlinear_offset[i];
    M.setZero(s.n, s.n);
    s.mass(q.segment(o, s.n), M);
    const auto vi = v.segment(o, s.n);
    e += 0.5 * vi.dot(M * vi);
  }
  const RigidBodies& b = model.bodies;
  for (Index k = 0; k < layout.bodies; ++k) {
    if (b.inv_mass[k] == 0.0) continue;
    const Index o = layout.rigid_vel_offset + 6 * k;
    e += 0.5 * b.mass[k] * v.segment<3>(o).squaredNorm();
    e += 0.5 * v.segment<3>(o + 3).cwiseAbs2().dot(b.inertia[k]);
  }
  return e;
}

double potential_energy(const Model& model, const DofLayout& layout, const Vector& q) {
  double e = 0.0;
  for (size_t i = 0; i < model.lti.size(); ++i) {
    if (model.lti[i].K.size() == 0) continue;
    const auto qi = q.segment(layout.lti_offset[i], model.lti[i].dofs());
    e += 0.5 * qi.dot(model.lti[i].K * qi);
  }
  for (size_t i = 0; i < model.nonlinear.size(); ++i) {
    const LagrangianNonlinear& s = model.nonlinear[i];
    if (s.potential) e += s.potential(q.segment(layout.nonlinear_offset[i], s.n));
  }
  return e;
}

double total_energy(const Model& model) {
  const DofLayout layout = make_dof_layout(model);
  Vector q, v;
  gather_coordinates(model, layout, q);
  gather_velocities(model, layout, v);
  return kinetic_energy(model, layout, q, v) + potential_energy(model, layout, q);
}

}  // namespace talus
