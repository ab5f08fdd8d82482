#include "engine/granular/GeneralContacts.hpp"

#include "contact/ContactFrame.hpp"

namespace talus::granular {

void prepare_general_contact(GeneralContact& c, const Eigen::Vector3d& normal, const Eigen::Vector3d& pa,
                             const Eigen::Vector3d& pb, double mu, const RigidBodies& bodies) {
  const contact::ContactFrame f = contact::make_frame(normal);
  matrixfree::prepare_general_contact(c, f.n, f.t1, f.t2, pa, pb, mu, body_arrays(bodies));
}

void general_world_impulses(GeneralContactSet& set) {
  set.world_impulses.resize(set.contacts.size());
  for (std::size_t k = 0; k < set.contacts.size(); ++k) {
    const GeneralContact& c = set.contacts[k];
    set.world_impulses[k] = c.r[0] * c.n + c.r[1] * c.t1 + c.r[2] * c.t2;
  }
}

void general_world_rolling(GeneralContactSet& set) {
  set.world_impulses.resize(set.contacts.size());
  for (std::size_t k = 0; k < set.contacts.size(); ++k) {
    const GeneralContact& c = set.contacts[k];
    set.world_impulses[k] = c.roll.rho[0] * c.t1 + c.roll.rho[1] * c.t2;
  }
}

}  // namespace talus::granular
