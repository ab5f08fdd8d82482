// Model::validate(): every size, reference and value an integrator relies on, checked once with a message
// that names the system or interaction (index and name) and the field, so a bad scene fails at load time.
#include "engine/Model.hpp"

#include <cmath>
#include <numbers>
#include <sstream>
#include <stdexcept>
#include <string>
#include <variant>

namespace talus {

namespace {

std::string label(const char* kind, size_t i, const std::string& name) {
  std::ostringstream os;
  os << kind << "[" << i << "]";
  if (!name.empty()) os << " '" << name << "'";
  return os.str();
}

[[noreturn]] void fail(const std::string& who, const std::string& what) {
  throw std::invalid_argument("model: " + who + ": " + what);
}

std::string dims(Index r, Index c) { return std::to_string(r) + "x" + std::to_string(c); }

bool finite(const SparseMatrix& A) {
  for (Index k = 0; k < A.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(A, k); it; ++it)
      if (!std::isfinite(it.value())) return false;
  return true;
}

void check_vector(const std::string& who, const char* field, const Vector& x, Index n, bool allow_empty) {
  if (allow_empty && x.size() == 0) return;
  if (x.size() != n)
    fail(who, std::string(field) + " has " + std::to_string(x.size()) + " entries, expected " + std::to_string(n));
  if (!x.allFinite()) fail(who, std::string(field) + " contains NaN or Inf");
}

void check_lti(size_t i, const LagrangianLti& s) {
  const std::string who = label("lti", i, s.name);
  const Index n = s.M.rows();
  if (n == 0 || s.M.cols() != n) fail(who, "M is " + dims(s.M.rows(), s.M.cols()) + ", expected a non-empty square matrix");
  if (!finite(s.M)) fail(who, "M contains NaN or Inf");
  for (Index k = 0; k < n; ++k)
    if (!(s.M.coeff(k, k) > 0.0)) fail(who, "M has a non-positive diagonal entry at " + std::to_string(k));
  if (s.K.size() && (s.K.rows() != n || s.K.cols() != n)) fail(who, "K is " + dims(s.K.rows(), s.K.cols()) + ", expected " + dims(n, n));
  if (s.C.size() && (s.C.rows() != n || s.C.cols() != n)) fail(who, "C is " + dims(s.C.rows(), s.C.cols()) + ", expected " + dims(n, n));
  if (!finite(s.K)) fail(who, "K contains NaN or Inf");
  if (!finite(s.C)) fail(who, "C contains NaN or Inf");
  check_vector(who, "f_const", s.f_const, n, true);
  check_vector(who, "q", s.q, n, false);
  check_vector(who, "v", s.v, n, false);
}

void check_nonlinear(size_t i, const LagrangianNonlinear& s) {
  const std::string who = label("nonlinear", i, s.name);
  if (s.n <= 0) fail(who, "n must be > 0");
  if (!s.mass) fail(who, "the mass callback is empty");
  if (!s.force) fail(who, "the force callback is empty");
  check_vector(who, "q", s.q, s.n, false);
  check_vector(who, "v", s.v, s.n, false);
}

void check_bodies(const RigidBodies& b) {
  const std::size_t n = b.x.size();
  auto cols = [&](const char* field, std::size_t c) {
    if (c != n)
      fail("bodies", std::string(field) + " has " + std::to_string(c) + " entries, expected " +
                         std::to_string(n) + " (one per body)");
  };
  cols("orientation", b.q.size());
  cols("velocity", b.v.size());
  cols("angular_velocity", b.w.size());
  cols("mass", b.mass.size());
  cols("inv_mass", b.inv_mass.size());
  cols("inertia", b.inertia.size());
  cols("radius", b.radius.size());
  cols("material", b.material.size());
  // Loads are kept for the non-sphere bodies only (RigidBodies.hpp).
  const std::size_t loaded = n - static_cast<std::size_t>(b.nonsphere_begin());
  if (b.force.size() != loaded || b.torque.size() != loaded)
    fail("bodies", "force/torque have " + std::to_string(b.force.size()) + "/" + std::to_string(b.torque.size()) +
                       " entries, expected " + std::to_string(loaded) + " (one per body that is not a sphere)");
  if (b.group_start[kShapeKinds] != static_cast<int>(n))
    fail("bodies", "the shape groups end at " + std::to_string(b.group_start[kShapeKinds]) + ", expected " +
                       std::to_string(n) + " (one per body)");
  for (std::size_t k = 0; k < n; ++k) {
    const std::string who = "body[" + std::to_string(k) + "]";
    if (!b.x[k].allFinite()) fail(who, "position contains NaN or Inf");
    if (!b.v[k].allFinite()) fail(who, "velocity contains NaN or Inf");
    if (!b.w[k].allFinite()) fail(who, "angular_velocity contains NaN or Inf");
    if (static_cast<int>(k) >= b.nonsphere_begin() &&
        (!b.force_of(static_cast<int>(k)).allFinite() || !b.torque_of(static_cast<int>(k)).allFinite()))
      fail(who, "force or torque contains NaN or Inf");
    if (!(std::abs(b.q[k].norm() - 1.0) <= 1e-6)) fail(who, "orientation is not a unit quaternion");
    if (!(b.mass[k] >= 0.0) || !std::isfinite(b.mass[k])) fail(who, "mass must be >= 0 and finite");
    if (b.inv_mass[k] != 0.0) {
      if (!(std::abs(b.inv_mass[k] * b.mass[k] - 1.0) <= 1e-12)) fail(who, "inv_mass is not 1 / mass");
      if (!(b.inertia[k].minCoeff() > 0.0) || !b.inertia[k].allFinite())
        fail(who, "inertia must be > 0 and finite for a movable body");
    }
    if (!(b.radius[k] >= 0.0)) fail(who, "radius must be >= 0");
  }
}

void check_interaction(size_t i, const Interaction& in, const Model& m) {
  const std::string who = label("interaction", i, in.name);
  if (in.systems.empty() || in.systems.size() > 2)
    fail(who, "systems has " + std::to_string(in.systems.size()) + " entries, expected 1 or 2");
  Index coords = 0;
  bool all_rigid = true;
  for (size_t k = 0; k < in.systems.size(); ++k) {
    const SystemRef& s = in.systems[k];
    const std::string ref = "systems[" + std::to_string(k) + "]";
    Index count = 0;
    switch (s.family) {
      case SystemFamily::Lti: count = static_cast<Index>(m.lti.size()); break;
      case SystemFamily::Nonlinear: count = static_cast<Index>(m.nonlinear.size()); break;
      // Store indices: a joint of the large path may hold an obstacle body (after the dynamic bodies).
      case SystemFamily::Rigid: count = m.bodies.stored(); break;
    }
    if (s.index < 0 || s.index >= count)
      fail(who, ref + " refers to system " + std::to_string(s.index) + " of a family that has " + std::to_string(count));
    all_rigid = all_rigid && s.family == SystemFamily::Rigid;
    coords += s.family == SystemFamily::Lti ? m.lti[s.index].dofs()
              : s.family == SystemFamily::Nonlinear ? m.nonlinear[s.index].dofs()
                                                    : 7;
  }
  if (in.systems.size() == 2 && in.systems[0].family == in.systems[1].family &&
      in.systems[0].index == in.systems[1].index)
    fail(who, "both systems are the same");

  const int rows = law_rows(in.law);
  if (const auto* l = std::get_if<NewtonImpactLaw>(&in.law)) {
    if (!(l->e >= 0.0 && l->e <= 1.0)) fail(who, "law: restitution e must be in [0, 1]");
  } else if (const auto* l = std::get_if<NewtonImpactFrictionLaw>(&in.law)) {
    if (!(l->e >= 0.0 && l->e <= 1.0)) fail(who, "law: restitution e must be in [0, 1]");
    if (!(l->mu >= 0.0) || !std::isfinite(l->mu)) fail(who, "law: friction coefficient mu must be >= 0");
    if (l->dim != 2 && l->dim != 3) fail(who, "law: friction dim must be 2 or 3");
  } else if (std::get<EqualityLaw>(in.law).rows < 1) {
    fail(who, "law: equality rows must be >= 1");
  }

  if (const auto* r = std::get_if<LinearRelation>(&in.relation)) {
    if (r->C.rows() != rows || r->C.cols() != coords)
      fail(who, "relation: C is " + dims(r->C.rows(), r->C.cols()) + ", expected " + dims(rows, coords) +
                    " (law rows x coordinates of the systems)");
    check_vector(who, "relation: b", r->b, rows, false);
    if (!r->C.allFinite()) fail(who, "relation: C contains NaN or Inf");
  } else if (const auto* r = std::get_if<NonlinearRelation>(&in.relation)) {
    if (r->rows != rows)
      fail(who, "relation: rows is " + std::to_string(r->rows) + " but the law has " + std::to_string(rows));
    if (!r->gap || !r->jacobian) fail(who, "relation: the gap or jacobian callback is empty");
  } else if (const auto* j = std::get_if<JointRelation>(&in.relation)) {
    if (!all_rigid) fail(who, "relation: a joint needs rigid-body systems");
    if (!std::holds_alternative<EqualityLaw>(in.law)) fail(who, "relation: a joint needs an equality law");
    if (rows != joint_rows(j->kind))
      fail(who, std::string("relation: a ") + to_string(j->kind) + " joint has " + std::to_string(joint_rows(j->kind)) +
                    " rows but the law has " + std::to_string(rows));
    const auto unit = [](const Eigen::Vector3d& u) { return std::abs(u.norm() - 1.0) <= 1e-9; };
    if (!unit(j->axis_a) || !unit(j->axis_b) || !unit(j->normal_b1) || !unit(j->normal_b2) ||
        !(std::abs(j->axis_b.dot(j->normal_b1)) <= 1e-9) || !(std::abs(j->axis_b.dot(j->normal_b2)) <= 1e-9))
      fail(who, "relation: the joint's axes are not unit vectors or its normals are not normal to axis_b");
    if (!j->anchor_a.allFinite() || !j->anchor_b.allFinite() || !std::isfinite(j->drive_rate) ||
        !std::isfinite(j->drive_phase) || !(std::abs(j->rest.norm() - 1.0) <= 1e-9))
      fail(who, "relation: the joint's anchors, rest orientation or drive are not finite");
  } else if (const auto* beam = std::get_if<BeamSphereContactRelation>(&in.relation)) {
    if (in.systems.size() != 2 || in.systems[0].family != SystemFamily::Rigid ||
        in.systems[1].family != SystemFamily::Lti)
      fail(who, "relation: a beam-sphere contact needs a rigid body (systems[0]) and an LTI beam (systems[1])");
    if (rows > 3) fail(who, "relation: a beam-sphere contact has at most 3 rows, the law has " + std::to_string(rows));
    if (const std::string why = beam_geometry_problem(beam->beam); !why.empty()) fail(who, "relation: " + why);
    if (beam->beam.dofs() != m.lti[in.systems[1].index].dofs())
      fail(who, "relation: the beam geometry has " + std::to_string(beam->beam.dofs()) + " coordinates but system " +
                    std::to_string(in.systems[1].index) + " has " + std::to_string(m.lti[in.systems[1].index].dofs()));
    if (beam->side != 1.0 && beam->side != -1.0) fail(who, "relation: side must be +1 or -1");
  } else {
    const auto& sphere = std::get<SphereContactRelation>(in.relation);
    if (!all_rigid) fail(who, "relation: a sphere contact needs rigid-body systems");
    if (rows > 3) fail(who, "relation: a sphere contact has at most 3 rows, the law has " + std::to_string(rows));
    if (in.systems.size() == 1) {
      if (!(std::abs(sphere.plane_normal.norm() - 1.0) <= 1e-9)) fail(who, "relation: plane_normal is not a unit vector");
      if (!std::isfinite(sphere.plane_offset)) fail(who, "relation: plane_offset is not finite");
    }
  }
}

void check_materials(const Model& m) {
  const MaterialTable& t = m.materials;
  const int n = t.count();
  if (n < 1 || n > kMaxMaterials) fail("materials", "has " + std::to_string(n) + " materials, expected 1 to 256");
  if (t.laws.size() != MaterialTable::pair_index(n - 1, n - 1) + 1)
    fail("materials", "holds " + std::to_string(t.laws.size()) + " laws, expected one per pair of its " +
                          std::to_string(n) + " materials");
  for (int a = 0; a < n; ++a)
    for (int b = a; b < n; ++b) {
      const ContactLaw& l = t.law(a, b);
      const std::string who = "contact law " + t.names[a] + "/" + t.names[b];
      if (!(l.mu >= 0.0) || !std::isfinite(l.mu)) fail(who, "mu must be >= 0 and finite");
      if (!(l.e >= 0.0 && l.e <= 1.0)) fail(who, "restitution e must be in [0, 1]");
    }
  auto ids = [&](const char* what, const auto& list, std::size_t count) {
    if (!list.empty() && list.size() != count)
      fail(what, "has " + std::to_string(list.size()) + " entries, expected " + std::to_string(count) + " (or none)");
    for (std::size_t k = 0; k < list.size(); ++k)
      if (list[k] >= n) fail(what, "entry " + std::to_string(k) + " is material " + std::to_string(list[k]) + " of " + std::to_string(n));
  };
  ids("bodies.material", m.bodies.material, m.bodies.material.size());
  ids("wall_material", m.wall_material, m.walls.size());
  ids("box_material", m.box_material, m.boxes.size());
  ids("drum_material", m.drum_material, m.drums.size());
  ids("cone_material", m.cone_material, m.cones.size());
  ids("mesh_material", m.mesh_material, m.meshes.size());
}

}  // namespace

void Model::validate() const {
  check_materials(*this);
  for (size_t i = 0; i < lti.size(); ++i) check_lti(i, lti[i]);
  for (size_t i = 0; i < nonlinear.size(); ++i) check_nonlinear(i, nonlinear[i]);
  check_bodies(bodies);
  for (std::size_t k = 0; k < meshes.size(); ++k)
    if (!meshes[k]) fail("meshes", "entry " + std::to_string(k) + " is empty");
  if (!mesh_motion.empty() && mesh_motion.size() != meshes.size())
    fail("mesh_motion", "has " + std::to_string(mesh_motion.size()) + " entries, expected " +
                            std::to_string(meshes.size()) + " (or none)");
  if (!mesh_body.empty() && mesh_body.size() != meshes.size())
    fail("mesh_body", "has " + std::to_string(mesh_body.size()) + " entries, expected " + std::to_string(meshes.size()) +
                          " (or none)");
  for (std::size_t k = 0; k < mesh_body.size(); ++k)
    if (mesh_body[k] >= 0 && (mesh_body[k] >= bodies.count() || bodies.kind(mesh_body[k]) != ShapeKind::Capsule ||
                              mesh_moves(static_cast<int>(k))))
      fail("mesh_body", "entry " + std::to_string(k) + " is body " + std::to_string(mesh_body[k]) +
                            ", which is not a capsule, or the mesh also has a prescribed motion");
  for (std::size_t k = 0; k < mesh_motion.size(); ++k) {
    const contact::MeshMotion& mm = mesh_motion[k];
    if (!mm.centre.allFinite() || !mm.velocity.allFinite() || !std::isfinite(mm.angular_velocity) ||
        !(std::abs(mm.axis.norm() - 1.0) < 1e-9))
      fail("mesh_motion", "entry " + std::to_string(k) + " is not finite or its axis is not a unit vector");
  }
  if (!gravity.allFinite()) fail("gravity", "contains NaN or Inf");
  if (!std::isfinite(time)) fail("time", "is not finite");
  for (size_t i = 0; i < interactions.size(); ++i) check_interaction(i, interactions[i], *this);
  if (detection.enabled) {
    if (std::holds_alternative<EqualityLaw>(detection.law))
      fail("detection", "law is an equality (expected a Newton impact law, with or without friction)");
    for (int k : detection.spheres)
      if (k < bodies.group_begin(ShapeKind::General) || k >= bodies.count() || !(bodies.radius[k] > 0.0))
        fail("detection", "sphere " + std::to_string(k) + " is not a general body with a radius > 0");
    for (const ContactBeam& b : detection.beams) {
      if (b.lti < 0 || b.lti >= static_cast<Index>(lti.size()))
        fail("detection", "a beam refers to LTI system " + std::to_string(b.lti) + " of " + std::to_string(lti.size()));
      if (const std::string why = beam_geometry_problem(b.geometry); !why.empty()) fail("detection", why);
      if (b.geometry.dofs() != lti[b.lti].dofs())
        fail("detection", "the beam geometry of LTI system " + std::to_string(b.lti) + " has " +
                              std::to_string(b.geometry.dofs()) + " coordinates, the system " +
                              std::to_string(lti[b.lti].dofs()));
    }
    for (const ContactPlane& p : detection.planes)
      if (!(std::abs(p.normal.norm() - 1.0) <= 1e-9) || !std::isfinite(p.offset))
        fail("detection", "a plane's normal is not a unit vector or its offset is not finite");
  }
}

int add_general_sphere(RigidBodies& bodies, const Eigen::Vector3d& x, double r, double density) {
  if (!(r > 0.0) || !(density > 0.0)) throw std::invalid_argument("sphere: radius and density must be > 0");
  const double m = density * 4.0 / 3.0 * std::numbers::pi * r * r * r;
  const double I = 0.4 * m * r * r;
  return bodies.add_general(x, Eigen::Quaterniond::Identity(), m, Eigen::Vector3d::Constant(I), r);
}

}  // namespace talus
