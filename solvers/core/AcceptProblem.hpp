#pragma once
// The shared entry check of every solver: a problem that fails `validate` (sizes, NaN, negative μ) is not an
// exception out of a solve but a returned InvalidInput status carrying the validator's message, like every
// other solver outcome (STYLE.md: user and numerical failures are returned at the boundary).
#include <stdexcept>

#include "solvers/core/SolverStats.hpp"

namespace talus::solvers {

// Returns false (and fills `stats`) when `problem` is invalid; `validate` is found by argument-dependent lookup
// (solvers/core/LcpProblem.hpp, FrictionContactProblem.hpp).
template <class Problem>
bool accept_problem(const Problem& problem, SolverStats& stats) {
  try {
    validate(problem);
  } catch (const std::invalid_argument& e) {
    stats.status = SolverStatus::InvalidInput;
    stats.message = e.what();
    return false;
  }
  return true;
}

}  // namespace talus::solvers
