// Names of the local solvers (the kernels themselves are inline in LocalContactSolvers.hpp).
#include "solvers/fc/LocalContactSolvers.hpp"

namespace talus::solvers {

const char* to_string(LocalSolverKind kind) {
  switch (kind) {
    case LocalSolverKind::Projection: return "projection";
    case LocalSolverKind::Analytic: return "analytic";
    case LocalSolverKind::AlartCurnierNewton: return "alart-curnier";
  }
  return "unknown";
}

}  // namespace talus::solvers
