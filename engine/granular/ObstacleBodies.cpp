// The obstacles as bodies of the store (see the header).
#include "engine/granular/ObstacleBodies.hpp"

#include <algorithm>
#include <array>

#include "engine/granular/MovingMeshContacts.hpp"

namespace talus::granular {

std::vector<ObstacleRef> model_obstacles(const Model& m) {
  std::vector<ObstacleRef> out;
  out.reserve(m.walls.size() + m.boxes.size() + m.cones.size() + m.drums.size() + m.meshes.size());
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

bool obstacle_of_key(const Model& m, contact::ContactKey key, ObstacleRef& out) {
  using contact::KeyObstacle;
  if (!contact::is_obstacle_key(key)) return false;
  const int index = static_cast<int>(contact::obstacle_index(key));
  switch (contact::obstacle_kind(key)) {
    case KeyObstacle::Plane: out = {ObstacleKind::Wall, index}; return true;
    case KeyObstacle::Box: out = {ObstacleKind::Box, index}; return true;
    case KeyObstacle::Cone: out = {ObstacleKind::Cone, index}; return true;
    case KeyObstacle::Drum: out = {ObstacleKind::Drum, index}; return true;
    case KeyObstacle::Mesh:
    case KeyObstacle::MeshPoint: {
      // The stepper numbers the features mesh after mesh (GranularStepper's mesh_feature_offset_).
      const std::uint64_t feature = contact::mesh_feature_number(key);
      std::uint64_t start = 0;
      for (int k = 0; k < static_cast<int>(m.meshes.size()); ++k) {
        const auto n = static_cast<std::uint64_t>(m.meshes[k]->feature_count());
        if (feature < start + n) {
          out = {ObstacleKind::Mesh, k};
          return true;
        }
        start += n;
      }
      return false;
    }
    case KeyObstacle::Beam: return false;
  }
  return false;
}

namespace {

// The index of the first obstacle of each kind in model_obstacles' order.
std::array<int, 5> kind_starts(const Model& m) {
  const int w = static_cast<int>(m.walls.size()), b = static_cast<int>(m.boxes.size());
  const int c = static_cast<int>(m.cones.size()), d = static_cast<int>(m.drums.size());
  return {0, w, w + b, w + b + c, w + b + c + d};
}

MaterialId material_of(const Model& m, ObstacleRef o) {
  switch (o.kind) {
    case ObstacleKind::Wall: return m.material_of_wall(o.index);
    case ObstacleKind::Box: return m.material_of_box(o.index);
    case ObstacleKind::Cone: return m.material_of_cone(o.index);
    case ObstacleKind::Drum: return m.material_of_drum(o.index);
    case ObstacleKind::Mesh: return m.material_of_mesh(o.index);
  }
  return kWallMaterial;
}

// Whether the store's obstacle group is model_obstacles(m), checked without building that list (every step).
bool group_matches(const Model& m) {
  const RigidBodies& b = m.bodies;
  const std::array<int, 5> start = kind_starts(m);
  const int n = start[4] + static_cast<int>(m.meshes.size());
  if (b.obstacles() != n) return false;
  for (int k = 0; k < n; ++k) {
    const int kind = static_cast<int>(std::upper_bound(start.begin(), start.end(), k) - start.begin()) - 1;
    if (!(b.obstacle[k] == ObstacleRef{static_cast<ObstacleKind>(kind), k - start[kind]})) return false;
  }
  return true;
}

}  // namespace

void place_obstacle_bodies(Model& m, double t, double h) {
  RigidBodies& b = m.bodies;
  if (!group_matches(m)) {
    b.clear_obstacles();
    const std::vector<ObstacleRef> obstacles = model_obstacles(m);
    // Exactly the room they need: appended one by one to full arrays, they would double every array's capacity
    // (+1.2 MB per 10⁴ beads of buffers that are never used).
    b.reserve(b.stored() + static_cast<int>(obstacles.size()));
    for (const ObstacleRef& o : obstacles) b.add_obstacle(o, material_of(m, o));
  }
  const Eigen::Vector3d z = Eigen::Vector3d::UnitZ();
  for (int k = 0; k < b.obstacles(); ++k) {
    const int i = b.obstacle_body(k);
    const ObstacleRef& o = b.obstacle[k];
    Eigen::Vector3d v = Eigen::Vector3d::Zero(), w = Eigen::Vector3d::Zero();
    switch (o.kind) {
      case ObstacleKind::Wall: {
        const contact::Wall& wall = m.walls[o.index];
        b.x[i] = (wall.offset + wall.displacement(t)) * wall.normal;
        b.q[i] = Eigen::Quaterniond::FromTwoVectors(z, wall.normal);
        const double speed = h > 0.0 ? (wall.displacement(t + h) - wall.displacement(t)) / h : wall.velocity(t);
        v = speed * wall.normal;
        break;
      }
      case ObstacleKind::Box: {
        const contact::Box& box = m.boxes[o.index];
        b.x[i] = box.centre;
        b.q[i] = Eigen::Quaterniond(box.axes).normalized();
        break;
      }
      case ObstacleKind::Cone: {
        const contact::Cone& cone = m.cones[o.index];
        b.x[i] = cone.base;
        b.q[i] = Eigen::Quaterniond::FromTwoVectors(z, cone.axis);
        break;
      }
      case ObstacleKind::Drum: {
        const contact::Drum& drum = m.drums[o.index];
        b.x[i] = drum.centre;
        b.q[i] = (Eigen::Quaterniond(Eigen::AngleAxisd(drum.angular_velocity * t, drum.axis)) *
                  Eigen::Quaterniond::FromTwoVectors(z, drum.axis)).normalized();
        w = drum.angular_velocity * drum.axis;
        break;
      }
      case ObstacleKind::Mesh: {
        if (const int c = m.mesh_carrier(o.index); c >= 0) {
          b.x[i] = b.x[c], b.q[i] = b.q[c], v = b.v[c], w = b.w[c];
        } else if (m.mesh_moves(o.index)) {
          const contact::MeshMotion& mm = m.mesh_motion[o.index];
          b.x[i] = mm.centre_at(t);
          b.q[i] = Eigen::Quaterniond(Eigen::AngleAxisd(mm.angular_velocity * t, mm.axis));
          v = mm.velocity, w = mm.angular_velocity * mm.axis;
        } else {
          b.x[i].setZero(), b.q[i].setIdentity();
        }
        break;
      }
    }
    b.v[i] = v, b.w[i] = w;
  }
}

void set_obstacle_loads(Model& m, const std::vector<matrixfree::SweepContact>& contacts,
                        const std::vector<contact::ContactKey>& keys, const matrixfree::RollingContacts& rolling,
                        const std::vector<int>& slots, const GeneralContactSet& general, double h) {
  RigidBodies& b = m.bodies;
  const int n = b.obstacles();
  for (int k = 0; k < n; ++k) b.force_of(b.obstacle_body(k)).setZero(), b.torque_of(b.obstacle_body(k)).setZero();
  if (n == 0) return;
  const std::array<int, 5> start = kind_starts(m);
  const double inv_h = 1.0 / h;
  // On the obstacle: −R at the point, −(the rolling couple on the body).
  auto add = [&](contact::ContactKey key, const Eigen::Vector3d& R, const Eigen::Vector3d& point,
                 const Eigen::Vector3d& couple) {
    ObstacleRef o;
    if (!obstacle_of_key(m, key, o)) return;
    const int k = start[static_cast<int>(o.kind)] + o.index;
    if (k < 0 || k >= n) return;
    const int i = b.obstacle_body(k);
    Eigen::Vector3d arm = point - b.x[i];
    if (m.periodic.any()) arm = m.periodic.minimum_image(arm);
    b.force_of(i) -= R * inv_h;
    b.torque_of(i) -= (arm.cross(R) + couple) * inv_h;
  };
  const bool with_rolling = rolling.size() == contacts.size();
  for (int s : slots) {
    const matrixfree::SweepContact& c = contacts[s];
    const Eigen::Vector3d R = c.r[0] * c.n + c.r[1] * c.t1 + c.r[2] * c.t2;
    Eigen::Vector3d couple = Eigen::Vector3d::Zero();
    if (with_rolling) couple = rolling[s].radius * (rolling[s].rho[0] * c.t1 + rolling[s].rho[1] * c.t2);
    add(keys[s], R, b.x[c.b] - c.rb * c.n, couple);
  }
  for (std::size_t j = 0; j < general.contacts.size(); ++j) {
    const matrixfree::GeneralContact& c = general.contacts[j];
    if (c.kind_a != matrixfree::BodyKind::Fixed) continue;
    const Eigen::Vector3d R = c.r[0] * c.n + c.r[1] * c.t1 + c.r[2] * c.t2;
    const Eigen::Vector3d couple = c.roll.radius * (c.roll.rho[0] * c.t1 + c.roll.rho[1] * c.t2);
    add(general.keys[j], R, b.x[c.b] + c.pb, couple);
  }
}

}  // namespace talus::granular
