// Contacts as forces (see the header).
#include "engine/analysis/ContactForces.hpp"

#include "engine/Model.hpp"
#include "engine/granular/GranularStepper.hpp"

namespace talus {

void granular_contact_forces(const Model& model, const granular::GranularStepper& stepper,
                             std::vector<ContactForce>& out) {
  out.clear();
  const double inv_h = 1.0 / stepper.parameters().h;
  const RigidBodies& bodies = model.bodies;
  const auto& sphere = stepper.contacts();
  const auto& general = stepper.general_contacts().contacts;
  out.reserve(sphere.size() + general.size());
  for (const matrixfree::SweepContact& c : sphere) {
    ContactForce f;
    f.a = c.a;
    f.b = c.b;
    f.normal = c.n;
    // The sphere kernel's lever arm of b is −rb n: the point lies rb behind b's centre along the normal.
    f.point = bodies.x[c.b] - c.rb * c.n;
    f.force = (c.r[0] * c.n + c.r[1] * c.t1 + c.r[2] * c.t2) * inv_h;
    if (c.a >= 0) f.gap = (bodies.x[c.b] - bodies.x[c.a]).norm() - bodies.radius[c.a] - bodies.radius[c.b];
    out.push_back(f);
  }
  for (const matrixfree::GeneralContact& c : general) {
    ContactForce f;
    f.a = c.kind_a == matrixfree::BodyKind::Fixed ? -1 : c.a;
    f.b = c.b;
    f.normal = c.n;
    f.point = bodies.x[c.b] + c.pb;
    f.force = (c.r[0] * c.n + c.r[1] * c.t1 + c.r[2] * c.t2) * inv_h;
    out.push_back(f);
  }
}

}  // namespace talus
