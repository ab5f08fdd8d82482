#include "solvers/core/SolverStats.hpp"

namespace talus::solvers {

const char* to_string(SolverStatus s) {
  switch (s) {
    case SolverStatus::Converged: return "converged";
    case SolverStatus::MaxIterations: return "max-iterations";
    case SolverStatus::RayTermination: return "ray-termination";
    case SolverStatus::Infeasible: return "infeasible";
    case SolverStatus::Diverged: return "diverged";
    case SolverStatus::InvalidInput: return "invalid-input";
  }
  return "unknown";
}

}  // namespace talus::solvers
