#include "engine/granular/GeneralDetection.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>

#include "contact/BroadPhase.hpp"
#include "contact/CapsuleContact.hpp"
#include "engine/granular/MovingMeshContacts.hpp"
#include "solvers/core/FrictionContactProblem.hpp"

namespace talus::granular {

namespace {

double max_bead_radius(const RigidBodies& b) {
  double r = 0.0;
  for (int i = 0; i < b.spheres(); ++i) r = std::max(r, b.radius[i]);
  return r;
}

// The capsule where its start-of-step velocities carry it in one step (x + h v, exp(h ω) q).
contact::CapsuleShape capsule_shape(const RigidBodies& c, int i) {
  return {c.x[i], c.axis(i), c.half_length[i], c.radius[i]};
}

// Capsule i (body index) moved rigidly over h with its current velocities.
contact::CapsuleShape advanced(const RigidBodies& c, int i, double h) {
  contact::CapsuleShape s = capsule_shape(c, i);
  s.centre += h * c.v[i];
  const double angle = h * c.w[i].norm();
  if (angle > 0.0) s.axis = Eigen::AngleAxisd(angle, c.w[i].normalized()) * s.axis;
  return s;
}

// The part of the gap's change over the step that the velocity-level law cannot see: the end-of-step gap of
// the bodies moved rigidly with their start-of-step velocities, minus its first-order prediction gap + h u_N.
// A capsule turning at ω perpendicular to its axis carries a neighbour at distance d from the axis into itself
// by ~½ d (ω h)² per step (measured before this correction: 8e-6 m per step at 35 rad/s, a tenth of a radius
// within 50 steps of a settling stack); anticipating it keeps the end-of-step gap right up to O(h² Δω).
// Only the closing part is kept (a gap opening by curvature is not relied on).
double second_order_drift(const GeneralCandidate& g, const Model& m, const std::vector<contact::Wall>& walls,
                          double h, double un_kinematic) {
  const RigidBodies& caps = m.bodies;
  contact::ContactPoint pts[5];
  double gap = g.point.gap;
  auto pick = [&](int n) {
    for (int k = 0; k < n; ++k)
      if (pts[k].feature == g.point.feature) return pts[k].gap;
    double best = INFINITY;
    for (int k = 0; k < n; ++k) best = std::min(best, pts[k].gap);
    return n > 0 ? best : g.point.gap;
  };
  if (g.mesh >= 0) {
    // A mesh's contact (first: a carried mesh's contact is kind Capsule, though not with the capsule's own shape).
    // A capsule against a mesh is not anticipated (a turning capsule may close on it by ½ d (ω h)² a step).
    return g.kind_b == BodyKind::Capsule ? 0.0 : moving_mesh_drift(g, m, h, un_kinematic);
  } else if (g.kind_a == BodyKind::Capsule && g.kind_b == BodyKind::Sphere) {
    const contact::CapsuleShape a = advanced(caps, g.a, h);
    const Eigen::Vector3d xb0 = m.periodic.any() ? Eigen::Vector3d(caps.x[g.a] + m.periodic.minimum_image(caps.x[g.b] - caps.x[g.a]))
                                                 : caps.x[g.b];
    if (contact::capsule_sphere_point(a, xb0 + h * caps.v[g.b], caps.radius[g.b], pts[0])) gap = pts[0].gap;
  } else if (g.kind_a == BodyKind::Capsule && g.kind_b == BodyKind::Capsule) {
    contact::CapsuleShape b = advanced(caps, g.b, h);
    if (m.periodic.any()) b.centre = caps.x[g.a] + m.periodic.minimum_image(b.centre - caps.x[g.a]);
    gap = pick(contact::capsule_capsule_points(advanced(caps, g.a, h), b, pts));
  } else if (g.kind_a == BodyKind::Fixed && g.kind_b == BodyKind::Sphere) {
    // A bead in a drum: inside a concave surface a straight path leaves it, so the gap closes by ~(v_T h)²/2R.
    const contact::Drum& drum = m.drums[contact::obstacle_index(g.key)];
    if (contact::sphere_drum_point(drum, caps.x[g.b] + h * caps.v[g.b], caps.radius[g.b], pts[0])) gap = pts[0].gap;
  } else if (contact::obstacle_kind(g.key) == contact::KeyObstacle::Drum) {
    // A capsule's end in a drum: as a bead's, the end carried along by the capsule's rigid motion.
    const contact::Drum& drum = m.drums[contact::obstacle_index(g.key)];
    const contact::CapsuleShape b = advanced(caps, g.b, h);
    if (contact::sphere_drum_point(drum, b.end(g.point.feature), b.radius, pts[0])) gap = pts[0].gap;
  } else if (contact::obstacle_kind(g.key) == contact::KeyObstacle::Plane) {
    gap = pick(contact::capsule_wall_points(walls[contact::obstacle_index(g.key)], advanced(caps, g.b, h), pts));
  } else if (contact::obstacle_kind(g.key) == contact::KeyObstacle::Cone) {
    const contact::Cone& cone = m.cones[contact::obstacle_index(g.key)];
    contact::CapsuleShape b = advanced(caps, g.b, h);
    if (m.periodic.any()) b.centre = cone.base + m.periodic.minimum_image(b.centre - cone.base);
    gap = pick(contact::capsule_cone_points(cone, b, pts));
  } else {
    const contact::Box& box = m.boxes[contact::obstacle_index(g.key)];
    contact::CapsuleShape b = advanced(caps, g.b, h);
    if (m.periodic.any()) b.centre = box.centre + m.periodic.minimum_image(b.centre - box.centre);
    gap = pick(contact::capsule_box_points(box, b, pts));
  }
  return std::min(0.0, gap - g.point.gap - h * un_kinematic);
}

// Beads and capsules inside drums, appended in body order (serial: one cheap test per body and drum). A drum's
// axis must be the periodic one, if any: the radial distance does not depend on the position along it. A capsule
// touches a drum with its ends only: inside a cylinder the distance from the axis is convex along a segment, so
// its largest value, the nearest approach to the wall, is at an end (features 0 and 1).
void detect_drum_contacts(const Model& m, double margin, std::vector<GeneralCandidate>& out) {
  const RigidBodies& bodies = m.bodies;
  contact::ContactPoint cp;
  for (int d = 0; d < static_cast<int>(m.drums.size()); ++d) {
    const contact::Drum& drum = m.drums[d];
    auto add = [&](int j, BodyKind kind, int feature, const Eigen::Vector3d& lever) {
      GeneralCandidate g;
      g.a = -1, g.b = j, g.kind_a = BodyKind::Fixed, g.kind_b = kind;
      const ContactLaw& law = m.materials.law(m.material_of_drum(d), bodies.material[j]);
      g.point = cp, g.mu = law.mu, g.e = law.e, g.rolling = kind == BodyKind::Sphere ? law.rolling : 0.0;
      g.point.pb += lever, g.point.feature = feature;
      g.key = contact::obstacle_key(contact::KeyObstacle::Drum, static_cast<std::uint32_t>(d), feature,
                                    kind == BodyKind::Sphere ? contact::KeyBody::Sphere : contact::KeyBody::Capsule,
                                    bodies.id[j]);
      g.wall_velocity = drum.velocity_at(bodies.x[j] + g.point.pb);
      g.wall_spin = drum.angular_velocity * drum.axis;
      out.push_back(g);
    };
    for (int j = 0; j < bodies.spheres(); ++j)
      if (contact::sphere_drum_point(drum, bodies.x[j], bodies.radius[j], cp) && cp.gap <= margin)
        add(j, BodyKind::Sphere, 0, Eigen::Vector3d::Zero());
    for (int c = 0; c < bodies.capsules(); ++c) {
      const int i = bodies.capsule(c);
      const contact::CapsuleShape shape = capsule_shape(bodies, i);
      for (int end = 0; end < 2; ++end)
        if (contact::sphere_drum_point(drum, shape.end(end), shape.radius, cp) && cp.gap <= margin)
          add(i, BodyKind::Capsule, end, shape.end(end) - shape.centre);
    }
  }
}

}  // namespace

double max_capsule_point_speed(const RigidBodies& c) {
  double s = 0.0;
  for (int i = c.group_begin(ShapeKind::Capsule); i < c.group_end(ShapeKind::Capsule); ++i)
    s = std::max(s, c.v[i].norm() + c.w[i].norm() * c.bounding_radius(i));
  return s;
}

void detect_general_contacts(const Model& m, const contact::CellGrid& grid,
                             const std::vector<contact::Wall>& walls_now, const std::vector<double>& wall_speed,
                             const std::vector<std::uint32_t>& mesh_feature_offset, double margin, double h,
                             int threads, GeneralDetectionBuffers& buf) {
  // Capsule candidates name bodies by their index in the one store (the capsule group follows the spheres).
  const RigidBodies& caps = m.bodies;
  const RigidBodies& beads = m.bodies;
  const int c0 = caps.group_begin(ShapeKind::Capsule), nc = caps.capsules();
  buf.per_thread.resize(threads);
  buf.mesh_scratch.resize(threads);
  buf.capsule_mesh_scratch.resize(threads);
  buf.all.clear();
  if (nc == 0) {
    detect_drum_contacts(m, margin, buf.all);
    return;
  }
  const bool periodic = m.periodic.any();
  const double rmax = max_bead_radius(beads);
  const int nw = static_cast<int>(walls_now.size());
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    const int t = omp_get_thread_num();
    std::vector<GeneralCandidate>& out = buf.per_thread[t];
    out.clear();
    auto emit = [&](BodyKind ka, int a, BodyKind kb, int b, const contact::ContactPoint& cp, contact::ContactKey key,
                    double speed, const ContactLaw& law) {
      GeneralCandidate g;
      g.a = a, g.b = b, g.kind_a = ka, g.kind_b = kb;
      g.point = cp, g.key = key, g.wall_speed = speed, g.mu = law.mu, g.e = law.e, g.rolling = law.rolling;
      out.push_back(g);
    };
    const int lo = static_cast<int>(static_cast<long>(nc) * t / threads);
    const int hi = static_cast<int>(static_cast<long>(nc) * (t + 1) / threads);
    contact::ContactPoint pts[5];
    for (int i = c0 + lo; i < c0 + hi; ++i) {
      const contact::CapsuleShape ci = capsule_shape(caps, i);
      // Beads near the capsule (their image nearest to it).
      contact::for_bodies_near(grid, ci.centre, ci.half_length + ci.radius + rmax + margin, [&](std::int32_t j) {
        const Eigen::Vector3d xj =
            periodic ? Eigen::Vector3d(ci.centre + m.periodic.minimum_image(beads.x[j] - ci.centre)) : beads.x[j];
        if (contact::capsule_sphere_point(ci, xj, beads.radius[j], pts[0]) && pts[0].gap <= margin)
          emit(BodyKind::Capsule, i, BodyKind::Sphere, j, pts[0],
               contact::pair_key(contact::KeyBody::Capsule, caps.id[i], contact::KeyBody::Sphere, beads.id[j]), 0.0,
               m.materials.law(caps.material[i], beads.material[j]));
      });
      // Capsules with a larger id (each pair once, a = the smaller id).
      for (int j = c0; j < c0 + nc; ++j) {
        if (caps.id[j] <= caps.id[i]) continue;
        contact::CapsuleShape cj = capsule_shape(caps, j);
        if (periodic) cj.centre = ci.centre + m.periodic.minimum_image(cj.centre - ci.centre);
        const double reach = ci.half_length + ci.radius + cj.half_length + cj.radius + margin;
        if ((cj.centre - ci.centre).squaredNorm() > reach * reach) continue;
        const int k = contact::capsule_capsule_points(ci, cj, pts);
        for (int p = 0; p < k; ++p)
          if (pts[p].gap <= margin)
            emit(BodyKind::Capsule, i, BodyKind::Capsule, j, pts[p],
                 contact::pair_key(contact::KeyBody::Capsule, caps.id[i], contact::KeyBody::Capsule, caps.id[j],
                                   pts[p].feature),
                 0.0,
                 m.materials.law(caps.material[i], caps.material[j]));
      }
      for (int w = 0; w < nw; ++w) {
        if (!m.walls[w].present(m.time)) continue;  // an opened gate
        const int k = contact::capsule_wall_points(walls_now[w], ci, pts);
        for (int p = 0; p < k; ++p)
          if (pts[p].gap <= margin + h * std::abs(wall_speed[w]))
            emit(BodyKind::Fixed, -1, BodyKind::Capsule, i, pts[p],
                 contact::obstacle_key(contact::KeyObstacle::Plane, static_cast<std::uint32_t>(w), pts[p].feature,
                                       contact::KeyBody::Capsule, caps.id[i]),
                 wall_speed[w], m.materials.law(m.material_of_wall(w), caps.material[i]));
      }
      // Fixed meshes (moving ones meet beads only): the capsule's image nearest to the mesh's box.
      for (int k = 0; k < static_cast<int>(m.meshes.size()); ++k) {
        if (!m.mesh_fixed(k)) continue;
        const contact::TriangleMesh& mesh = *m.meshes[k];
        contact::CapsuleShape c = ci;
        if (periodic) {
          const Eigen::Vector3d mid = 0.5 * (mesh.bvh[0].lo + mesh.bvh[0].hi);
          c.centre = mid + m.periodic.minimum_image(ci.centre - mid);
        }
        const ContactLaw& law = m.materials.law(m.material_of_mesh(k), caps.material[i]);
        contact::capsule_mesh_points(mesh, c, margin, buf.mesh_scratch[t], buf.capsule_mesh_scratch[t],
                                     [&](contact::ContactPoint cp, int local, int f) {
                                       if (cp.gap > margin) return;
                                       cp.feature = local;
                                       const contact::ContactKey key = contact::mesh_point_key(
                                           mesh_feature_offset[k] + static_cast<std::uint32_t>(f), local,
                                           contact::KeyBody::Capsule, caps.id[i]);
                                       emit(BodyKind::Fixed, -1, BodyKind::Capsule, i, cp, key, 0.0, law);
                                       out.back().mesh = k, out.back().feature = f;
                                     });
      }
      for (int kc = 0; kc < static_cast<int>(m.cones.size()); ++kc) {
        const contact::Cone& cone = m.cones[kc];
        contact::CapsuleShape c = ci;
        if (periodic) c.centre = cone.base + m.periodic.minimum_image(ci.centre - cone.base);
        const int k = contact::capsule_cone_points(cone, c, pts);
        for (int p = 0; p < k; ++p)
          if (pts[p].gap <= margin)
            emit(BodyKind::Fixed, -1, BodyKind::Capsule, i, pts[p],
                 contact::obstacle_key(contact::KeyObstacle::Cone, static_cast<std::uint32_t>(kc), pts[p].feature,
                                       contact::KeyBody::Capsule, caps.id[i]),
                 0.0, m.materials.law(m.material_of_cone(kc), caps.material[i]));
      }
      for (int bx = 0; bx < static_cast<int>(m.boxes.size()); ++bx) {
        const contact::Box& box = m.boxes[bx];
        contact::CapsuleShape c = ci;
        if (periodic) c.centre = box.centre + m.periodic.minimum_image(ci.centre - box.centre);
        const double reach = box.bounding_radius() + c.half_length + c.radius + margin;
        if ((c.centre - box.centre).squaredNorm() > reach * reach) continue;
        const int k = contact::capsule_box_points(box, c, pts);
        for (int p = 0; p < k; ++p)
          if (pts[p].gap <= margin)
            emit(BodyKind::Fixed, -1, BodyKind::Capsule, i, pts[p],
                 contact::obstacle_key(contact::KeyObstacle::Box, static_cast<std::uint32_t>(bx), pts[p].feature,
                                       contact::KeyBody::Capsule, caps.id[i]),
                 0.0, m.materials.law(m.material_of_box(bx), caps.material[i]));
      }
    }
  }
  for (int t = 0; t < threads; ++t) buf.all.insert(buf.all.end(), buf.per_thread[t].begin(), buf.per_thread[t].end());
  detect_drum_contacts(m, margin, buf.all);
}

