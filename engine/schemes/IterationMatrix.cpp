// CHOLMOD / SparseLU factorisation of the schemes' iteration matrices (see the header).
#include "engine/schemes/IterationMatrix.hpp"

#include <Eigen/CholmodSupport>
#include <Eigen/SparseLU>
#include <cassert>

#include "engine/StepReport.hpp"

namespace talus {

struct IterationMatrix::Impl {
  Eigen::CholmodDecomposition<SparseMatrixCol, Eigen::Lower> cholesky;
  Eigen::SparseLU<SparseMatrixCol, Eigen::COLAMDOrdering<int>> lu;
  bool symmetric = true;
  bool ready = false;
  Index n = 0;
};

IterationMatrix::IterationMatrix() : impl_(std::make_unique<Impl>()) {}
IterationMatrix::~IterationMatrix() = default;
IterationMatrix::IterationMatrix(IterationMatrix&&) noexcept = default;
IterationMatrix& IterationMatrix::operator=(IterationMatrix&&) noexcept = default;

void IterationMatrix::factorize(const SparseMatrix& A, bool symmetric, const std::string& what) {
  assert(A.rows() == A.cols());
  assert(!symmetric || (SparseMatrix(A.transpose()) - A).norm() <= 1e-12 * (1.0 + A.norm()));
  Impl& m = *impl_;
  m.ready = false;
  m.symmetric = symmetric;
  m.n = A.rows();
  const SparseMatrixCol Ac = A;  // explicit storage conversion: both factorisations work on columns
  if (symmetric) {
    m.cholesky.compute(Ac);
    if (m.cholesky.info() != Eigen::Success)
      throw StepFailure(what + ": Cholesky factorisation failed (matrix not positive definite)");
  } else {
    m.lu.compute(Ac);
    if (m.lu.info() != Eigen::Success) throw StepFailure(what + ": LU factorisation failed (singular matrix)");
  }
  m.ready = true;
}

bool IterationMatrix::factorized() const { return impl_->ready; }
Index IterationMatrix::size() const { return impl_->n; }

void IterationMatrix::solve(const Vector& b, Vector& x) const {
  assert(impl_->ready && b.size() == impl_->n);
  if (impl_->symmetric) x = impl_->cholesky.solve(b);
  else x = impl_->lu.solve(b);
}

void IterationMatrix::solve(const Matrix& b, Matrix& x) const {
  assert(impl_->ready && b.rows() == impl_->n);
  if (b.cols() == 0) {  // CHOLMOD rejects an empty right-hand side
    x.resize(impl_->n, 0);
    return;
  }
  if (impl_->symmetric) x = impl_->cholesky.solve(b);
  else x = impl_->lu.solve(b);
}

}  // namespace talus
