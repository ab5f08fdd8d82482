// Condensation of a global friction-contact problem to the local one (see GlobalFrictionContactProblem.hpp).
#include "solvers/fc/GlobalFrictionContactProblem.hpp"

#include <Eigen/CholmodSupport>
#include <Eigen/UmfPackSupport>
#include <cmath>
#include <stdexcept>
#include <string>

namespace talus::solvers {

void validate(const GlobalFrictionContactProblem& p) {
  if (p.dim != 2 && p.dim != 3) throw std::invalid_argument("global friction problem: dim must be 2 or 3");
  const Index n = p.M.rows();
  const Index m = p.dim * p.mu.size();
  if (p.M.cols() != n)
    throw std::invalid_argument("global friction problem: M is " + std::to_string(p.M.rows()) + "x" +
                                std::to_string(p.M.cols()) + ", not square");
  if (p.H.rows() != n || p.H.cols() != m)
    throw std::invalid_argument("global friction problem: H is " + std::to_string(p.H.rows()) + "x" +
                                std::to_string(p.H.cols()) + ", expected " + std::to_string(n) + "x" +
                                std::to_string(m) + " (dofs x dim*contacts)");
  if (p.f.size() != n) throw std::invalid_argument("global friction problem: f does not match M");
  if (p.w.size() != m) throw std::invalid_argument("global friction problem: w does not match H");
  for (Index i = 0; i < p.mu.size(); ++i)
    if (!(p.mu[i] >= 0.0) || !std::isfinite(p.mu[i]))
      throw std::invalid_argument("global friction problem: mu[" + std::to_string(i) + "] is negative or not finite");
  if (!p.f.allFinite() || !p.w.allFinite() || !p.M.coeffs().allFinite() || !p.H.coeffs().allFinite())
    throw std::invalid_argument("global friction problem: NaN or Inf in M, H, f or w");
}

namespace {

bool is_symmetric(const SparseMatrixCol& M) {
  const SparseMatrixCol difference = M - SparseMatrixCol(M.transpose());
  const double scale = M.coeffs().size() ? M.coeffs().cwiseAbs().maxCoeff() : 0.0;
  return difference.size() == 0 || difference.coeffs().size() == 0 ||
         difference.coeffs().cwiseAbs().maxCoeff() <= 1e-14 * scale;
}

// M⁻¹ H (sparse, as sparse as the factor lets it be) and M⁻¹ f from one factorisation chosen by M's symmetry.
template <class Factorisation>
bool solve_both(Factorisation& factor, const SparseMatrixCol& H, const Vector& f, SparseMatrixCol& X, Vector& y) {
  if (factor.info() != Eigen::Success) return false;
  X = factor.solve(H);
  if (factor.info() != Eigen::Success) return false;
  y = factor.solve(f);
  return factor.info() == Eigen::Success && y.allFinite() && X.coeffs().allFinite();
}

void solve_with_mass(const SparseMatrixCol& M, const SparseMatrixCol& H, const Vector& f, SparseMatrixCol& X,
                     Vector& y) {
  if (is_symmetric(M)) {
    Eigen::CholmodDecomposition<SparseMatrixCol, Eigen::Lower> cholesky;
    cholesky.cholmod().print = 0;  // a failed Cholesky falls back to LU; no console noise
    cholesky.compute(M);
    if (solve_both(cholesky, H, f, X, y)) return;
  }
  Eigen::UmfPackLU<SparseMatrixCol> lu;
  lu.compute(M);
  if (!solve_both(lu, H, f, X, y))
    throw std::runtime_error("global friction problem: M is singular, the problem cannot be condensed");
}

}  // namespace

void mass_solve(const GlobalFrictionContactProblem& g, SparseMatrixCol& X, Vector& y) {
  validate(g);
  SparseMatrixCol M = g.M;
  M.makeCompressed();
  // SuiteSparse dereferences the value arrays of an empty matrix; a row without entries is singular anyway.
  Eigen::VectorXi row_entries = Eigen::VectorXi::Zero(M.rows());
  for (Index k = 0; k < M.nonZeros(); ++k) ++row_entries[M.innerIndexPtr()[k]];
  for (Index k = 0; k < M.rows(); ++k)
    if (row_entries[k] == 0)
      throw std::runtime_error("global friction problem: M is singular (row " + std::to_string(k) + " is empty)");
  solve_with_mass(M, SparseMatrixCol(g.H), g.f, X, y);
}

FrictionContactProblem condense_to_local(const GlobalFrictionContactProblem& g) {
  SparseMatrixCol X;
  Vector y;
  mass_solve(g, X, y);
  const SparseMatrixCol H = g.H;
  FrictionContactProblem p;
  p.dim = g.dim;
  p.W = SparseMatrixCol(H.transpose() * X).pruned(0.0, 0.0);
  p.q = H.transpose() * y + g.w;
  p.mu = g.mu;
  return p;
}

}  // namespace talus::solvers
