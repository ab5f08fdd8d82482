#pragma once
// The contacts of a step as the Python module hands them out (talus.ContactList): the engine's ContactForce list
// (engine/analysis/ContactForces.hpp), which the measurements read as it is and numpy sees as copies, one array
// per field (the solvers keep impulses per contact frame in sweep order, in two families: there is no single
// array a view could show).
#include <vector>

#include "engine/analysis/ContactForces.hpp"

namespace talus::python {

struct ContactList {
  std::vector<ContactForce> items;
};

}  // namespace talus::python
