#pragma once
// The incline of the granular tests: one bead of radius r (glass) resting on the plane z = 0, with gravity tilted
// by θ along +x, wall friction μ; with its rotation locked (infinite inertia) the bead is a sliding block.
#include <cmath>
#include <numbers>

#include "engine/Model.hpp"

namespace talus::granular::testing {

inline Model incline_model(double theta_deg, double mu, bool rotation_locked, double r = 0.01) {
  Model m;
  const double th = theta_deg * std::numbers::pi / 180.0;
  m.gravity = 9.81 * Eigen::Vector3d(std::sin(th), 0.0, -std::cos(th));
  m.materials.law(talus::kBeadMaterial, talus::kWallMaterial).mu = mu;
  m.walls.push_back(talus::contact::Wall{});
  m.bodies.add_sphere(Eigen::Vector3d(0, 0, r), r, 2500.0);
  if (rotation_locked) m.bodies.inv_inertia[0] = 0.0;
  return m;
}

}  // namespace talus::granular::testing
