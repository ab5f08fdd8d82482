#pragma once
// Nonlinear Lagrangian system given by user callbacks:  M(q) dv = f(t, q, v) dt + di
// (seed 000 eq 1 with F = −f). f gathers internal, gyroscopic and external forces. The Jacobians of f feed
// the Newton iterations of the θ-scheme (iteration matrix M − hθ ∂f/∂v − h²θ² ∂f/∂q); when a Jacobian callback
// is empty it is approximated by finite differences.
#include <functional>
#include <string>

#include "solvers/core/SparseTypes.hpp"

namespace talus {

struct LagrangianNonlinear {
  std::string name;
  Index n = 0;
  std::function<void(const Vector& q, Matrix& M)> mass;                                          // n × n
  std::function<void(double t, const Vector& q, const Vector& v, Vector& f)> force;              // n
  std::function<void(double t, const Vector& q, const Vector& v, Matrix& dfdq)> force_jacobian_q;  // optional
  std::function<void(double t, const Vector& q, const Vector& v, Matrix& dfdv)> force_jacobian_v;  // optional
  // Optional potential energy V(q) of the forces in f that derive from one (springs, gravity); used only for
  // the energy output. Empty means the energy output reports kinetic energy and external work separately.
  std::function<double(const Vector& q)> potential;

  Vector q, v;  // current state

  Index dofs() const { return n; }
};

}  // namespace talus
