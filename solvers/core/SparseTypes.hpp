#pragma once
// The sparse and dense types every layer exchanges. Row-major sparse because Gauss–Seidel sweeps and
// matrix–vector products in the solvers walk rows; conversions to other storages are explicit at call sites.
#include <Eigen/Dense>
#include <Eigen/Sparse>

namespace talus {

using Index = Eigen::Index;
using Vector = Eigen::VectorXd;
using Matrix = Eigen::MatrixXd;
using SparseMatrix = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;
using SparseMatrixCol = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;
using Triplet = Eigen::Triplet<double, int>;

}  // namespace talus
