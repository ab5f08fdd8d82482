#pragma once
// The model: every dynamical system (three families) and every interaction. It owns the current state, so any
// integrator (Moreau–Jean, Schatzman–Paoli, generalized-α, event-driven, DAE) reads and writes the same data.
#include <vector>

#include "engine/Interaction.hpp"
#include "engine/LagrangianLti.hpp"
#include "engine/LagrangianNonlinear.hpp"
#include "engine/bodies/RigidBodies.hpp"

namespace talus {

struct Model {
  std::vector<LagrangianLti> lti;
  std::vector<LagrangianNonlinear> nonlinear;
  // Rigid bodies (the one store of engine/bodies/RigidBodies.hpp, world-frame ω and torque). The small path
  // puts its bodies in the General group (their contact geometry is given by user relations) and addresses
  // them by store index: body k of the DofLayout and of SystemRef{Rigid, k} is bodies index k.
  RigidBodies bodies;
  Eigen::Vector3d gravity = Eigen::Vector3d::Zero();  // applied to rigid bodies only
  std::vector<Interaction> interactions;
  double time = 0.0;

  // Throws std::invalid_argument naming the system or interaction and what is wrong (sizes, references).
  void validate() const;
};

// A solid sphere of density rho at x (identity orientation, at rest) appended to the General group of `bodies`,
// with m = ρ 4/3 π r³, I = 2/5 m r² and bounding radius r; returns its index. Throws std::invalid_argument
// for r <= 0 or rho <= 0.
int add_general_sphere(RigidBodies& bodies, const Eigen::Vector3d& x, double radius, double density);

}  // namespace talus
