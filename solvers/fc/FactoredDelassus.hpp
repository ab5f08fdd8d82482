#pragma once
// The Delassus operator of a global friction-contact problem kept factored (issue 11 item 2): H and
// X = M⁻¹ H, with M factorised once (CHOLMOD, or UMFPACK for an unsymmetric M:
// GlobalFrictionContactProblem.hpp), and W = Hᵀ X never formed. A product W x is Hᵀ (X x), two sparse
// products of nnz(H) + nnz(X); the velocities v = M⁻¹ f + X r carry u = Hᵀ v + w, so a Gauss–Seidel update of
// contact i reads its columns of H and X only (FactoredNsgs.hpp), as the granular path's matrix-free sweep
// does for spheres.
//
// When it pays: with a block-diagonal M (rigid bodies, beads) X has H's pattern, so a contact costs its two
// bodies' 12 velocity entries per row, where a row of W holds a block for every contact sharing a body (about
// 2z − 1 blocks at coordination z). With an FE body X fills the body's columns, and W may be the smaller one
// (docs/friction-solvers.md, "Two operators", measures both).
#include <memory>

#include "solvers/core/DelassusOperator.hpp"
#include "solvers/fc/GlobalFrictionContactProblem.hpp"

namespace talus::solvers {

class FactoredDelassus final : public DelassusOperator {
 public:
  // Validates and factorises. Throws std::invalid_argument for an inconsistent problem, std::runtime_error
  // for a singular M.
  explicit FactoredDelassus(const GlobalFrictionContactProblem& problem);

  void multiply(const Vector& x, Vector& y) const override;
  void diagonal_block(Index i, double* out) const override;
  // Forms W = Hᵀ X and q once, on the first call (not thread-safe).
  const FrictionContactProblem& assembled() const override;
  const char* form() const override { return "factored"; }

  const SparseMatrixCol& H() const { return H_; }
  const SparseMatrixCol& X() const { return X_; }
  const Vector& w() const { return w_; }
  const Vector& free_velocity() const { return v_free_; }  // M⁻¹ f
  // The velocities of reactions r: v = M⁻¹ f + X r.
  void velocity(const Vector& r, Vector& v) const;
  // Entries held by the operator (nnz(H) + nnz(X)), for the comparison with nnz(W).
  Index stored_entries() const { return H_.nonZeros() + X_.nonZeros(); }

 private:
  SparseMatrixCol H_, X_;
  Vector w_, v_free_;
  mutable std::unique_ptr<FrictionContactProblem> assembled_;
};

}  // namespace talus::solvers
