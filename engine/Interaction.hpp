#pragma once
// An interaction = relation (gap and Jacobian) + nonsmooth law, between one or two dynamical systems.
// Reactions of the last step are kept here so solvers can warm-start and writers can output them.
#include <string>
#include <vector>

#include "engine/NonsmoothLaw.hpp"
#include "engine/Relation.hpp"

namespace talus {

enum class SystemFamily { Lti, Nonlinear, Rigid };

struct SystemRef {
  SystemFamily family = SystemFamily::Lti;
  Index index = 0;  // into Model::lti, Model::nonlinear, or body index in Model::bodies
};

struct Interaction {
  std::string name;
  std::vector<SystemRef> systems;  // 1 or 2
  Relation relation;
  NonsmoothLaw law;

  // Filled by the integrators: last gap and relative velocity (rows), last impulse P (rows).
  Vector gap, velocity, impulse;
};

}  // namespace talus
