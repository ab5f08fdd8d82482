#pragma once
// The model's obstacles as bodies of the one store (issue 11 item 1: "walls, planes and boxes are static or
// kinematic bodies"; engine/bodies/RigidBodies.hpp, the obstacle group). The shapes stay in the model's tables
// (walls, boxes, cones, drums, meshes), which the narrow phases read; each obstacle body carries the pose its
// motion law gives at the model's time and the velocity its contacts see over the next step (the granular stepper
// places them when it is built, at the start of a step and after it; the restart reader when it restores a
// model), and the loads the bodies put on it over the last step.
//
// Poses (body frame → world), chosen so that the torque about the body's position is the one users ask for:
//   plane   x = the point nearest the origin, offset(t) n; z axis along n; v = the mean normal velocity over
//           [t, t + h] (what its contacts see, GranularStepper::detect);
//   box     x = its centre, its axes;
//   cone    x = the centre of its lower rim, z axis along its axis;
//   drum    x = its centre, z axis along its axis turned by Ω t about it; ω = Ω a (a drum's torque about x is its
//           drive torque);
//   mesh    a moving mesh: x = its centre of rotation where it is at t, R(t), its velocity and spin; a fixed one:
//           the origin and the identity (its vertices are world coordinates); a mesh carried by a capsule: the
//           capsule's pose and velocity.
// Loads (set_obstacle_loads, once the step is done and the obstacles placed at its end): every contact whose first
// side is an obstacle puts the opposite of its impulse on it at the contact point on the body's surface (where the
// body ends the step), and the opposite of its rolling couple (solvers/matrixfree/RollingResistance.hpp); the store keeps their mean over the step, impulse / h, as the
// obstacle body's force and torque about its position (in a periodic domain the arm is the minimum image).
// Generalized-α's position corrections move positions, not momenta: they are not loads. Contacts with a carried
// mesh load its capsule, contacts with FE beams the beam.
#include <vector>

#include "contact/ContactKey.hpp"
#include "engine/Model.hpp"
#include "engine/granular/GeneralContacts.hpp"
#include "solvers/matrixfree/RollingResistance.hpp"
#include "solvers/matrixfree/SweepContact.hpp"

namespace talus::granular {

// Every obstacle of the model, in the order of the store's obstacle group: walls, boxes, cones, drums, meshes.
std::vector<ObstacleRef> model_obstacles(const Model& m);

// The obstacle a contact key names; false for a key between two bodies or with an FE beam. Mesh keys hold a
// feature number among all meshes' features, numbered mesh after mesh in the model's order.
bool obstacle_of_key(const Model& m, contact::ContactKey key, ObstacleRef& out);

// Makes the store's obstacle group hold model_obstacles(m) (rebuilt when the tables changed) and places each body
// where its law puts it at time t, with the mean velocity over [t, t + h] (h = 0: the law's velocity at t).
void place_obstacle_bodies(Model& m, double t, double h);

// The obstacle bodies' force and torque (header) from one step's contacts: the bead contacts `slots` of
// `contacts` (those against an obstacle, a < 0), with their keys and rolling records (empty: none), and the
// general contacts of `general`. Zero for an obstacle no contact touched.
void set_obstacle_loads(Model& m, const std::vector<matrixfree::SweepContact>& contacts,
                        const std::vector<contact::ContactKey>& keys, const matrixfree::RollingContacts& rolling,
                        const std::vector<int>& slots, const GeneralContactSet& general, double h);

}  // namespace talus::granular
