#pragma once
// The loads the bodies put on the obstacles of the large path, summed over an interval of steps: the force on a
// silo's wall and floor (Janssen's redirection of the weight), the floor's share of a column, the torque and
// power a rotating drum draws. Each step's loads are the obstacle bodies' force and torque in the store
// (engine/granular/ObstacleBodies.hpp: the opposite of every obstacle contact's impulse, its moment about the
// obstacle body's position and the opposite of its rolling couple, over h). Summed over the steps of an interval
// and divided by its time they are the interval's mean force and torque: Moreau–Jean's percussions read as forces
// (seed 004), exact in the mean. Over any interval without bodies added or removed and without joints to the
// world, Σ over the obstacles of their impulses = M g T − ΔP, P the bodies' momentum (tests/granular/
// test_obstacle_loads.cpp checks this to round-off).
#include <Eigen/Dense>
#include <string>
#include <vector>

#include "engine/bodies/RigidBodies.hpp"

namespace talus {
struct Model;
namespace granular {
class GranularStepper;
}

// "plane", "box", "cone", "drum", "mesh" (the scene format's names of the kinds).
const char* obstacle_kind_name(ObstacleKind kind);
// "plane0", "box2", ...: the obstacle's label where the scene gives it no name.
std::string obstacle_label(ObstacleRef o);

// The loads summed over an interval (header).
struct ObstacleLoads {
  std::vector<ObstacleRef> obstacles;              // granular::model_obstacles at the last reset
  std::vector<Eigen::Vector3d> impulse;            // Σ force h on each obstacle [N s], world frame
  std::vector<Eigen::Vector3d> angular_impulse;    // Σ torque h about the obstacle body's position [N m s]
  std::vector<Eigen::Vector3d> reference;          // that position at the last step added [m]
  double time = 0.0;                               // Σ h over the steps added [s]
  long steps = 0;

  // Sizes the sums to the model's obstacles and zeroes them (positions: the obstacle bodies', once placed).
  void reset(const Model& m);
  Eigen::Vector3d mean_force(int k) const { return time > 0.0 ? Eigen::Vector3d(impulse[k] / time) : Eigen::Vector3d::Zero(); }
  Eigen::Vector3d mean_torque(int k) const {
    return time > 0.0 ? Eigen::Vector3d(angular_impulse[k] / time) : Eigen::Vector3d::Zero();
  }
};

// Adds the last step of `stepper` (which steps `m`) to `loads`: the obstacle bodies' force and torque times h. A
// model whose obstacles changed since the last reset resets the sums first.
void add_obstacle_impulses(const Model& m, const granular::GranularStepper& stepper, ObstacleLoads& loads);

}  // namespace talus
