// Loads on the obstacles (see the header).
#include "engine/analysis/ObstacleLoads.hpp"

#include "engine/Model.hpp"
#include "engine/granular/GranularStepper.hpp"

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

std::vector<ObstacleRef> model_obstacles(const Model& m) {
  std::vector<ObstacleRef> out;
  auto add = [&out](ObstacleKind kind, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) out.push_back({kind, static_cast<int>(i)});
  };
  add(ObstacleKind::Wall, m.walls.size());
  add(ObstacleKind::Box, m.boxes.size());
  add(ObstacleKind::Cone, m.cones.size());
  add(ObstacleKind::Drum, m.drums.size());
  add(ObstacleKind::Mesh, m.meshes.size());
  return out;
}

std::optional<ObstacleRef> obstacle_of_key(const Model& m, contact::ContactKey key) {
  using contact::KeyObstacle;
  if (!contact::is_obstacle_key(key)) return std::nullopt;
  const int index = static_cast<int>(contact::obstacle_index(key));
  switch (contact::obstacle_kind(key)) {
    case KeyObstacle::Plane: return ObstacleRef{ObstacleKind::Wall, index};
    case KeyObstacle::Box: return ObstacleRef{ObstacleKind::Box, index};
    case KeyObstacle::Cone: return ObstacleRef{ObstacleKind::Cone, index};
    case KeyObstacle::Drum: return ObstacleRef{ObstacleKind::Drum, index};
    case KeyObstacle::Mesh:
    case KeyObstacle::MeshPoint: {
      // The stepper numbers the features mesh after mesh (GranularStepper's mesh_feature_offset_).
      std::uint64_t feature = contact::mesh_feature_number(key), start = 0;
      for (int k = 0; k < static_cast<int>(m.meshes.size()); ++k) {
        const std::uint64_t n = static_cast<std::uint64_t>(m.meshes[k]->feature_count());
        if (feature < start + n) return ObstacleRef{ObstacleKind::Mesh, k};
        start += n;
      }
      return std::nullopt;
    }
    case KeyObstacle::Beam: return std::nullopt;
  }
  return std::nullopt;
}

Eigen::Vector3d obstacle_reference_point(const Model& m, ObstacleRef o, double t) {
  switch (o.kind) {
    case ObstacleKind::Wall: {
      const contact::Wall& w = m.walls[o.index];
      return (w.offset + w.displacement(t)) * w.normal;
    }
    case ObstacleKind::Box: return m.boxes[o.index].centre;
    case ObstacleKind::Cone: return m.cones[o.index].base;
    case ObstacleKind::Drum: return m.drums[o.index].centre;
    case ObstacleKind::Mesh:
      return m.mesh_moves(o.index) && m.mesh_carrier(o.index) < 0 ? m.mesh_motion[o.index].centre_at(t)
                                                                  : Eigen::Vector3d::Zero();
  }
  return Eigen::Vector3d::Zero();
}

void ObstacleLoads::reset(const Model& m) {
  obstacles = model_obstacles(m);
  const std::size_t n = obstacles.size();
  impulse.assign(n, Eigen::Vector3d::Zero());
  angular_impulse.assign(n, Eigen::Vector3d::Zero());
  reference.assign(n, Eigen::Vector3d::Zero());
  for (std::size_t k = 0; k < n; ++k) reference[k] = obstacle_reference_point(m, obstacles[k], m.time);
  time = 0.0;
  steps = 0;
}

void add_obstacle_impulses(const Model& m, const granular::GranularStepper& stepper, ObstacleLoads& loads) {
  if (loads.obstacles != model_obstacles(m)) loads.reset(m);
  const std::size_t n = loads.obstacles.size();
  // Where each obstacle's loads go: the kinds' first slots in model_obstacles' order.
  const int first[5] = {0, static_cast<int>(m.walls.size()), static_cast<int>(m.walls.size() + m.boxes.size()),
                        static_cast<int>(m.walls.size() + m.boxes.size() + m.cones.size()),
                        static_cast<int>(m.walls.size() + m.boxes.size() + m.cones.size() + m.drums.size())};
  for (std::size_t k = 0; k < n; ++k) loads.reference[k] = obstacle_reference_point(m, loads.obstacles[k], m.time);
  const RigidBodies& b = m.bodies;
  // On the obstacle: −R at the contact point and −(the rolling couple on the body). In a periodic domain the arm is
  // the minimum image (the body may sit one period away from the reference point).
  auto add = [&](contact::ContactKey key, const Eigen::Vector3d& R, const Eigen::Vector3d& point,
                 const Eigen::Vector3d& couple) {
    const std::optional<ObstacleRef> o = obstacle_of_key(m, key);
    if (!o) return;
    const int slot = first[static_cast<int>(o->kind)] + o->index;
    if (slot < 0 || slot >= static_cast<int>(n)) return;
    Eigen::Vector3d arm = point - loads.reference[slot];
    if (m.periodic.any()) arm = m.periodic.minimum_image(arm);
    loads.impulse[slot] -= R;
    loads.angular_impulse[slot] -= arm.cross(R) + couple;
  };
  const auto& sphere = stepper.contacts();
  const auto& keys = stepper.contact_keys();
  const bool rolling = stepper.has_rolling_resistance() && stepper.rolling_contacts().size() == sphere.size();
  for (std::size_t i = 0; i < sphere.size(); ++i) {
    const matrixfree::SweepContact& c = sphere[i];
    if (c.a >= 0) continue;
    const Eigen::Vector3d R = c.r[0] * c.n + c.r[1] * c.t1 + c.r[2] * c.t2;
    Eigen::Vector3d couple = Eigen::Vector3d::Zero();
    if (rolling) {
      const matrixfree::RollingContact& k = stepper.rolling_contacts()[i];
      couple = k.radius * (k.rho[0] * c.t1 + k.rho[1] * c.t2);
    }
    add(keys[i], R, b.x[c.b] - c.rb * c.n, couple);
  }
  const granular::GeneralContactSet& general = stepper.general_contacts();
  for (std::size_t i = 0; i < general.contacts.size(); ++i) {
    const matrixfree::GeneralContact& c = general.contacts[i];
    if (c.kind_a != matrixfree::BodyKind::Fixed) continue;
    const Eigen::Vector3d R = c.r[0] * c.n + c.r[1] * c.t1 + c.r[2] * c.t2;
    const Eigen::Vector3d couple = c.roll.radius * (c.roll.rho[0] * c.t1 + c.roll.rho[1] * c.t2);
    add(general.keys[i], R, b.x[c.b] + c.pb, couple);
  }
  loads.time += stepper.parameters().h;
  ++loads.steps;
}

}  // namespace talus
