#pragma once
// The contacts of a step as forces between bodies, the one form every granular measurement reads
// (GranularMeasures.hpp; issue 13 item 5). The solvers keep impulses in each contact's frame, in sweep order
// and in two families (sphere contacts and contacts touching a capsule or a drum, solvers/matrixfree); a
// measurement wants, per contact, the two bodies, the point, the normal and the mean force over the step
// (impulse / h, Moreau–Jean's reading of a percussion as a force, seed 004).
#include <Eigen/Dense>
#include <cstdint>
#include <limits>
#include <vector>

namespace talus {
struct Model;
namespace granular {
class GranularStepper;
}

struct ContactForce {
  std::int32_t a = -1;  // body index in Model::bodies, −1 for an obstacle (wall, box, drum)
  std::int32_t b = -1;  // body index (always a body)
  Eigen::Vector3d point = Eigen::Vector3d::Zero();    // on b's surface, world [m]
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();  // unit, from a to b
  Eigen::Vector3d force = Eigen::Vector3d::Zero();    // on b (its opposite on a), world [N]
  // Surface distance at the start of the step [m] where the geometry gives it exactly (two spheres); NaN
  // otherwise. The one-step problem also holds contacts that are open but may close within the step.
  double gap = std::numeric_limits<double>::quiet_NaN();

  double normal_force() const { return force.dot(normal); }
};

// The last step's contacts of `stepper` (both families) with their forces (impulse / h, h the stepper's
// step), read from `model`, the model the stepper steps. Appends nothing for a model that was not stepped
// yet.
void granular_contact_forces(const Model& model, const granular::GranularStepper& stepper,
                             std::vector<ContactForce>& out);

}  // namespace talus
