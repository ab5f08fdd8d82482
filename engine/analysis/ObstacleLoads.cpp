// Loads on the obstacles over an interval (see the header).
#include "engine/analysis/ObstacleLoads.hpp"

#include "engine/Model.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "engine/granular/ObstacleBodies.hpp"

namespace talus {

const char* obstacle_kind_name(ObstacleKind kind) {
  switch (kind) {
    case ObstacleKind::Wall: return "plane";
    case ObstacleKind::Box: return "box";
    case ObstacleKind::Cone: return "cone";
    case ObstacleKind::Drum: return "drum";
    case ObstacleKind::Mesh: return "mesh";
  }
  return "obstacle";
}

std::string obstacle_label(ObstacleRef o) { return obstacle_kind_name(o.kind) + std::to_string(o.index); }

void ObstacleLoads::reset(const Model& m) {
  obstacles = granular::model_obstacles(m);
  const std::size_t n = obstacles.size();
  impulse.assign(n, Eigen::Vector3d::Zero());
  angular_impulse.assign(n, Eigen::Vector3d::Zero());
  reference.assign(n, Eigen::Vector3d::Zero());
  if (m.bodies.obstacles() == static_cast<int>(n))
    for (std::size_t k = 0; k < n; ++k) reference[k] = m.bodies.x[m.bodies.obstacle_body(static_cast<int>(k))];
  time = 0.0;
  steps = 0;
}

void add_obstacle_impulses(const Model& m, const granular::GranularStepper& stepper, ObstacleLoads& loads) {
  const RigidBodies& b = m.bodies;
  // The stepper keeps its obstacle group as model_obstacles(m) (ObstacleBodies.hpp): compared without building it.
  if (loads.obstacles != b.obstacle) loads.reset(m);
  const double h = stepper.parameters().h;
  // The stepper has placed one body per obstacle, in model_obstacles' order (ObstacleBodies.hpp).
  if (b.obstacles() == static_cast<int>(loads.obstacles.size()))
    for (int k = 0; k < b.obstacles(); ++k) {
      const int i = b.obstacle_body(k);
      loads.impulse[k] += b.force_of(i) * h;
      loads.angular_impulse[k] += b.torque_of(i) * h;
      loads.reference[k] = b.x[i];
    }
  loads.time += h;
  ++loads.steps;
}

}  // namespace talus
