#pragma once
// Factorisation of the iteration matrices of the second-order schemes: S = M + c₁(h²β K_t + hγ C_t) for
// Newmark / HHT / generalized-α (seed 000 eq 56, seed 002 eq 10), M + h²θK + (h/2)C for Schatzman–Paoli, and
// the mass matrix itself. Symmetric matrices (LTI systems: M, K, C symmetric) go to CHOLMOD (supernodal or
// simplicial Cholesky chosen by CHOLMOD), the others (nonlinear tangents) to Eigen's SparseLU. A matrix that
// cannot be factorised raises talus::StepFailure naming it: a step is never continued on a failed factor.
#include <memory>
#include <string>

#include "solvers/core/SparseTypes.hpp"

namespace talus {

class IterationMatrix {
 public:
  IterationMatrix();
  ~IterationMatrix();
  IterationMatrix(IterationMatrix&&) noexcept;
  IterationMatrix& operator=(IterationMatrix&&) noexcept;

  // `what` names the matrix in failure messages. symmetric = true asserts A = Aᵀ (checked in debug builds).
  void factorize(const SparseMatrix& A, bool symmetric, const std::string& what);
  bool factorized() const;
  Index size() const;

  // x = A⁻¹ b (columns of b solved independently). x may alias b.
  void solve(const Vector& b, Vector& x) const;
  void solve(const Matrix& b, Matrix& x) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace talus
