#include "solvers/matrixfree/AndersonSweep.hpp"

#include <algorithm>
#include <cmath>

#include "solvers/matrixfree/IsotropicContactSolve.hpp"

namespace talus::matrixfree {

namespace {

constexpr int kBlock = 2048;  // contacts per partial sum: fixed, so the sums' order never changes

}  // namespace

void anderson_begin(const std::vector<SweepContact>& contacts, int memory, AndersonWorkspace& w) {
  const std::size_t n = contacts.size();
  w.memory = std::clamp(memory, 1, AndersonWorkspace::kMaxMemory);
  const std::size_t stride = AndersonWorkspace::stride(w.memory);
  w.history.resize(n * stride);
  w.block_sums.assign(((n + kBlock - 1) / kBlock) * 2 * w.memory, 0.0);
  for (std::size_t i = 0; i < n; ++i) w.history[i * stride] = contacts[i].r;
  w.stored = 0, w.next = 0, w.has_last = false, w.extrapolate = false, w.restarts = 0;
}

void anderson_coefficients(AndersonWorkspace& w, const double* sums, bool record, int slot, int columns) {
  const int m = w.memory;
  w.extrapolate = false;
  if (record) {
    Eigen::Matrix<double, AndersonWorkspace::kMaxMemory, 1> rhs;
    for (int j = 0; j < columns; ++j) {
      w.gram(slot, j) = w.gram(j, slot) = sums[j];
      rhs[j] = sums[m + j];
    }
    w.stored = columns;
    w.next = (slot + 1) % m;
    // The least-squares problem through its Gram matrix with a relative Tikhonov shift: the differences of
    // a converging sweep become nearly parallel, and the shift keeps γ bounded where they do.
    const double scale = w.gram.diagonal().head(columns).maxCoeff();
    if (scale > 0.0 && std::isfinite(scale)) {
      using Small = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, AndersonWorkspace::kMaxMemory,
                                  AndersonWorkspace::kMaxMemory>;  // fixed storage: no allocation per sweep
      using SmallVector = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, AndersonWorkspace::kMaxMemory, 1>;
      Small a = w.gram.topLeftCorner(columns, columns);
      a.diagonal().array() += 1e-10 * scale;
      const SmallVector gamma = a.ldlt().solve(rhs.head(columns));
      if (gamma.allFinite()) {
        w.gamma.head(columns) = gamma;
        w.extrapolate = true;
      }
    }
  }
  w.has_last = true;
}

void anderson_step(std::vector<SweepContact>& contacts, const SweepLayout& L, const BodyArrays& beads,
                   AndersonWorkspace& w) {
  const int n = static_cast<int>(contacts.size());
  const int m = w.memory, blocks = (n + kBlock - 1) / kBlock;
  const std::size_t stride = AndersonWorkspace::stride(m);
  // Every thread reads the shared counters before the single below changes them (the omp for's barrier
  // separates the reads from the write).
  const bool record = w.has_last;
  const int slot = w.next, columns = record ? std::min(w.stored + 1, m) : 0;

  // Record f = G(r) − r and the new differences; the new Gram row and ΔFᵀf as sums over fixed blocks.
#pragma omp for schedule(static)
  for (int k = 0; k < blocks; ++k) {
    double sums[2 * AndersonWorkspace::kMaxMemory] = {};
    for (int i = k * kBlock, e = std::min(n, (k + 1) * kBlock); i < e; ++i)  // record: r_k, f_{k−1}, G(r_{k−1}), ΔF, ΔG
      anderson_record(&w.history[static_cast<std::size_t>(i) * stride], contacts[i].r, m, record, slot, columns, sums);
    std::copy(sums, sums + 2 * m, w.block_sums.begin() + static_cast<std::ptrdiff_t>(k) * 2 * m);
  }
#pragma omp single
  {
    double sums[2 * AndersonWorkspace::kMaxMemory] = {};
    for (int j = 0; j < (record ? columns : 0); ++j)
      for (int k = 0; k < blocks; ++k) sums[j] += w.block_sums[k * 2 * m + j], sums[m + j] += w.block_sums[k * 2 * m + m + j];
    anderson_coefficients(w, sums, record, slot, columns);
  }
  // r ← proj_K(G(r) − ΔG γ), the beads moved by the change; r is the next sweep's start. The interior of each
  // block, then the interface colours: the same conflict-free order as the sweep.
  if (w.extrapolate) {
    auto record = [&](int i) { return &w.history[static_cast<std::size_t>(i) * stride]; };
    auto move = [&](int i) { anderson_move(contacts[i], record(i), w, beads); };
    auto move_two = [&](int i, int j) { anderson_move_pair(contacts[i], record(i), contacts[j], record(j), w, beads); };
    for_blocks(L, false, move, move_two);
    for (int k = 0; k < L.interface_colours(); ++k) for_colour_pairs(L.interface, k, L.interface_begin(), false, move, move_two);
  } else {
#pragma omp for schedule(static)
    for (int i = 0; i < n; ++i) w.history[static_cast<std::size_t>(i) * stride] = contacts[i].r;
  }
}

}  // namespace talus::matrixfree
