#include "engine/granular/MovingMeshContacts.hpp"

#include <omp.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

namespace talus::granular {

MeshPose mesh_pose(const Model& m, int k, double time) {
  MeshPose p;
  if (const int c = m.mesh_carrier(k); c >= 0) {
    p.R = m.bodies.q[c].toRotationMatrix(), p.t = m.bodies.x[c];
  } else if (m.mesh_moves(k)) {
    const contact::MeshMotion& mm = m.mesh_motion[k];
    p.R = mm.rotation(time), p.t = mm.centre_at(time) - p.R * mm.centre;
  }
  return p;
}

void attach_mesh_to_capsule(Model& m, int k, int body) {
  if (k < 0 || k >= static_cast<int>(m.meshes.size())) throw std::invalid_argument("no mesh " + std::to_string(k));
  if (body < 0 || body >= m.bodies.count() || m.bodies.kind(body) != ShapeKind::Capsule)
    throw std::invalid_argument("body " + std::to_string(body) + " is not a capsule");
  if (m.mesh_moves(k)) throw std::invalid_argument("mesh " + std::to_string(k) + " has a prescribed motion");
  if (m.mesh_carrier(k) >= 0) throw std::invalid_argument("mesh " + std::to_string(k) + " is carried already");
  const Eigen::Matrix3d R = m.bodies.q[body].toRotationMatrix();
  const contact::TriangleMesh& world = *m.meshes[k];
  std::vector<Eigen::Vector3d> v;
  for (const Eigen::Vector3d& p : world.vertices) v.push_back(R.transpose() * (p - m.bodies.x[body]));
  m.meshes[k] = std::make_shared<const contact::TriangleMesh>(
      contact::build_triangle_mesh(world.name, std::move(v), world.triangles));
  m.mesh_body.resize(m.meshes.size(), -1);
  m.mesh_body[k] = body;
}

double mesh_surface_travel(const Model& m, int k, double h) {
  const contact::TriangleMesh& mesh = *m.meshes[k];
  const int c = m.mesh_carrier(k);
  // The arm about the centre of rotation: the motion's, or the capsule's (the origin of the mesh's frame).
  const Eigen::Vector3d centre = c >= 0 ? Eigen::Vector3d::Zero() : m.mesh_motion[k].centre;
  double arm = 0.0;
  for (const Eigen::Vector3d& v : mesh.vertices) arm = std::max(arm, (v - centre).norm());
  if (c >= 0) return h * (m.bodies.v[c].norm() + m.bodies.w[c].norm() * arm);
  const contact::MeshMotion& motion = m.mesh_motion[k];
  return h * (motion.velocity.norm() + std::abs(motion.angular_velocity) * arm);
}

namespace {

// Bead j's centre, the image nearest to the mesh in a periodic domain (world frame).
Eigen::Vector3d bead_near_mesh(const Model& m, const MeshPose& pose, int k, int j) {
  const Eigen::Vector3d& x = m.bodies.x[j];
  if (!m.periodic.any()) return x;
  const contact::BvhNode& root = m.meshes[k]->bvh[0];
  const Eigen::Vector3d centre = pose.R * (0.5 * (root.lo + root.hi)) + pose.t;
  return centre + m.periodic.minimum_image(x - centre);
}

}  // namespace

void detect_moving_mesh_contacts(const Model& m, const std::vector<contact::MeshProximityGrid>& grids,
                                 const std::vector<std::uint32_t>& feature_offset, double margin, double h,
                                 int threads, GeneralDetectionBuffers& buf) {
  const RigidBodies& b = m.bodies;
  const double t = m.time;
  const int n = b.spheres(), c0 = b.group_begin(ShapeKind::Capsule), nc = b.capsules();
  buf.per_thread.resize(threads);
  buf.mesh_scratch.resize(threads);
  buf.capsule_mesh_scratch.resize(threads);
  // The contact of mesh k's feature f with body j (a bead, or a capsule), from cp in the mesh's frame with the lever
  // arm cp.pb from the body's centre x: into the world, the surface's velocity or the carrying capsule attached.
  auto candidate = [&](int k, const MeshPose& pose, int f, BodyKind kind, int j, const Eigen::Vector3d& x,
                       contact::ContactPoint cp, std::uint32_t sub) {
    GeneralCandidate g;
    g.b = j, g.kind_b = kind;
    cp.n = pose.R * cp.n;
    cp.pb = kind == BodyKind::Sphere ? Eigen::Vector3d(-b.radius[j] * cp.n) : Eigen::Vector3d(pose.R * cp.pb);
    if (const int carrier = m.mesh_carrier(k); carrier >= 0) {
      // The capsule's contact: its lever arm to the contact point; its own velocity is the surface's.
      g.a = carrier, g.kind_a = BodyKind::Capsule;
      cp.pa = x + cp.pb - b.x[carrier];
    } else {
      g.a = -1, g.kind_a = BodyKind::Fixed;
      g.wall_velocity = m.mesh_motion[k].velocity_at(x + cp.pb, t);
      g.wall_spin = m.mesh_motion[k].angular_velocity * m.mesh_motion[k].axis;
      g.wall_speed = cp.n.dot(g.wall_velocity);
    }
    g.point = cp;
    const ContactLaw& law = m.materials.law(m.material_of_mesh(k), b.material[j]);
    g.mu = law.mu, g.e = law.e, g.rolling = law.rolling;
    g.key = contact::mesh_point_key(feature_offset[k] + static_cast<std::uint32_t>(f), sub,
                                    kind == BodyKind::Sphere ? contact::KeyBody::Sphere : contact::KeyBody::Capsule,
                                    b.id[j]);
    g.mesh = k, g.feature = f;
    return g;
  };
  // Per mesh: the beads in contiguous ranges per thread, concatenated in range order, then the capsules (few):
  // the candidates come in mesh, then bead, then capsule order for any thread count.
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    const int th = omp_get_thread_num();
    const int lo = static_cast<int>(static_cast<long>(n) * th / threads);
    const int hi = static_cast<int>(static_cast<long>(n) * (th + 1) / threads);
    std::vector<GeneralCandidate>& mine = buf.per_thread[th];
    for (int k = 0; k < static_cast<int>(m.meshes.size()); ++k) {
      if (m.mesh_fixed(k)) continue;
      const contact::TriangleMesh& mesh = *m.meshes[k];
      const MeshPose pose = mesh_pose(m, k, t);
      const double reach = margin + mesh_surface_travel(m, k, h);
      mine.clear();
      for (int j = lo; j < hi; ++j) {
        const Eigen::Vector3d x = bead_near_mesh(m, pose, k, j);
        const Eigen::Vector3d X = pose.to_mesh(x);
        if (!grids[k].may_be_near(X)) continue;
        contact::sphere_mesh_features(mesh, X, b.radius[j], reach, buf.mesh_scratch[th], [&](int f) {
          contact::ContactPoint cp;
          if (contact::sphere_mesh_feature_point(mesh, f, X, b.radius[j], cp))
            mine.push_back(candidate(k, pose, f, BodyKind::Sphere, j, x, cp, 0));
        });
      }
#pragma omp barrier
#pragma omp single
      {
        for (int q = 0; q < threads; ++q) buf.all.insert(buf.all.end(), buf.per_thread[q].begin(), buf.per_thread[q].end());
        // Capsules, each as its two ends and its interior against the mesh in the mesh's frame (CapsuleMeshContact.hpp);
        // a carried mesh does not touch its own capsule.
        for (int i = c0; i < c0 + nc; ++i) {
          if (i == m.mesh_carrier(k)) continue;
          Eigen::Vector3d x = b.x[i];
          if (m.periodic.any()) {
            const contact::BvhNode& root = mesh.bvh[0];
            const Eigen::Vector3d centre = pose.R * (0.5 * (root.lo + root.hi)) + pose.t;
            x = centre + m.periodic.minimum_image(x - centre);
          }
          const contact::CapsuleShape local{pose.to_mesh(x), pose.R.transpose() * b.axis(i), b.half_length[i], b.radius[i]};
          contact::capsule_mesh_points(mesh, local, reach, buf.mesh_scratch[th], buf.capsule_mesh_scratch[th],
                                       [&](contact::ContactPoint cp, int sub, int f) {
                                         if (cp.gap > reach) return;
                                         cp.feature = sub;
                                         buf.all.push_back(candidate(k, pose, f, BodyKind::Capsule, i, x, cp,
                                                                     static_cast<std::uint32_t>(sub)));
                                       });
        }
      }
    }
  }
}

double moving_mesh_drift(const GeneralCandidate& g, const Model& m, double h, double un_bead) {
  // A carried mesh's motion is its capsule's, which the step solves for: not anticipated.
  if (m.mesh_carrier(g.mesh) >= 0) return 0.0;
  const contact::MeshMotion& motion = m.mesh_motion[g.mesh];
  const double t = m.time;
  const Eigen::Vector3d x_end = bead_near_mesh(m, mesh_pose(m, g.mesh, t), g.mesh, g.b) + h * m.bodies.v[g.b];
  contact::ContactPoint end;
  if (!contact::sphere_mesh_feature_point(*m.meshes[g.mesh], g.feature, motion.to_mesh(x_end, t + h),
                                          m.bodies.radius[g.b], end))
    return 0.0;
  return std::min(0.0, end.gap - g.point.gap - h * (un_bead - g.wall_speed));
}

}  // namespace talus::granular
