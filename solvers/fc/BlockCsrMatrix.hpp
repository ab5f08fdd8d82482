#pragma once
// Block-CSR copy of a Delassus matrix W for block Gauss–Seidel sweeps over contacts (issue 3 item 1).
//
// Eigen's scalar CSR walks one row at a time with an index per entry; a contact sweep wants the dim × dim blocks
// of one block row, contiguous, with one column index per block, and the diagonal block apart (the local
// solve uses it, the off-diagonal product does not). Rows may be stored in a chosen order (a sweep order or a
// colour order) so that every sweep reads memory front to back; block columns are then renumbered into the
// same order, so the solver works on the permuted unknowns r̃[k] = r[order[k]].
#include <vector>

#include "solvers/core/SparseTypes.hpp"

namespace talus::solvers {

struct BlockCsrMatrix {
  int dim = 3;                      // block size (2 or 3)
  Index block_rows = 0;             // contacts
  std::vector<int> row_start;       // block_rows + 1 offsets into block_col / the off-diagonal blocks
  std::vector<int> block_col;       // block column (in the stored order) of each off-diagonal block
  std::vector<double> off_diagonal; // dim*dim values per off-diagonal block, row-major within the block
  std::vector<double> diagonal;     // dim*dim values per block row, row-major; zero block if absent in W

  Index off_diagonal_blocks() const { return static_cast<Index>(block_col.size()); }
  const double* diagonal_block(Index k) const { return diagonal.data() + static_cast<size_t>(k) * dim * dim; }
};

// Copies W (m × m, m = dim · contacts) into block rows. `order[k]` is the original contact stored at row k
// (empty = natural order); it must be a permutation. Every block touched by a stored entry is kept; exact
// zeros are dropped first so that structural zeros written by some producers do not create false couplings.
BlockCsrMatrix make_block_csr(const SparseMatrix& W, int dim, const std::vector<int>& order = {});

// Adjacency of contacts: j is listed for i when W_ij or W_ji is a non-zero block (i ≠ j). CSR over contacts,
// natural order, each list sorted. Two contacts coupled this way must not be updated at the same time.
struct ContactGraph {
  std::vector<int> start;      // contacts + 1
  std::vector<int> neighbour;  // sorted within each contact's range
  Index contacts() const { return static_cast<Index>(start.size()) - 1; }
};
ContactGraph make_contact_graph(const SparseMatrix& W, int dim);

}  // namespace talus::solvers
