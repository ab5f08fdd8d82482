// Rigid joints (engine/joints/RigidJoint.hpp) stepped by Moreau–Jean and by the Lie group form of nonsmooth
// generalized-α: the Jacobians against finite differences of the gaps, a spherical pendulum's period, a
// revolute double pendulum's energy and axis, a driver's angle, and a prismatic slide down a slope, each against
// its analytic value.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <numbers>

#include "engine/ConstraintAssembly.hpp"
#include "tests/joints/JointTestModels.hpp"

using namespace talus;
using namespace talus::joint_test;

namespace {

constexpr double kPi = std::numbers::pi;

// Largest |row| of every joint's gap at the model's state (the constraint drift).
double joint_drift(const Model& model) {
  const DofLayout layout = make_dof_layout(model);
  Vector q;
  gather_coordinates(model, layout, q);
  ConstraintRows rows;
  std::vector<int> joints;
  for (int i = 0; i < static_cast<int>(model.interactions.size()); ++i)
    if (const auto* j = std::get_if<JointRelation>(&model.interactions[i].relation); j && j->kind != JointKind::Driver)
      joints.push_back(i);
  assemble_constraints(model, layout, q, joints, rows, model.time);
  return rows.gap.size() ? rows.gap.cwiseAbs().maxCoeff() : 0.0;
}

// A sphere (mass m, radius r) hanging from the world at the origin by a spherical joint, its centre at distance d,
// released at rest at angle θ₀ from the vertical in the x–z plane.
Model spherical_pendulum(double d, double r, double theta0) {
  Model model;
  model.gravity = Eigen::Vector3d(0, 0, -kG);
  add_ball(model, Eigen::Vector3d(d * std::sin(theta0), 0.0, -d * std::cos(theta0)), 1.0, r);
  add_joint(model, "pivot", JointKind::Spherical, 0, -1, Eigen::Vector3d::Zero());
  return model;
}

// Mean period from the upward zero crossings of x (linear interpolation between steps), and the largest drift.
struct PendulumRun {
  double period = 0.0;
  double drift = 0.0;
  int crossings = 0;
};

PendulumRun run_pendulum(Model& model, Stepper s, double h, double t_end) {
  PendulumRun out;
  double x_prev = model.bodies.x[0].x(), first = -1.0, last = -1.0;
  const long steps = std::lround(t_end / h);
  for (long k = 0; k < steps; ++k) {
    const double t0 = model.time;
    s.step();
    const double x = model.bodies.x[0].x();
    if (x_prev < 0.0 && x >= 0.0) {
      const double tc = t0 + h * (-x_prev) / (x - x_prev);
      if (first < 0.0) first = tc;
      last = tc;
      ++out.crossings;
    }
    x_prev = x;
    out.drift = std::max(out.drift, joint_drift(model));
  }
  out.period = out.crossings > 1 ? (last - first) / (out.crossings - 1) : 0.0;
  return out;
}

// Two spheres, each on a revolute joint about `axis`: the first to the world at the origin, the second to the
// first at the first's centre. Released at rest with both links horizontal along x (a large motion).
Model double_pendulum(const Eigen::Vector3d& axis) {
  Model model;
  model.gravity = Eigen::Vector3d(0, 0, -kG);
  add_ball(model, Eigen::Vector3d(0.4, 0, 0), 1.0, 0.05);
  add_ball(model, Eigen::Vector3d(0.7, 0, 0), 0.5, 0.04);
  add_joint(model, "shoulder", JointKind::Revolute, 0, -1, Eigen::Vector3d::Zero(), axis);
  add_joint(model, "elbow", JointKind::Revolute, 1, 0, Eigen::Vector3d(0.4, 0, 0), axis);
  return model;
}

// sin of the angle between the two sides' hinge axes (body frames rotated to the world), the larger of the
// shoulder's and the elbow's.
double hinge_misalignment(const Model& model) {
  const auto& shoulder = std::get<JointRelation>(model.interactions[0].relation);
  const auto& elbow = std::get<JointRelation>(model.interactions[1].relation);
  const Eigen::Vector3d s = model.bodies.q[0] * shoulder.axis_a;
  const Eigen::Vector3d a = model.bodies.q[1] * elbow.axis_a, b = model.bodies.q[0] * elbow.axis_b;
  return std::max(s.cross(shoulder.axis_b).norm(), a.cross(b).norm());
}

struct EnergyRun {
  double max_change = 0.0;  // max |E(t) − E(0)|
  double final_change = 0.0;  // E(T) − E(0)
  double max_gain = 0.0;  // max E(t) − E(0)
  double misalignment = 0.0;
  double drift = 0.0;
};

EnergyRun run_double_pendulum(Model& model, Stepper s, double h, double t_end) {
  EnergyRun out;
  const double e0 = mechanical_energy(model);
  const long steps = std::lround(t_end / h);
  for (long k = 0; k < steps; ++k) {
    s.step();
    const double de = mechanical_energy(model) - e0;
    out.max_change = std::max(out.max_change, std::abs(de));
    out.final_change = de;
    out.max_gain = std::max(out.max_gain, de);
    out.misalignment = std::max(out.misalignment, hinge_misalignment(model));
    out.drift = std::max(out.drift, joint_drift(model));
  }
  return out;
}

}  // namespace

