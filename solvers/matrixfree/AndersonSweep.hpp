#pragma once
// Anderson acceleration of the matrix-free sweep (issue 10; type II, Walker & Ni, SIAM J. Numer. Anal. 49,
// 2011, the extrapolation solvers/fc/AndersonAcceleration.hpp applies to the assembled NSGS). The sweep is a
// fixed-point map r ← G(r) of the contacts' impulses; after each sweep
//
//   f_k = G(r_k) − r_k,  γ = argmin ‖f_k − ΔF γ‖,  r_{k+1} = proj_K(G(r_k) − ΔG γ),
//
// with ΔF, ΔG the last m differences of f and of G, and the beads moved by M⁻¹ Hᵀ (r_{k+1} − G(r_k)) so that
// their velocities stay those of the impulses.
//
// Why: in a pile that has landed and creeps, the warm start is a few hundred times the tolerance off, the first
// ~100 sweeps remove most of that, and then Gauss–Seidel converges linearly at a rate of about 0.999 per sweep
// on a set of sticking and sliding contacts that no longer changes (docs/stack-height.md: step 440 of the
// default run needs ~2 200 sweeps, spread over thousands of sticking contacts with velocity errors of 10⁻⁵ m/s).
// On a fixed active set the sweep is an affine map, where Anderson's extrapolation acts like GMRES on its
// slow modes: on the same steps, 4–5× fewer sweeps with m = 1–3.
//
// Cost and layout: the history is kept per contact (2m vectors next to r_k, f and G(r_k) of that contact, in one
// record), so
// one extra pass after the sweep records the new differences and forms the m new Gram entries and ΔFᵀf, and a
// second pass (only when extrapolating) moves the impulses and the beads. Sums run over fixed blocks of
// contacts, and the impulse pass follows the sweep's blocks and interface colours: the result is the same for
// any thread count. A step that raises the residual is not taken back; the caller restarts the history
// (anderson_restart) when a residual check rises, the usual safeguard of the nonsmooth case.
#include <Eigen/Dense>
#include <vector>

#include "solvers/matrixfree/BodyArrays.hpp"
#include "solvers/matrixfree/IsotropicContactSolve.hpp"
#include "solvers/matrixfree/SweepContact.hpp"
#include "solvers/matrixfree/SweepPartition.hpp"

namespace talus::matrixfree {

struct AndersonWorkspace {
  static constexpr int kMaxMemory = 8;
  int memory = 0;           // m, 1..kMaxMemory
  int stored = 0;           // differences in the history
  int next = 0;             // ring slot of the next difference
  bool has_last = false;    // f and G of the previous sweep are recorded
  bool extrapolate = false; // the last step moved the impulses
  int restarts = 0;         // history restarts during the last solve
  // Per contact, one record of stride(m) vectors (one stream for both passes): r_k, f_{k−1}, G(r_{k−1}),
  // ΔF_0..ΔF_{m−1}, ΔG_0..ΔG_{m−1}.
  std::vector<Eigen::Vector3d> history;
  static constexpr std::size_t stride(int m) { return 3 + 2 * static_cast<std::size_t>(m); }
  std::vector<double> block_sums;                      // per block of contacts: m Gram entries, m entries of ΔFᵀf
  Eigen::Matrix<double, kMaxMemory, kMaxMemory> gram;
  Eigen::Matrix<double, kMaxMemory, 1> gamma;
};

// Before the first sweep of a solve (outside a parallel region): r_0 = the contacts' current impulses, no
// history. memory is clamped to [1, kMaxMemory]. Allocates only when the contact count grows.
void anderson_begin(const std::vector<SweepContact>& contacts, int memory, AndersonWorkspace& work);

// Forget the differences (the next step only records).
inline void anderson_restart(AndersonWorkspace& work) {
  work.stored = 0, work.next = 0, work.has_last = false;
  ++work.restarts;
}

// The extrapolation from the new Gram row sums[0..columns) and ΔFᵀf sums[m..m + columns) (summed over every
// contact; record: a difference was recorded into ring slot `slot`): sets gram, gamma, stored, next, extrapolate
// and has_last. Shared by anderson_step and the distributed sweep (solvers/distributed/DistributedNsgs.cpp).
void anderson_coefficients(AndersonWorkspace& work, const double* sums, bool record, int slot, int columns);

// One contact's part of a record after a sweep (x: its history record; g = G(r), its impulse now): the new
// differences into ring slot `slot` when `record`, and their terms of the new Gram row and of ΔFᵀf added to
// sums[0..columns) and sums[m..m + columns). The one step of anderson_step and of the distributed sweeps
// (solvers/distributed/), so that all sum the same terms in the same order.
[[gnu::always_inline]] inline void anderson_record(Eigen::Vector3d* x, const Eigen::Vector3d& g, int m, bool record, int slot, int columns,
                            double* sums) {
  Eigen::Vector3d* h = x + 3;
  const Eigen::Vector3d f = g - x[0];
  if (record) {
    h[slot] = f - x[1];
    h[m + slot] = g - x[2];
    for (int j = 0; j < columns; ++j) {
      sums[j] += h[slot].dot(h[j]);
      sums[m + j] += h[j].dot(f);
    }
  }
  x[1] = f, x[2] = g;
}

// One contact's extrapolated impulse proj_K(G(r) − ΔG γ) (x: its record, whose r_k it becomes).
[[gnu::always_inline]] inline Eigen::Vector3d anderson_point(const SweepContact& c, Eigen::Vector3d* x,
                                                             const AndersonWorkspace& w) {
  const Eigen::Vector3d* dg = x + 3 + w.memory;
  Eigen::Vector3d r = c.r;
  for (int j = 0; j < w.stored; ++j) {  // r −= γ_j ΔG_j, written out: the compiler kept Eigen's −= out of line here
    const double g = w.gamma[j];
    r[0] -= g * dg[j][0], r[1] -= g * dg[j][1], r[2] -= g * dg[j][2];
  }
  project_isotropic(r, c.mu);
  x[0] = r;
  return r;
}

// One contact moved to its extrapolated impulse, its bodies with it.
[[gnu::always_inline]] inline void anderson_move(SweepContact& c, Eigen::Vector3d* x, const AndersonWorkspace& w,
                                                 const BodyArrays& bodies) {
  const Eigen::Vector3d r = anderson_point(c, x, w);
  if (r == c.r) return;  // open contacts stay open: no bead to move
  push_impulse(c, r - c.r, bodies);
  c.r = r;
}

// anderson_move of c, then of d, two contacts that share no body, side by side (the same bits).
[[gnu::always_inline]] inline void anderson_move_pair(SweepContact& c, Eigen::Vector3d* x, SweepContact& d,
                                                      Eigen::Vector3d* y, const AndersonWorkspace& w,
                                                      const BodyArrays& bodies) {
  const Eigen::Vector3d rc = anderson_point(c, x, w), rd = anderson_point(d, y, w);
  if (rc != c.r) push_impulse(c, rc - c.r, bodies), c.r = rc;
  if (rd != d.r) push_impulse(d, rd - d.r, bodies), d.r = rd;
}

// After a sweep, inside the solver's parallel region (every thread calls it): records the sweep in the history
// and, once there is one, moves the impulses to the extrapolated point and the beads with them.
void anderson_step(std::vector<SweepContact>& contacts, const SweepLayout& layout, const BodyArrays& beads,
                   AndersonWorkspace& work);

}  // namespace talus::matrixfree
