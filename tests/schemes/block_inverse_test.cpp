// engine/schemes/BlockInverse: the explicit inverse of a matrix made of independent blocks, whose rows and
// columns are interleaved (as the global velocities of bodies and FE systems are), against the identity, and the
// refusals (a block too large, a singular block) that send the caller back to its global factorisation.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include "engine/schemes/BlockInverse.hpp"

using namespace talus;

namespace {

// Blocks of the given sizes on interleaved indices: block b owns the indices i with owner[i] = b. Each block is
// a random well-conditioned matrix (not symmetric: the schemes' iteration matrices need not be); `banded`
// blocks keep only a band, like a beam's.
SparseMatrix interleaved_blocks(const std::vector<int>& sizes, std::vector<int>& owner, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  owner.clear();
  for (std::size_t b = 0; b < sizes.size(); ++b) owner.insert(owner.end(), sizes[b], int(b));
  std::shuffle(owner.begin(), owner.end(), rng);
  std::vector<std::vector<int>> members(sizes.size());
  for (int i = 0; i < int(owner.size()); ++i) members[owner[i]].push_back(i);
  std::vector<Triplet> t;
  for (const auto& m : members)
    for (std::size_t k = 0; k < m.size(); ++k)
      for (std::size_t l = 0; l < m.size(); ++l)
        if (k == l)
          t.emplace_back(m[k], m[l], 4.0 + u(rng));
        else if ((k > l ? k - l : l - k) <= 2)
          t.emplace_back(m[k], m[l], 0.5 * u(rng));
  SparseMatrix A(int(owner.size()), int(owner.size()));
  A.setFromTriplets(t.begin(), t.end());
  return A;
}

}  // namespace

TEST_CASE("block_inverse inverts interleaved independent blocks exactly, and refuses large or singular blocks",
          "[schemes]") {
  std::mt19937 rng(7);
  std::vector<int> owner;
  const SparseMatrix A = interleaved_blocks({6, 6, 40, 1, 6, 13}, owner, rng);
  SparseMatrix inv;
  REQUIRE(block_inverse(A, 64, inv));
  const Matrix product = Matrix(A) * Matrix(inv);
  CHECK((product - Matrix::Identity(A.rows(), A.cols())).lpNorm<Eigen::Infinity>() < 1e-13);
  // No entry couples two blocks: the inverse is as sparse as the blocks.
  for (int i = 0; i < inv.outerSize(); ++i)
    for (SparseMatrix::InnerIterator e(inv, i); e; ++e) REQUIRE(owner[e.row()] == owner[e.col()]);

  SparseMatrix untouched = inv;
  CHECK_FALSE(block_inverse(A, 39, inv));  // the 40-velocity block is over the limit
  CHECK(inv.isApprox(untouched));

  SparseMatrix singular = A;
  const int row = int(std::find(owner.begin(), owner.end(), 2) - owner.begin());  // a row of the 40-block
  for (SparseMatrix::InnerIterator e(singular, row); e; ++e) e.valueRef() = 0.0;
  CHECK_FALSE(block_inverse(singular, 64, inv));
}
