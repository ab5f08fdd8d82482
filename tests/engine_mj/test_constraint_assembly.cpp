// The shared kinematics of the integrators: DofLayout gather/scatter and the coordinate update, and the
// constraint Jacobian of ConstraintAssembly checked against independent computations — finite differences of
// the gap along q̇ = T(q) v, and the contact points' velocities computed directly from the rigid-body motion.
#include <catch2/catch.hpp>
#include <cmath>

#include "contact/SphereContact.hpp"
#include "engine/ConstraintAssembly.hpp"
#include "MjTestModels.hpp"

using namespace talus;

namespace {

Model three_families() {
  Model model = mjtest::oscillator_on_stop(1.0, 4.0, 0.3, -0.2, 0.0, 0.5);
  LagrangianNonlinear s;
  s.name = "nl";
  s.n = 2;
  s.mass = [](const Vector&, Matrix& M) { M.setIdentity(2, 2); };
  s.force = [](double, const Vector&, const Vector&, Vector& f) { f.setZero(2); };
  s.q = Vector::Constant(2, 0.5);
  s.v = Vector::Constant(2, -0.1);
  model.nonlinear.push_back(s);
  auto orientation = [](double w, double x, double y, double z) { return Eigen::Quaterniond(w, x, y, z); };
  model.bodies.add_general(Eigen::Vector3d(0.1, -0.2, 0.3), orientation(0.9, 0.1, -0.3, 0.2), 2.0,
                           Eigen::Vector3d(0.1, 0.2, 0.3), 0.25);
  model.bodies.add_general(Eigen::Vector3d(0.5, 0.4, 0.1), orientation(0.2, -0.7, 0.1, 0.4), 1.0,
                           Eigen::Vector3d(0.3, 0.3, 0.1), 0.15);
  // Body-frame angular velocities (1, 2, −0.5) and (−1.5, 0.3, 0.8), stored in the world frame.
  model.bodies.v[0] = Eigen::Vector3d(0.3, -0.1, 0.7);
  model.bodies.w[0] = model.bodies.q[0] * Eigen::Vector3d(1.0, 2.0, -0.5);
  model.bodies.v[1] = Eigen::Vector3d(-0.2, 0.6, 0.1);
  model.bodies.w[1] = model.bodies.q[1] * Eigen::Vector3d(-1.5, 0.3, 0.8);

  Interaction pair;
  pair.name = "pair";
  pair.systems = {SystemRef{SystemFamily::Rigid, 0}, SystemRef{SystemFamily::Rigid, 1}};
  pair.relation = SphereContactRelation{};
  pair.law = NewtonImpactFrictionLaw{0.0, 0.5, 3};
  model.interactions.push_back(pair);
  Interaction plane;
  plane.name = "plane";
  plane.systems = {SystemRef{SystemFamily::Rigid, 1}};
  plane.relation = SphereContactRelation{Eigen::Vector3d(0.6, 0.0, 0.8), -0.2};
  plane.law = NewtonImpactFrictionLaw{0.0, 0.5, 3};
  model.interactions.push_back(plane);
  // A coordinate-level relation on a rigid body that involves its quaternion: g = z-position + quat_x.
  Interaction quat;
  quat.name = "quat";
  quat.systems = {SystemRef{SystemFamily::Nonlinear, 0}, SystemRef{SystemFamily::Rigid, 0}};
  Matrix C = Matrix::Zero(1, 9);
  C(0, 1) = 0.5;
  C(0, 4) = 1.0;
  C(0, 6) = 1.0;
  quat.relation = LinearRelation{C, Vector::Constant(1, 0.1)};
  quat.law = NewtonImpactLaw{0.0};
  model.interactions.push_back(quat);
  return model;
}

}  // namespace

