#pragma once
// Small jointed models shared by the joint tests: spheres of Model::bodies held by joints to the world or to
// each other, and the measures the tests read from them.
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
  return model.bodies.add_general(x, Eigen::Quaterniond::Identity(), m, Eigen::Vector3d::Constant(0.4 * m * r * r), r);
}

// Kinetic energy of the store (world ω) plus the potential −m g·x of gravity.
inline double mechanical_energy(const Model& model) {
  double e = kinetic_energy(model.bodies);
  for (int k = 0; k < model.bodies.count(); ++k) e -= model.bodies.mass[k] * model.gravity.dot(model.bodies.x[k]);
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

}  // namespace talus::joint_test
