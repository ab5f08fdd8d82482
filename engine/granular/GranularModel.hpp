#pragma once
// A bead assembly to simulate (issue 4): beads and capsules, walls (static or moving planes), fixed boxes, periodic
// boundaries, gravity and the contact laws (Newton impact restitution and Coulomb friction, bead–bead and
// bead–wall), plus the time reached. Scenes are built by GranularScenes.hpp; the step is GranularStepper.hpp.
#include <Eigen/Dense>
#include <vector>

#include "contact/Periodicity.hpp"
#include "contact/Shapes.hpp"
#include "engine/bodies/RigidBodies.hpp"

namespace talus::granular {

struct GranularModel {
  RigidBodies bodies;  // beads (the sphere group) and capsules (contact parameters as the beads': mu_bead)
  std::vector<contact::Wall> walls;
  std::vector<contact::Box> boxes;    // fixed obstacles (μ = mu_wall)
  std::vector<contact::Drum> drums;   // rotating drums holding the beads (μ = mu_wall); contacts: GeneralContacts
  contact::Periodicity periodic;      // no wall may cut a periodic axis
  Eigen::Vector3d gravity{0.0, 0.0, -9.81};  // [m/s²]
  double mu_bead = 0.3;                      // Coulomb coefficient bead–bead
  double mu_wall = 0.3;                      // bead–wall
  double restitution = 0.0;                  // Newton's e, all contacts
  double time = 0.0;                         // [s]
  long step = 0;
};

}  // namespace talus::granular
