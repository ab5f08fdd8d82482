#pragma once
// The one-step problem's operator u = W r + q as every friction solver sees it (issue 11 item 2: one problem,
// two operators). W = Hᵀ M̂⁻¹ H is either formed (AssembledDelassus: block-sparse W, what Lemke, the Newton
// solvers and FCLIB's local files need) or kept factored (solvers/fc/FactoredDelassus: H and X = M̂⁻¹ H, never
// W, so a product costs nnz(H) + nnz(X) instead of nnz(W)). The friction solvers (solvers/fc: nsgs, apgd,
// semismooth_newton) take a `const DelassusOperator&` and run on either form: APGD through products alone,
// NSGS through each form's own sweep, the Newton solver through W, formed on demand from the factored form.
//
// The interface is virtual per whole-problem operation (a product, a block, assembling W), never per contact:
// sweeps that need per-contact access work on the concrete type.
#include <string>

#include "solvers/core/FrictionContactProblem.hpp"

namespace talus::solvers {

class DelassusOperator {
 public:
  virtual ~DelassusOperator() = default;
  int dim() const { return dim_; }
  Index contacts() const { return mu_.size(); }
  Index rows() const { return q_.size(); }
  const Vector& q() const { return q_; }
  const Vector& mu() const { return mu_; }

  // y = W x (no q), y resized to rows().
  virtual void multiply(const Vector& x, Vector& y) const = 0;
  // W's diagonal block of contact i, dim × dim, row-major into out.
  virtual void diagonal_block(Index i, double* out) const = 0;
  // The problem with W formed: a reference to the one held when W is assembled, else built here (the cost of
  // forming W once).
  virtual const FrictionContactProblem& assembled() const = 0;
  // "assembled" or "factored", for reports.
  virtual const char* form() const = 0;

 protected:
  int dim_ = 3;
  Vector q_, mu_;
};

// The assembled form over a FrictionContactProblem, which must outlive it.
class AssembledDelassus final : public DelassusOperator {
 public:
  // Throws std::invalid_argument for an inconsistent problem (validate()).
  explicit AssembledDelassus(const FrictionContactProblem& problem);
  void multiply(const Vector& x, Vector& y) const override;
  void diagonal_block(Index i, double* out) const override;
  const FrictionContactProblem& assembled() const override { return problem_; }
  const char* form() const override { return "assembled"; }

 private:
  const FrictionContactProblem& problem_;
};

// The common residual (FrictionContactProblem.hpp) of r, with u = W r + q from the operator.
double friction_residual(const DelassusOperator& op, const Vector& r);

}  // namespace talus::solvers
