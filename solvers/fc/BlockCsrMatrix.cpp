// Builds the block-CSR copy of W and the contact coupling graph (see BlockCsrMatrix.hpp).
#include "solvers/fc/BlockCsrMatrix.hpp"

#include <algorithm>
#include <cassert>
#include <numeric>

namespace talus::solvers {

namespace {

// Block columns of each block row that hold at least one non-zero entry, sorted, in original numbering.
std::vector<std::vector<int>> block_pattern(const SparseMatrix& W, int dim) {
  const Index n = W.rows() / dim;
  std::vector<std::vector<int>> pattern(n);
  std::vector<Index> last_row(n, -1);
  for (Index I = 0; I < n; ++I) {
    for (int a = 0; a < dim; ++a) {
      for (SparseMatrix::InnerIterator it(W, I * dim + a); it; ++it) {
        if (it.value() == 0.0) continue;
        const Index J = it.col() / dim;
        if (last_row[J] == I) continue;
        last_row[J] = I;
        pattern[I].push_back(static_cast<int>(J));
      }
    }
    std::sort(pattern[I].begin(), pattern[I].end());
  }
  return pattern;
}

}  // namespace

BlockCsrMatrix make_block_csr(const SparseMatrix& W, int dim, const std::vector<int>& order) {
  assert(dim == 2 || dim == 3);
  assert(W.rows() == W.cols() && W.rows() % dim == 0);
  const Index n = W.rows() / dim;
  const int bb = dim * dim;
  std::vector<int> stored_at(n);  // original contact -> stored row
  std::vector<int> original(n);   // stored row -> original contact
  if (order.empty()) {
    std::iota(original.begin(), original.end(), 0);
  } else {
    assert(static_cast<Index>(order.size()) == n);
    original = order;
  }
  for (Index k = 0; k < n; ++k) stored_at[original[k]] = static_cast<int>(k);

  const auto pattern = block_pattern(W, dim);

  BlockCsrMatrix B;
  B.dim = dim;
  B.block_rows = n;
  B.row_start.assign(n + 1, 0);
  for (Index k = 0; k < n; ++k) {
    const auto& cols = pattern[original[k]];
    const bool has_diagonal = std::binary_search(cols.begin(), cols.end(), original[k]);
    B.row_start[k + 1] = B.row_start[k] + static_cast<int>(cols.size()) - (has_diagonal ? 1 : 0);
  }
  B.block_col.resize(B.row_start[n]);
  B.off_diagonal.assign(static_cast<size_t>(B.row_start[n]) * bb, 0.0);
  B.diagonal.assign(static_cast<size_t>(n) * bb, 0.0);

  std::vector<int> slot(n, -1);  // stored block column -> position in the current row (-2 = diagonal)
  std::vector<int> cols;
  for (Index k = 0; k < n; ++k) {
    const Index I = original[k];
    cols.clear();
    for (int J : pattern[I])
      if (J != I) cols.push_back(stored_at[J]);
    std::sort(cols.begin(), cols.end());
    const int begin = B.row_start[k];
    for (size_t s = 0; s < cols.size(); ++s) {
      B.block_col[begin + s] = cols[s];
      slot[cols[s]] = begin + static_cast<int>(s);
    }
    for (int a = 0; a < dim; ++a) {
      for (SparseMatrix::InnerIterator it(W, I * dim + a); it; ++it) {
        const Index J = it.col() / dim;
        const int b = static_cast<int>(it.col() % dim);
        if (J == I) {
          B.diagonal[static_cast<size_t>(k) * bb + a * dim + b] += it.value();
        } else if (it.value() != 0.0) {
          B.off_diagonal[static_cast<size_t>(slot[stored_at[J]]) * bb + a * dim + b] += it.value();
        }
      }
    }
    for (int c : cols) slot[c] = -1;
  }
  return B;
}

ContactGraph make_contact_graph(const SparseMatrix& W, int dim) {
  assert(W.rows() == W.cols() && W.rows() % dim == 0);
  const Index n = W.rows() / dim;
  const auto pattern = block_pattern(W, dim);
  // Symmetrise the pattern: files store W only approximately symmetric, and a one-sided coupling still
  // forbids a simultaneous update.
  std::vector<std::vector<int>> adjacency(n);
  for (Index I = 0; I < n; ++I)
    for (int J : pattern[I])
      if (J != I) {
        adjacency[I].push_back(J);
        adjacency[J].push_back(static_cast<int>(I));
      }
  ContactGraph G;
  G.start.assign(n + 1, 0);
  for (Index I = 0; I < n; ++I) {
    auto& a = adjacency[I];
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
    G.start[I + 1] = G.start[I] + static_cast<int>(a.size());
  }
  G.neighbour.reserve(G.start[n]);
  for (Index I = 0; I < n; ++I) G.neighbour.insert(G.neighbour.end(), adjacency[I].begin(), adjacency[I].end());
  return G;
}

}  // namespace talus::solvers
