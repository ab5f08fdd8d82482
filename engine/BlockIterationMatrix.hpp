#pragma once
// The block-diagonal iteration matrix M̂ of the Moreau–Jean θ-scheme (seed 000 eqs 36–37) in the ordering of
// DofLayout.hpp, kept factorised block by block:
//  - LTI system i: M + c_C C + c_K K (a sparse Cholesky, SimplicialLDLT), factorised when the coefficients
//    change — so once for a constant step size;
//  - nonlinear system i: a dense matrix set each Newton iteration (M − hθ ∂f/∂v − h²θw ∂f/∂q, not symmetric in
//    general, so a partial-pivoting LU);
//  - rigid bodies: the diagonal diag(m, m, m, I) inverted entry by entry, with a zero inverse for fixed bodies
//    (inv_mass = 0), whose velocities are then never changed by the one-step problem.
// It applies M̂⁻¹ to a global vector and forms the Delassus operator W = J M̂⁻¹ Jᵀ as a sparse matrix.
#include <memory>
#include <vector>

#include <Eigen/SparseCholesky>

#include "engine/DofLayout.hpp"

namespace talus {

class BlockIterationMatrix {
 public:
  // Sizes the blocks for the model and sets the rigid part. Call again when systems are added.
  void reset(const Model& model, const DofLayout& layout);

  // LTI blocks M + c_C C + c_K K; re-factorises only when (c_C, c_K) differ from the last call.
  // Throws StepFailure when a block is not positive definite.
  void set_lti(const Model& model, double c_C, double c_K);

  // Nonlinear block i (dense n × n). Throws StepFailure when it is singular.
  void set_nonlinear(Index i, const Matrix& A);

  // x ← M̂⁻¹ x on the whole global velocity vector.
  void solve_in_place(Vector& x);

  // W = J M̂⁻¹ Jᵀ (rows of J = constraint rows, columns = global velocities).
  void delassus(const SparseMatrix& J, SparseMatrix& W);

  long lti_factorizations() const { return lti_factorizations_; }

 private:
  struct DenseBlock {
    Index offset = 0, size = 0;
    Eigen::PartialPivLU<Matrix> lu;
  };
  std::vector<Index> lti_offset_, lti_size_;
  std::vector<std::unique_ptr<Eigen::SimplicialLDLT<SparseMatrixCol>>> lti_;
  std::vector<DenseBlock> nonlinear_;
  Vector rigid_inverse_;  // inverse diagonal, global velocity indices from rigid_offset_
  Index rigid_offset_ = 0;
  Index n_vels_ = 0;
  double c_C_ = -1.0, c_K_ = -1.0;
  long lti_factorizations_ = 0;

  // Delassus work space, reused between steps.
  std::vector<int> col_block_;                // global velocity index → LTI/nonlinear block id, −1 for rigid
  std::vector<std::vector<Index>> block_rows_;  // constraint rows touching each block
  std::vector<Triplet> triplets_;
  Matrix Jb_, Xb_;
  SparseMatrix Jscaled_;
  Vector scratch_;
};

}  // namespace talus
