#include "engine/granular/MovingMeshContacts.hpp"

#include <algorithm>

namespace talus::granular {

double mesh_surface_travel(const contact::TriangleMesh& mesh, const contact::MeshMotion& motion, double h) {
  double arm = 0.0;
  for (const Eigen::Vector3d& v : mesh.vertices) arm = std::max(arm, (v - motion.centre).norm());
  return h * (motion.velocity.norm() + std::abs(motion.angular_velocity) * arm);
}

namespace {

// Bead j's centre, the image nearest to the mesh in a periodic domain (world frame, time t).
Eigen::Vector3d bead_near_mesh(const Model& m, int k, int j, double t) {
  const Eigen::Vector3d& x = m.bodies.x[j];
  if (!m.periodic.any()) return x;
  const contact::BvhNode& root = m.meshes[k]->bvh[0];
  const Eigen::Vector3d centre = m.mesh_motion[k].to_world(0.5 * (root.lo + root.hi), t);
  return centre + m.periodic.minimum_image(x - centre);
}

}  // namespace

void detect_moving_mesh_contacts(const Model& m, const std::vector<contact::MeshProximityGrid>& grids,
                                 const std::vector<std::uint32_t>& feature_offset, double margin, double h,
                                 std::vector<contact::MeshCandidate>& scratch, std::vector<GeneralCandidate>& out) {
  const RigidBodies& b = m.bodies;
  const double t = m.time;
  for (int k = 0; k < static_cast<int>(m.meshes.size()); ++k) {
    if (!m.mesh_moves(k)) continue;
    const contact::TriangleMesh& mesh = *m.meshes[k];
    const contact::MeshMotion& motion = m.mesh_motion[k];
    const Eigen::Matrix3d R = motion.rotation(t);
    const double reach = margin + mesh_surface_travel(mesh, motion, h);
    for (int j = 0; j < b.spheres(); ++j) {
      const Eigen::Vector3d x = bead_near_mesh(m, k, j, t);
      const Eigen::Vector3d X = motion.to_mesh(x, t);
      if (!grids[k].may_be_near(X)) continue;
      contact::sphere_mesh_features(mesh, X, b.radius[j], reach, scratch, [&](int f) {
        contact::ContactPoint cp;
        if (!contact::sphere_mesh_feature_point(mesh, f, X, b.radius[j], cp)) return;
        GeneralCandidate g;
        g.a = -1, g.b = j, g.kind_a = BodyKind::Fixed, g.kind_b = BodyKind::Sphere;
        cp.n = R * cp.n;
        cp.pb = -b.radius[j] * cp.n;
        g.point = cp;
        const ContactLaw& law = m.materials.law(m.material_of_mesh(k), b.material[j]);
        g.mu = law.mu, g.e = law.e;
        g.key = general_key(KeyKind::Wall, kMovingMeshKeyBase + feature_offset[k] + static_cast<std::uint32_t>(f),
                            KeyKind::Sphere, b.id[j], 0);
        g.wall_velocity = motion.velocity_at(x + cp.pb, t);
        g.wall_speed = cp.n.dot(g.wall_velocity);
        g.mesh = k, g.feature = f;
        out.push_back(g);
      });
    }
  }
}

double moving_mesh_drift(const GeneralCandidate& g, const Model& m, double h, double un_bead) {
  const contact::MeshMotion& motion = m.mesh_motion[g.mesh];
  const double t = m.time;
  const Eigen::Vector3d x_end = bead_near_mesh(m, g.mesh, g.b, t) + h * m.bodies.v[g.b];
  contact::ContactPoint end;
  if (!contact::sphere_mesh_feature_point(*m.meshes[g.mesh], g.feature, motion.to_mesh(x_end, t + h),
                                          m.bodies.radius[g.b], end))
    return 0.0;
  return std::min(0.0, end.gap - g.point.gap - h * (un_bead - g.wall_speed));
}

}  // namespace talus::granular
