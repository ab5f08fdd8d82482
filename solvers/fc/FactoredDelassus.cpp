// The factored Delassus operator (see the header).
#include "solvers/fc/FactoredDelassus.hpp"

namespace talus::solvers {

namespace {

// Σ_k a_k b_k over two sparse columns (sorted row indices).
double column_dot(const SparseMatrixCol& A, Index ca, const SparseMatrixCol& B, Index cb) {
  SparseMatrixCol::InnerIterator ia(A, ca), ib(B, cb);
  double s = 0.0;
  while (ia && ib) {
    if (ia.row() < ib.row())
      ++ia;
    else if (ib.row() < ia.row())
      ++ib;
    else
      s += ia.value() * ib.value(), ++ia, ++ib;
  }
  return s;
}

}  // namespace

FactoredDelassus::FactoredDelassus(const GlobalFrictionContactProblem& g) {
  mass_solve(g, X_, v_free_);  // validates
  X_ = X_.pruned(0.0, 0.0);
  X_.makeCompressed();
  H_ = g.H;
  H_.makeCompressed();
  dim_ = g.dim;
  w_ = g.w;
  mu_ = g.mu;
  q_ = H_.transpose() * v_free_ + w_;
}

void FactoredDelassus::multiply(const Vector& x, Vector& y) const {
  const Vector t = X_ * x;
  y.noalias() = H_.transpose() * t;
}

void FactoredDelassus::diagonal_block(Index i, double* out) const {
  const int d = dim_;
  for (int a = 0; a < d; ++a)
    for (int b = 0; b < d; ++b) out[a * d + b] = column_dot(H_, i * d + a, X_, i * d + b);
}

const FrictionContactProblem& FactoredDelassus::assembled() const {
  if (!assembled_) {
    auto p = std::make_unique<FrictionContactProblem>();
    p->dim = dim_;
    p->W = SparseMatrixCol(H_.transpose() * X_).pruned(0.0, 0.0);
    p->q = q_;
    p->mu = mu_;
    assembled_ = std::move(p);
  }
  return *assembled_;
}

void FactoredDelassus::velocity(const Vector& r, Vector& v) const {
  v = v_free_;
  v.noalias() += X_ * r;
}

}  // namespace talus::solvers