TEST_CASE("joint Jacobians and the driver's rate match finite differences of the gaps", "[joints]") {
  // Two bodies in arbitrary poses (away from those the joints were made at, so every row is non-zero), and an
  // arbitrary velocity: J v must be the derivative of g along q ∘ exp(ε v), and ∂g/∂t that along t.
  for (JointKind kind : {JointKind::Spherical, JointKind::Revolute, JointKind::Prismatic, JointKind::Driver}) {
    for (bool world : {false, true}) {
      INFO(to_string(kind) << (world ? " to the world" : " between two bodies"));
      Model model;
      add_ball(model, Eigen::Vector3d(0.1, -0.2, 0.3), 1.0, 0.1);
      add_ball(model, Eigen::Vector3d(-0.4, 0.5, 0.2), 2.0, 0.1);
      model.time = 0.3;
      add_joint(model, "j", kind, 0, world ? -1 : 1, Eigen::Vector3d(0.2, 0.1, -0.1),
                Eigen::Vector3d(0.3, -0.5, 0.8), 1.7);
      model.bodies.x[0] += Eigen::Vector3d(0.05, -0.03, 0.02);
      model.bodies.x[1] += Eigen::Vector3d(-0.02, 0.04, 0.01);
      model.bodies.q[0] = Eigen::Quaterniond(Eigen::AngleAxisd(0.4, Eigen::Vector3d(1, 2, -1).normalized()));
      model.bodies.q[1] = Eigen::Quaterniond(Eigen::AngleAxisd(-0.7, Eigen::Vector3d(0, 1, 3).normalized()));
      const DofLayout layout = make_dof_layout(model);
      Vector q, v(12), qp, qm;
      gather_coordinates(model, layout, q);
      v << 0.3, -0.1, 0.7, 1.1, -0.4, 0.2, -0.6, 0.2, 0.5, 0.3, 0.9, -1.2;
      const double t = 0.8, eps = 1e-6;
      ConstraintRows rows, rp, rm;
      assemble_constraints(model, layout, q, {0}, rows, t);
      advance_coordinates(layout, q, v, eps, qp);
      advance_coordinates(layout, q, v, -eps, qm);
      assemble_constraints(model, layout, qp, {0}, rp, t);
      assemble_constraints(model, layout, qm, {0}, rm, t);
      const Vector fd = (rp.gap - rm.gap) / (2.0 * eps);
      const Vector Jv = rows.J * v;
      CHECK(rows.gap.cwiseAbs().maxCoeff() > 1e-3);
      CHECK((Jv - fd).cwiseAbs().maxCoeff() <= 1e-8 * (1.0 + fd.cwiseAbs().maxCoeff()));
      assemble_constraints(model, layout, q, {0}, rp, t + eps);
      assemble_constraints(model, layout, q, {0}, rm, t - eps);
      const Vector fdt = (rp.gap - rm.gap) / (2.0 * eps);
      CHECK((rows.rate - fdt).cwiseAbs().maxCoeff() <= 1e-8);
      CHECK(rows.rate.cwiseAbs().maxCoeff() == (kind == JointKind::Driver ? 1.7 : 0.0));
    }
  }
}

