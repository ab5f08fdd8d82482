#pragma once
// Linear time-invariant Lagrangian system (seed 000 eq 32):  M dv + (K q + C v) dt = F_ext(t) dt + di.
// Sparse M, K, C so that flexible bodies (bars, beams) use the same type. The current state lives here.
#include <functional>
#include <string>

#include "solvers/core/SparseTypes.hpp"

namespace talus {

struct LagrangianLti {
  std::string name;
  SparseMatrix M;  // n × n, symmetric positive definite
  SparseMatrix K;  // n × n stiffness; empty (0 × 0) means none
  SparseMatrix C;  // n × n damping; empty (0 × 0) means none
  Vector f_const;  // constant part of F_ext (gravity, preload); empty means zero
  // Optional time-dependent part of F_ext, added to f_const: f_time(t, out) writes n entries.
  std::function<void(double t, Eigen::Ref<Vector> out)> f_time;

  Vector q, v;  // current state (right velocity v⁺)

  Index dofs() const { return M.rows(); }
  // F_ext(t) = f_const + f_time(t)
  Vector external_force(double t) const;
  // The same into a buffer reused from step to step.
  void external_force(double t, Vector& out) const;
};

}  // namespace talus
