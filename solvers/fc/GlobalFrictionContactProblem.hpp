#pragma once
// The global friction-contact problem (FCLIB "global" form, ../shared/fclib/FORMAT.md):
//
//   M v = H r + f,   u = Hᵀ v + w,   r ∈ K_μ, û ∈ K*_μ, r ⟂ û   (per contact, De Saxcé as in the local form)
//
// and its condensation to the local problem by eliminating v: W = Hᵀ M⁻¹ H, q = Hᵀ M⁻¹ f + w (issue 3 item 1).
// M is factorised once by a sparse direct method from SuiteSparse: CHOLMOD when M is symmetric positive
// definite, UMFPACK otherwise (an unsymmetric or indefinite M from a finite-element code).
#include "solvers/core/FrictionContactProblem.hpp"

namespace talus::solvers {

struct GlobalFrictionContactProblem {
  int dim = 3;     // 2 or 3
  SparseMatrix M;  // n × n
  SparseMatrix H;  // n × m, m = dim · contacts (columns are contact rows)
  Vector f;        // n
  Vector w;        // m
  Vector mu;       // contacts

  Index contacts() const { return mu.size(); }
};

// Throws std::invalid_argument naming the inconsistency (sizes, dim, negative μ, NaN).
void validate(const GlobalFrictionContactProblem& problem);

// X = M⁻¹ H and y = M⁻¹ f from one factorisation of M (validates the problem first). Throws
// std::runtime_error when M cannot be factorised (singular).
void mass_solve(const GlobalFrictionContactProblem& problem, SparseMatrixCol& X, Vector& y);

// W = Hᵀ M⁻¹ H, q = Hᵀ M⁻¹ f + w. Throws std::runtime_error when M cannot be factorised (singular).
FrictionContactProblem condense_to_local(const GlobalFrictionContactProblem& problem);

}  // namespace talus::solvers