TEST_CASE("a spherical pendulum swings with the small-amplitude period", "[joints][pendulum]") {
  // T = 2π √(I_pivot / (m g d)), I_pivot = 2/5 m r² + m d², with the amplitude's first correction (1 + θ₀²/16).
  const double d = 0.5, r = 0.05, theta0 = 0.02, h = 1e-3;
  const double I_pivot = 0.4 * r * r + d * d;
  const double T = 2.0 * kPi * std::sqrt(I_pivot / (kG * d)) * (1.0 + theta0 * theta0 / 16.0);
  SECTION("Moreau-Jean, theta = 1/2") {
    Model model = spherical_pendulum(d, r, theta0);
    const PendulumRun run = run_pendulum(model, moreau_jean(model, h), h, 5.5 * T);
    std::printf("spherical pendulum, Moreau-Jean: period %.9f s (analytic %.9f s, relative error %.2e), drift %.2e m\n",
                run.period, T, run.period / T - 1.0, run.drift);
    CHECK(run.crossings == 5);
    CHECK(std::abs(run.period / T - 1.0) <= 2e-5);
    CHECK(run.drift <= 1e-11);  // projected after every step (MoreauJeanParameters::project_joints)
  }
  SECTION("generalized-alpha, rho_inf = 0.9") {
    Model model = spherical_pendulum(d, r, theta0);
    const PendulumRun run = run_pendulum(model, generalized_alpha(model, h, 0.9), h, 5.5 * T);
    std::printf("spherical pendulum, generalized-alpha: period %.9f s (analytic %.9f s, relative error %.2e), drift "
                "%.2e m\n", run.period, T, run.period / T - 1.0, run.drift);
    CHECK(run.crossings == 5);
    CHECK(std::abs(run.period / T - 1.0) <= 2e-5);
    CHECK(run.drift <= 1e-12);
  }
}

TEST_CASE("a revolute double pendulum keeps its energy and its hinge axes", "[joints][revolute]") {
  // The hinge axis is tilted from the horizontal, so that the axis rows carry part of the weight. Released with
  // both links horizontal, the pendulum swings through large angles.
  const Eigen::Vector3d axis = Eigen::Vector3d(0.0, 1.0, 0.3).normalized();
  const double h = 1e-3, t_end = 3.0;
  const double scale = kG * (1.0 * 0.4 + 0.5 * 0.7);  // Σ m g L: the energy the links exchange
  SECTION("Moreau-Jean, theta = 1/2: first-order dissipation only") {
    // Velocity-level joints (J(q_k) v_{k+1} = 0) let the reactions work by O(h²) per step: the energy drifts
    // down at O(h) over a fixed time, never up, and halves with h.
    Model model = double_pendulum(axis);
    const EnergyRun run = run_double_pendulum(model, moreau_jean(model, h), h, t_end);
    Model fine = double_pendulum(axis);
    const EnergyRun half = run_double_pendulum(fine, moreau_jean(fine, 0.5 * h), 0.5 * h, t_end);
    std::printf("double pendulum, Moreau-Jean: max |dE| %.3e J at h, %.3e J at h/2 (of m g L %.2f J), max gain "
                "%.2e J, misalignment %.2e, drift %.2e\n", run.max_change, half.max_change, scale, run.max_gain,
                run.misalignment, run.drift);
    CHECK(run.max_change <= 0.03 * scale);
    CHECK(run.max_gain <= 1e-9 * scale);
    CHECK(run.max_change / half.max_change == Approx(2.0).epsilon(0.1));
    CHECK(run.misalignment <= 1e-12);
    CHECK(run.drift <= 1e-11);  // the projection's tolerance (MoreauJeanParameters::joint_projection_tolerance)
  }
  SECTION("generalized-alpha: conserved for rho_inf = 1, dissipated below") {
    Model model = double_pendulum(axis);
    const EnergyRun run = run_double_pendulum(model, generalized_alpha(model, h, 1.0), h, t_end);
    Model m5 = double_pendulum(axis);
    const EnergyRun run5 = run_double_pendulum(m5, generalized_alpha(m5, h, 0.5), h, t_end);
    Model m0 = double_pendulum(axis);
    const EnergyRun run0 = run_double_pendulum(m0, generalized_alpha(m0, h, 0.0), h, t_end);
    std::printf("double pendulum, generalized-alpha: max |dE| %.3e J (rho 1), final dE %.3e / %.3e / %.3e J (rho 1 / "
                "0.5 / 0), misalignment %.2e, drift %.2e\n", run.max_change, run.final_change, run5.final_change,
                run0.final_change, run.misalignment, run.drift);
    CHECK(run.max_change <= 3e-5 * scale);
    CHECK(run5.final_change < 1.5 * run.final_change);
    CHECK(run0.final_change < 5.0 * run.final_change);
    CHECK(run.misalignment <= 1e-12);
    CHECK(run.drift <= 1e-12);
    CHECK(run0.misalignment <= 1e-12);
    CHECK(run0.drift <= 1e-12);
  }
}

