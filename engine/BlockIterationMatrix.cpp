// Block-diagonal iteration matrix M̂ and the Delassus operator W = J M̂⁻¹ Jᵀ (see BlockIterationMatrix.hpp).
#include "engine/BlockIterationMatrix.hpp"

#include <cmath>
#include <string>

#include "engine/StepReport.hpp"

namespace talus {

void BlockIterationMatrix::reset(const Model& model, const DofLayout& layout) {
  n_vels_ = layout.n_vels;
  lti_offset_ = layout.lti_offset;
  lti_size_.clear();
  lti_.clear();
  for (const auto& s : model.lti) {
    lti_size_.push_back(s.dofs());
    lti_.push_back(std::make_unique<Eigen::SimplicialLDLT<SparseMatrixCol>>());
  }
  c_C_ = c_K_ = -1.0;
  nonlinear_.assign(model.nonlinear.size(), DenseBlock{});
  for (size_t i = 0; i < model.nonlinear.size(); ++i) {
    nonlinear_[i].offset = layout.nonlinear_offset[i];
    nonlinear_[i].size = model.nonlinear[i].dofs();
  }
  rigid_offset_ = layout.rigid_vel_offset;
  rigid_inverse_.setZero(6 * layout.bodies);
  const RigidBodies& b = model.bodies;
  for (Index k = 0; k < layout.bodies; ++k) {
    if (b.inv_mass[k] == 0.0) continue;
    rigid_inverse_.segment<3>(6 * k).setConstant(b.inv_mass[k]);
    rigid_inverse_.segment<3>(6 * k + 3) = b.inertia[k].cwiseInverse();
  }
  col_block_.assign(layout.n_vels, -1);
  const Index n_lti = static_cast<Index>(model.lti.size());
  for (Index i = 0; i < n_lti; ++i)
    for (Index j = 0; j < lti_size_[i]; ++j) col_block_[lti_offset_[i] + j] = static_cast<int>(i);
  for (size_t i = 0; i < nonlinear_.size(); ++i)
    for (Index j = 0; j < nonlinear_[i].size; ++j)
      col_block_[nonlinear_[i].offset + j] = static_cast<int>(n_lti + i);
  block_rows_.assign(n_lti + nonlinear_.size(), {});
}

void BlockIterationMatrix::set_lti(const Model& model, double c_C, double c_K) {
  if (c_C == c_C_ && c_K == c_K_) return;
  for (size_t i = 0; i < lti_.size(); ++i) {
    const LagrangianLti& s = model.lti[i];
    SparseMatrixCol A = s.M;
    if (s.C.size() && c_C != 0.0) A += c_C * SparseMatrixCol(s.C);
    if (s.K.size() && c_K != 0.0) A += c_K * SparseMatrixCol(s.K);
    lti_[i]->compute(A);
    if (lti_[i]->info() != Eigen::Success || (lti_[i]->vectorD().array() <= 0.0).any())
      throw StepFailure("iteration matrix of LTI system " + std::to_string(i) + " '" + s.name +
                        "' (M + hθC + h²θ²K) is not positive definite");
    ++lti_factorizations_;
  }
  c_C_ = c_C;
  c_K_ = c_K;
}

void BlockIterationMatrix::set_nonlinear(Index i, const Matrix& A) {
  DenseBlock& b = nonlinear_[i];
  b.lu.compute(A);
  const double rcond = b.lu.rcond();
  if (!(rcond > 1e-14))
    throw StepFailure("Newton iteration matrix of nonlinear system " + std::to_string(i) +
                      " is singular (reciprocal condition number " + std::to_string(rcond) + ")");
}

void BlockIterationMatrix::solve_in_place(Vector& x) {
  for (size_t i = 0; i < lti_.size(); ++i) {
    scratch_ = x.segment(lti_offset_[i], lti_size_[i]);
    x.segment(lti_offset_[i], lti_size_[i]) = lti_[i]->solve(scratch_);
  }
  for (const DenseBlock& b : nonlinear_) {
    scratch_ = x.segment(b.offset, b.size);
    x.segment(b.offset, b.size) = b.lu.solve(scratch_);
  }
  auto r = x.segment(rigid_offset_, rigid_inverse_.size());
  r = r.cwiseProduct(rigid_inverse_);
}

void BlockIterationMatrix::delassus(const SparseMatrix& J, SparseMatrix& W) {
  const Index m = J.rows();
  for (auto& rows : block_rows_) rows.clear();
  triplets_.clear();
  // Rigid columns: W_r = S Sᵀ with S = J D^{1/2}, symmetric by construction.
  std::vector<Triplet>& t = triplets_;
  for (Index r = 0; r < m; ++r)
    for (SparseMatrix::InnerIterator it(J, r); it; ++it) {
      const int b = col_block_[it.col()];
      if (b < 0) {
        const double d = rigid_inverse_[it.col() - rigid_offset_];
        if (d != 0.0) t.emplace_back(static_cast<int>(r), static_cast<int>(it.col()), it.value() * std::sqrt(d));
      } else if (block_rows_[b].empty() || block_rows_[b].back() != r) {
        block_rows_[b].push_back(r);
      }
    }
  Jscaled_.resize(m, n_vels_);
  Jscaled_.setFromTriplets(t.begin(), t.end());
  W = Jscaled_ * SparseMatrix(Jscaled_.transpose());

  // LTI and nonlinear blocks: dense products on the rows that touch each block.
  t.clear();
  const Index n_lti = static_cast<Index>(lti_.size());
  for (size_t b = 0; b < block_rows_.size(); ++b) {
    const std::vector<Index>& rows = block_rows_[b];
    if (rows.empty()) continue;
    const bool is_lti = static_cast<Index>(b) < n_lti;
    const Index off = is_lti ? lti_offset_[b] : nonlinear_[b - n_lti].offset;
    const Index n = is_lti ? lti_size_[b] : nonlinear_[b - n_lti].size;
    const Index k = static_cast<Index>(rows.size());
    Jb_.setZero(k, n);
    for (Index i = 0; i < k; ++i)
      for (SparseMatrix::InnerIterator it(J, rows[i]); it; ++it)
        if (it.col() >= off && it.col() < off + n) Jb_(i, it.col() - off) = it.value();
    if (is_lti)
      Xb_ = lti_[b]->solve(Matrix(Jb_.transpose()));
    else
      Xb_ = nonlinear_[b - n_lti].lu.solve(Jb_.transpose());
    Matrix Wb = Jb_ * Xb_;
    if (is_lti) Wb = 0.5 * (Wb + Wb.transpose()).eval();  // symmetric M̂: remove the round-off asymmetry
    for (Index j = 0; j < k; ++j)
      for (Index i = 0; i < k; ++i) t.emplace_back(static_cast<int>(rows[i]), static_cast<int>(rows[j]), Wb(i, j));
  }
  if (!t.empty()) {
    SparseMatrix Wblocks(m, m);
    Wblocks.setFromTriplets(t.begin(), t.end());
    W += Wblocks;
  }
}

}  // namespace talus