double build_general_contacts(GeneralDetectionBuffers& buf, const Model& m,
                              const std::vector<contact::Wall>& walls_now, double h, GeneralContactSet& set,
                              const contact::ContactCache& cache, const contact::ContactCache& rolling_cache,
                              bool generalized_alpha) {
  const int n = static_cast<int>(buf.all.size());
  if (n == 0 && set.contacts.empty()) return 0.0;  // a bead-only step: nothing to colour
  // Colour on body indices of the one store (spheres first, then capsules).
  auto body = [&](BodyKind k, int i) { return k == BodyKind::Fixed ? -1 : i; };
  buf.colour_a.resize(n);
  buf.colour_b.resize(n);
  for (int k = 0; k < n; ++k) {
    const GeneralCandidate& g = buf.all[k];
    buf.colour_a[k] = body(g.kind_a, g.a), buf.colour_b[k] = body(g.kind_b, g.b);
  }
  colour_contacts_on_bodies(buf.colour_a.data(), buf.colour_b.data(), n, m.bodies.group_end(ShapeKind::Capsule), set.colours);
  set.contacts.resize(n);
  set.keys.resize(n);
  set.block_sums.assign((n + 2047) / 2048, 0.0);
  if (generalized_alpha) set.position_extra.resize(n);
  // The smooth acceleration of a body: gravity when it is free, none when fixed.
  auto gravity = [&](BodyKind kind, int i) -> Eigen::Vector3d {
    const double inv_mass = kind == BodyKind::Fixed ? 0.0 : m.bodies.inv_mass[i];
    return inv_mass > 0.0 ? m.gravity : Eigen::Vector3d::Zero();
  };
  const BodyArrays view = body_arrays(m.bodies);
  double max_pen = 0.0;
  for (int k = 0; k < n; ++k) {
    const GeneralCandidate& g = buf.all[k];
    const double e = g.e;
    const int s = set.colours.slot[k];
    GeneralContact& c = set.contacts[s];
    c.a = g.a, c.b = g.b, c.kind_a = g.kind_a, c.kind_b = g.kind_b;
    prepare_general_contact(c, g.point.n, g.point.pa, g.point.pb, g.mu, m.bodies);
    set.keys[s] = g.key;
    max_pen = std::max(max_pen, -g.point.gap);
    if (generalized_alpha) {
      // The laws of GranularStepper.hpp's generalized-α: Newton's law when the smooth prediction
      // q* = q_k + h v_k + ½h² g closes the contact, else the open law; the position target is g(q_{k+1}) >= 0.
      c.extra = -g.wall_speed;
      const double un_k = general_contact_velocity(c, view)[0];
      const double g_star = g.point.gap + h * un_k + 0.5 * h * h * c.n.dot(gravity(c.kind_b, c.b) - gravity(c.kind_a, c.a));
      if (g_star > 0.0)
        c.extra = g.point.gap / h - g.wall_speed;
      else if (e > 0.0)
        c.extra += e * std::min(0.0, un_k);
      set.position_extra[s] = g.point.gap / h - g.wall_speed;
    } else if (const double un_k = e > 0.0 ? (c.extra = -g.wall_speed, general_contact_velocity(c, view)[0]) : 0.0;
               g.point.gap > (e > 0.0 ? contact::kClosedGapFraction * (g.point.pa.norm() + g.point.pb.norm()) : 0.0) &&
               !(e > 0.0 && g.point.gap + h * un_k <= 0.0)) {
      c.extra = g.point.gap / h - g.wall_speed;
    } else {
      // Closed, or closed within the step with e > 0: Moreau–Jean's impact law, as for bead contacts
      // (GranularStepper.cpp).
      c.extra = -g.wall_speed;
      if (e > 0.0) c.extra += e * std::min(0.0, un_k);
    }
    // u_N,k without the wall's motion (the drift is that of the bodies' own motion).
    const double un = general_contact_velocity(c, view)[0] - c.extra;
    const double drift = second_order_drift(g, m, walls_now, h, un) / h;
    c.extra += drift;
    // A moving surface's tangential velocity: the contact's relative velocity is the bead's minus the surface's.
    c.extra_t = Eigen::Vector2d(-c.t1.dot(g.wall_velocity), -c.t2.dot(g.wall_velocity));
    if (generalized_alpha) set.position_extra[s] += drift;
    const Eigen::Vector3d R = cache.find(g.key);
    Eigen::Vector3d r(R.dot(c.n), R.dot(c.t1), R.dot(c.t2));
    solvers::project_on_cone(r.data(), 3, g.mu);
    c.r = r;
    // Rolling resistance between a bead and an obstacle (a drum, a moving mesh): R* is the bead's radius.
    c.roll = RollingContact{};
    c.roll_surface.setZero();
    if (g.rolling > 0.0 && c.kind_b == BodyKind::Sphere && c.kind_a == BodyKind::Fixed) {
      c.roll.radius = m.bodies.radius[c.b];
      c.roll.mu = g.rolling;
      c.roll.w = c.roll.radius * c.roll.radius * m.bodies.inv_inertia[c.b];
      const Eigen::Vector3d P = rolling_cache.find(g.key);
      c.roll.rho = project_on_disk(Eigen::Vector2d(P.dot(c.t1), P.dot(c.t2)), c.roll.mu * r[0]);
      c.roll_surface = c.roll.radius * Eigen::Vector2d(c.t1.dot(g.wall_spin), c.t2.dot(g.wall_spin));
    }
  }
  return max_pen;
}

}  // namespace talus::granular