TEST_CASE("DofLayout orders LTI, nonlinear, rigid and round-trips the state", "[mj][assembly]") {
  Model model = three_families();
  model.validate();
  const DofLayout l = make_dof_layout(model);
  CHECK(l.n_coords == 1 + 2 + 14);
  CHECK(l.n_vels == 1 + 2 + 12);
  CHECK(l.coord_offset(SystemRef{SystemFamily::Rigid, 1}) == 10);
  CHECK(l.vel_offset(SystemRef{SystemFamily::Rigid, 1}) == 9);
  Vector q, v;
  gather_coordinates(model, l, q);
  gather_velocities(model, l, v);
  Model copy = model;
  for (Index k = 0; k < 2; ++k) {
    copy.bodies.x[k].setZero();
    copy.bodies.q[k].setIdentity();
    copy.bodies.w[k].setZero();
  }
  copy.nonlinear[0].v.setZero();
  scatter_state(l, q, v, copy);
  for (Index k = 0; k < 2; ++k) {
    CHECK(copy.bodies.x[k] == model.bodies.x[k]);
    CHECK(copy.bodies.q[k].coeffs() == model.bodies.q[k].coeffs());
    // ω goes through the body frame and back (Rᵀ then R): equal up to round-off.
    CHECK((copy.bodies.w[k] - model.bodies.w[k]).norm() <= 1e-15 * model.bodies.w[k].norm() * 4);
  }
  CHECK(copy.nonlinear[0].v == model.nonlinear[0].v);
  // The global vector holds the body-frame ω.
  CHECK((v.segment<3>(l.vel_offset(SystemRef{SystemFamily::Rigid, 0}) + 3) - Eigen::Vector3d(1.0, 2.0, -0.5)).norm() <=
        1e-14);
}

TEST_CASE("the normal rows of J are the derivative of the gaps along the motion", "[mj][assembly]") {
  Model model = three_families();
  const DofLayout l = make_dof_layout(model);
  Vector q, v, qp, qm;
  gather_coordinates(model, l, q);
  gather_velocities(model, l, v);
  ConstraintRows rows;
  assemble_constraints(model, l, q, all_interactions(model), rows, 0.0);
  REQUIRE(rows.rows() == 1 + 3 + 3 + 1);
  const Vector U = rows.J * v;
  const double eps = 1e-6;
  advance_coordinates(l, q, v, eps, qp);
  advance_coordinates(l, q, v, -eps, qm);
  Vector gp, gm;
  evaluate_normal_gaps(model, l, qp, all_interactions(model), gp, 0.0);
  evaluate_normal_gaps(model, l, qm, all_interactions(model), gm, 0.0);
  for (size_t i = 0; i < rows.interactions.size(); ++i) {
    INFO("interaction " << i);
    CHECK(std::abs((gp[i] - gm[i]) / (2 * eps) - U[rows.row_offset[i]]) <= 1e-8);
  }
}

TEST_CASE("the tangential rows of J are the contact points' relative velocities", "[mj][assembly]") {
  Model model = three_families();
  const DofLayout l = make_dof_layout(model);
  Vector q, v;
  gather_coordinates(model, l, q);
  gather_velocities(model, l, v);
  ConstraintRows rows;
  assemble_constraints(model, l, q, all_interactions(model), rows, 0.0);
  const Vector U = rows.J * v;
  const RigidBodies& b = model.bodies;
  auto point_velocity = [&](Index k, const Eigen::Vector3d& lever) {  // the store's ω is world frame
    return Eigen::Vector3d(b.v[k] + b.w[k].cross(lever));
  };
  // Sphere–sphere: n from body 0 to body 1, U = velocity of 1's contact point relative to 0's.
  const Eigen::Vector3d n = (b.x[1] - b.x[0]).normalized();
  const contact::ContactFrame f = contact::make_frame(n);
  const Eigen::Vector3d rel = point_velocity(1, -b.radius[1] * n) - point_velocity(0, b.radius[0] * n);
  CHECK(std::abs(U[1] - f.n.dot(rel)) <= 1e-14);
  CHECK(std::abs(U[2] - f.t1.dot(rel)) <= 1e-14);
  CHECK(std::abs(U[3] - f.t2.dot(rel)) <= 1e-14);
  // Sphere–plane.
  const Eigen::Vector3d np(0.6, 0.0, 0.8);
  const contact::ContactFrame fp = contact::make_frame(np);
  const Eigen::Vector3d vp = point_velocity(1, -b.radius[1] * np);
  CHECK(std::abs(U[4] - fp.n.dot(vp)) <= 1e-14);
  CHECK(std::abs(U[5] - fp.t1.dot(vp)) <= 1e-14);
  CHECK(std::abs(U[6] - fp.t2.dot(vp)) <= 1e-14);
}
