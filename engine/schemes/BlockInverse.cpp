#include "engine/schemes/BlockInverse.hpp"

#include <Eigen/LU>
#include <numeric>
#include <vector>

namespace talus {

namespace {

Index root(std::vector<Index>& parent, Index i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

}  // namespace

bool block_inverse(const SparseMatrix& A, Index max_block, SparseMatrix& inverse) {
  const Index n = A.rows();
  if (A.cols() != n) return false;
  std::vector<Index> parent(n);
  std::iota(parent.begin(), parent.end(), Index(0));
  for (Index i = 0; i < n; ++i)
    for (SparseMatrix::InnerIterator e(A, i); e; ++e) {
      const Index a = root(parent, i), b = root(parent, e.col());
      if (a != b) parent[std::max(a, b)] = std::min(a, b);
    }
  // Members of each block in increasing order (a block is named by its smallest index, its root).
  std::vector<Index> start(n + 1, 0), members(n), block(n);
  for (Index i = 0; i < n; ++i) ++start[(block[i] = root(parent, i)) + 1];
  for (Index i = 0; i < n; ++i) start[i + 1] += start[i];
  std::vector<Index> fill(start.begin(), start.end() - 1), position(n);
  for (Index i = 0; i < n; ++i) {
    position[i] = fill[block[i]] - start[block[i]];
    members[fill[block[i]]++] = i;
  }
  std::vector<Triplet> triplets;
  Matrix dense;
  for (Index b = 0; b < n; ++b) {
    const Index s = start[b], m = start[b + 1] - s;
    if (m == 0) continue;
    if (m > max_block) return false;
    dense.setZero(m, m);
    for (Index k = 0; k < m; ++k)
      for (SparseMatrix::InnerIterator e(A, members[s + k]); e; ++e) dense(k, position[e.col()]) = e.value();
    const Eigen::FullPivLU<Matrix> lu(dense);
    if (!lu.isInvertible()) return false;
    const Matrix inv = lu.inverse();
    for (Index k = 0; k < m; ++k)
      for (Index l = 0; l < m; ++l)
        if (inv(k, l) != 0.0) triplets.emplace_back(int(members[s + k]), int(members[s + l]), inv(k, l));
  }
  inverse.resize(n, n);
  inverse.setFromTriplets(triplets.begin(), triplets.end());
  return true;
}

}  // namespace talus
