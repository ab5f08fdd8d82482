#pragma once
// The explicit inverse of a sparse matrix that splits into small independent blocks (engine/schemes' iteration
// and mass matrices: a 6 × 6 block per rigid body, one banded block per FE body), as a sparse matrix.
//
// Why: the second-order schemes need the responses S⁻¹ Jᵀ and M⁻¹ Jᵀ of every constraint row. Formed column by
// column with a global factorisation they are dense n × rows matrices: with a thousand beads on a beam (6 000
// velocities, 10 000 rows) that is gigabytes and minutes per step, while each column has at most one body's or
// one beam's entries. With the blocks' inverses as a sparse matrix, the responses are sparse products.
//
// The blocks are the connected components of the matrix's pattern (rows i, j joined by a nonzero A_ij or A_ji).
#include "engine/DofLayout.hpp"

namespace talus {

// A⁻¹ as a sparse matrix, or false (inverse untouched) when a block is larger than `max_block` or singular, in
// which case the caller keeps its global factorisation.
bool block_inverse(const SparseMatrix& A, Index max_block, SparseMatrix& inverse);

}  // namespace talus
