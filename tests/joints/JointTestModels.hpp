#pragma once
// Small jointed models shared by the joint tests: spheres of Model::bodies held by joints to the world or to
// each other, and the measures the tests read from them.
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>
#include <string>

#include "engine/Model.hpp"
#include "engine/MoreauJean.hpp"
#include "engine/schemes/NonsmoothGeneralizedAlpha.hpp"

namespace talus::joint_test {

constexpr double kG = 9.81;

// A joint of `kind` between spheres a and b (b < 0: the world), made at the bodies' present poses.
inline void add_joint(Model& model, const std::string& name, JointKind kind, int a, int b,
                      const Eigen::Vector3d& anchor, const Eigen::Vector3d& axis = Eigen::Vector3d::UnitZ(),
                      double rate = 0.0) {
  Interaction in;
  in.name = name;
  in.systems.push_back({SystemFamily::Rigid, a});
  if (b >= 0) in.systems.push_back({SystemFamily::Rigid, b});
  in.relation = make_joint(kind, model.bodies, a, b, anchor, axis, rate, model.time);
  in.law = EqualityLaw{joint_rows(kind)};
  model.interactions.push_back(in);
}

// A sphere of mass m and radius r appended to the general group, at rest.
inline int add_ball(Model& model, const Eigen::Vector3d& x, double m, double r) {
  return model.bodies.add_general(x, Eigen::Quaterniond::Identity(), m,
                                  Eigen::Vector3d::Constant(0.4 * m * r * r), r);
}

// Kinetic energy of the store (world ω) plus the potential −m g·x of gravity.
inline double mechanical_energy(const Model& model) {
  double e = kinetic_energy(model.bodies);
  for (int k = 0; k < model.bodies.count(); ++k)
    e -= model.bodies.mass[k] * model.gravity.dot(model.bodies.x[k]);
  return e;
}

// The two schemes that step joints, behind one call.
struct Stepper {
  std::unique_ptr<MoreauJean> mj;
  std::unique_ptr<NonsmoothGeneralizedAlpha> ga;
  void step() { mj ? (void)mj->step() : (void)ga->step(); }
};

inline Stepper moreau_jean(Model& model, double h, double theta = 0.5) {
  MoreauJeanParameters p;
  p.h = h;
  p.theta = theta;
  Stepper s;
  s.mj = std::make_unique<MoreauJean>(model, p);
  return s;
}

inline Stepper generalized_alpha(Model& model, double h, double rho_infinity) {
  NonsmoothGeneralizedAlphaParameters p;
  p.h = h;
  p.coefficients = generalized_alpha_coefficients(rho_infinity);
  p.newton_tolerance = 1e-12;
  Stepper s;
  s.ga = std::make_unique<NonsmoothGeneralizedAlpha>(model, p);
  return s;
}

// The joint-friction tests' constants and their slider: a carriage on a horizontal prismatic rail along x,
// the ball on a vertical prismatic mast from the carriage, resting on the floor z = 0 with Coulomb friction
// (dim 2 or 3), pushed by F. Bodies: 0 carriage, 1 ball; interactions: 0 rail, 1 mast, 2 floor.
constexpr double kMu = 0.4;
constexpr double kBall = 2.0;      // ball mass [kg]
constexpr double kCarriage = 0.5;  // carriage mass [kg]
constexpr double kRadius = 0.1;    // ball radius [m]

// A frictional sphere–plane contact between body `ball` and the floor z = 0.
inline void add_floor(Model& model, int ball, int dim) {
  Interaction in;
  in.name = "floor";
  in.systems = {SystemRef{SystemFamily::Rigid, ball}};
  in.relation = SphereContactRelation{Eigen::Vector3d::UnitZ(), 0.0};
  in.law = NewtonImpactFrictionLaw{0.0, kMu, dim};
  model.interactions.push_back(in);
}

inline Model friction_slider(const Eigen::Vector3d& F, int dim) {
  Model model;
  model.gravity = Eigen::Vector3d(0, 0, -kG);
  add_ball(model, Eigen::Vector3d(0, 0, 0.5), kCarriage, 0.05);
  add_ball(model, Eigen::Vector3d(0, 0, kRadius), kBall, kRadius);
  add_joint(model, "rail", JointKind::Prismatic, 0, -1, Eigen::Vector3d(0, 0, 0.5), Eigen::Vector3d::UnitX());
  add_joint(model, "mast", JointKind::Prismatic, 1, 0, Eigen::Vector3d(0, 0, kRadius),
            Eigen::Vector3d::UnitZ());
  add_floor(model, 1, dim);
  model.bodies.force_of(1) = F;
  return model;
}

// The slider pushed by F = ratio μ m g for T seconds: below the cone it sticks (x, v at round-off), above it
// accelerates at a from rest (v = a T, x = ½ a T²).
inline void check_slider_motion(double ratio, double x, double v, double a, double T) {
  if (ratio < 1.0) {
    CHECK(std::abs(x) <= 1e-12);
    CHECK(std::abs(v) <= 1e-12);
  } else {
    CHECK(std::abs(v - a * T) <= 1e-9 * a * T);
    CHECK(std::abs(x - 0.5 * a * T * T) <= 1e-8 * 0.5 * a * T * T);
  }
}

}  // namespace talus::joint_test
