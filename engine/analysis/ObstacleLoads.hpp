#pragma once
// The loads the bodies put on the obstacles of the large path (walls, boxes, conical shells, drums, meshes): the
// force on a silo's wall and floor (Janssen's redirection of the weight), the floor's share of a column, the
// torque and power a rotating drum draws. Issue 11 lists "the force on a wall" among what obstacles as bodies
// should give; it is read here from the contacts, which already name their obstacle in their keys
// (contact/ContactKey.hpp), so no per-contact work is added to the step.
//
// Every contact of a step whose first side is an obstacle (SweepContact and GeneralContact with a < 0) puts the
// opposite of its impulse on that obstacle, with its moment about the obstacle's reference point, and the
// opposite of its rolling couple (solvers/matrixfree/RollingResistance.hpp). Summed over the steps of an interval
// and divided by the interval's time they are the interval's mean force and torque: Moreau–Jean's percussions read
// as forces (seed 004), exact in the mean. Over any interval without bodies added or removed and without joints to
// the world, Σ over the obstacles of their impulses = M g T − ΔP, P the bodies' momentum (tests/granular/
// test_obstacle_loads.cpp checks this to round-off). Generalized-α's position corrections move positions, not
// momenta, and are not loads. Contacts with FE beams are the beams' (not obstacles); a mesh carried by a capsule
// is part of that capsule, so its contacts load the capsule.
#include <Eigen/Dense>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "contact/ContactKey.hpp"

namespace talus {
struct Model;
namespace granular {
class GranularStepper;
}

// Wall: Model::walls, the planes of single scenes (`planes:`).
enum class ObstacleKind : std::uint8_t { Wall, Box, Cone, Drum, Mesh };

struct ObstacleRef {
  ObstacleKind kind = ObstacleKind::Wall;
  int index = 0;  // in the model's list of that kind (Model::walls, boxes, cones, drums, meshes)
  bool operator==(const ObstacleRef&) const = default;
};

// "plane", "box", "cone", "drum", "mesh" (the scene format's names of the kinds).
const char* obstacle_kind_name(ObstacleKind kind);
// "plane0", "box2", ...: the obstacle's label where the scene gives it no name.
std::string obstacle_label(ObstacleRef o);

// Every obstacle of the model, in this order: walls, boxes, cones, drums, meshes.
std::vector<ObstacleRef> model_obstacles(const Model& m);

// The obstacle a contact key names; nullopt for a key between two bodies or with an FE beam. Mesh keys hold a
// feature number among all meshes' features (the stepper numbers them mesh after mesh in the model's order).
std::optional<ObstacleRef> obstacle_of_key(const Model& m, contact::ContactKey key);

// The point torques are taken about, at time t: a wall's point nearest the origin (offset(t) n), a box's centre,
// a cone's base centre, a drum's centre, a moving mesh's centre of rotation (where it is at t), and the origin
// for a fixed mesh (its vertices are world coordinates) or a carried one.
Eigen::Vector3d obstacle_reference_point(const Model& m, ObstacleRef o, double t);

// The loads summed over an interval of steps (header).
struct ObstacleLoads {
  std::vector<ObstacleRef> obstacles;              // model_obstacles at the last reset
  std::vector<Eigen::Vector3d> impulse;            // Σ force h on each obstacle [N s], world frame
  std::vector<Eigen::Vector3d> angular_impulse;    // Σ torque h about its reference point [N m s]
  std::vector<Eigen::Vector3d> reference;          // the reference point at the last step added [m]
  double time = 0.0;                               // Σ h over the steps added [s]
  long steps = 0;

  // Sizes the sums to the model's obstacles and zeroes them.
  void reset(const Model& m);
  Eigen::Vector3d mean_force(int k) const { return time > 0.0 ? Eigen::Vector3d(impulse[k] / time) : Eigen::Vector3d::Zero(); }
  Eigen::Vector3d mean_torque(int k) const {
    return time > 0.0 ? Eigen::Vector3d(angular_impulse[k] / time) : Eigen::Vector3d::Zero();
  }
};

// Adds the last step of `stepper` (which steps `m`, read after the step: the contact points lie on the bodies as
// they end the step) to `loads`. A model whose obstacles changed since the last reset resets the sums first.
void add_obstacle_impulses(const Model& m, const granular::GranularStepper& stepper, ObstacleLoads& loads);

}  // namespace talus
