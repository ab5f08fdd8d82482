#pragma once
// The model: every dynamical system (three families) and every interaction. It owns the current state, so any
// integrator (Moreau–Jean, Schatzman–Paoli, generalized-α, event-driven, DAE) reads and writes the same data.
#include <vector>

#include "engine/Interaction.hpp"
#include "engine/LagrangianLti.hpp"
#include "engine/LagrangianNonlinear.hpp"
#include "engine/RigidBodySet.hpp"

namespace talus {

struct Model {
  std::vector<LagrangianLti> lti;
  std::vector<LagrangianNonlinear> nonlinear;
  RigidBodySet bodies;
  Eigen::Vector3d gravity = Eigen::Vector3d::Zero();  // applied to rigid bodies only
  std::vector<Interaction> interactions;
  double time = 0.0;

  // Throws std::invalid_argument naming the system or interaction and what is wrong (sizes, references).
  void validate() const;
};

}  // namespace talus