TEST_CASE("a driver turns a pendulum arm at the prescribed rate", "[joints][driver]") {
  // A sphere on a horizontal hinge through the world origin, its centre d below, driven at ω about the hinge
  // against gravity; it starts with the driver's velocity (consistent initial conditions).
  const double d = 0.3, omega = 3.0, h = 1e-3;
  const Eigen::Vector3d axis = Eigen::Vector3d::UnitY();
  for (int scheme = 0; scheme < 2; ++scheme) {
    INFO((scheme == 0 ? "Moreau-Jean" : "generalized-alpha"));
    Model model;
    model.gravity = Eigen::Vector3d(0, 0, -kG);
    add_ball(model, Eigen::Vector3d(0, 0, -d), 1.0, 0.05);
    add_joint(model, "hinge", JointKind::Revolute, 0, -1, Eigen::Vector3d::Zero(), axis);
    add_joint(model, "motor", JointKind::Driver, 0, -1, Eigen::Vector3d::Zero(), axis, omega);
    model.bodies.w[0] = omega * axis;
    model.bodies.v[0] = model.bodies.w[0].cross(model.bodies.x[0]);
    Stepper s = scheme == 0 ? moreau_jean(model, h) : generalized_alpha(model, h, 0.9);
    double error = 0.0, max_impulse = 0.0;
    for (int k = 0; k < 2500; ++k) {
      s.step();
      const Eigen::Quaterniond& q = model.bodies.q[0];
      const double theta = 2.0 * std::atan2(q.vec().dot(axis), q.w());
      error = std::max(error, std::abs(std::remainder(theta - omega * model.time, 2.0 * kPi)));
      max_impulse = std::max(max_impulse, std::abs(model.interactions[1].impulse[0]));
    }
    std::printf("driver, %s: max |theta - omega t| %.2e rad over %.2f turns, drift %.2e m\n",
                scheme == 0 ? "Moreau-Jean" : "generalized-alpha", error, omega * model.time / (2 * kPi),
                joint_drift(model));
    CHECK(error <= 1e-9);
    // The driver works against gravity: its row is loaded. (Generalized-α reports the impulsive part Λ only, zero
    // in this smooth motion; the smooth force λ̃ is not an output.)
    if (scheme == 0) CHECK(max_impulse > 1e-4);
  }
}

TEST_CASE("a prismatic joint slides a body down a frictionless slope", "[joints][prismatic]") {
  // s(t) = ½ g sin α t² along the slope, no motion across it and no rotation.
  const double alpha = 0.5, h = 1e-3, t_end = 1.0;
  const Eigen::Vector3d down(std::cos(alpha), 0.0, -std::sin(alpha));
  for (int scheme = 0; scheme < 2; ++scheme) {
    INFO((scheme == 0 ? "Moreau-Jean" : "generalized-alpha"));
    Model model;
    model.gravity = Eigen::Vector3d(0, 0, -kG);
    add_ball(model, Eigen::Vector3d(0, 0, 0), 2.0, 0.1);
    add_joint(model, "rail", JointKind::Prismatic, 0, -1, Eigen::Vector3d(0.05, 0, 0), down);
    Stepper s = scheme == 0 ? moreau_jean(model, h) : generalized_alpha(model, h, 0.9);
    for (long k = 0; k < std::lround(t_end / h); ++k) s.step();
    const Eigen::Vector3d x = model.bodies.x[0];
    const double s_exact = 0.5 * kG * std::sin(alpha) * model.time * model.time;
    const double across = (x - x.dot(down) * down).norm();
    const double angle = Eigen::AngleAxisd(model.bodies.q[0]).angle();
    std::printf("prismatic slope, %s: s = %.12f m (analytic %.12f m), across %.2e m, rotation %.2e rad\n",
                scheme == 0 ? "Moreau-Jean" : "generalized-alpha", x.dot(down), s_exact, across, angle);
    CHECK(std::abs(x.dot(down) - s_exact) <= 1e-9 * s_exact);
    CHECK(across <= 1e-12);
    CHECK(angle <= 1e-12);
    CHECK(std::abs(model.bodies.v[0].dot(down) - kG * std::sin(alpha) * model.time) <= 1e-9);
  }
}
