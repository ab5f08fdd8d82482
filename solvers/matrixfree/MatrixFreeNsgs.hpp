#pragma once
// Matrix-free nonsmooth Gauss–Seidel for bead contacts (issue 4 item 3; seed 004, Coulomb friction with
// Moreau–Jean): W = H M⁻¹ Hᵀ is never formed. The bodies' velocities carry W r + q: they start from the free
// velocity plus the warm-start impulses, and each contact update Δr moves its two beads by M⁻¹ H_iᵀ Δr, so that
// u_i = H_i v + extra_i is always the current W_i r + q_i. One update costs two bead reads, one local solve
// and two bead writes, whatever the contact's neighbourhood — the layout Chrono and LMGC90 use for spheres.
//
// Local solve: the exact solution of the one-contact problem with the diagonal isotropic block of
// SweepContact.hpp (taking off, sticking, or sliding opposite to the tangential trial velocity) — the isotropic
// case of solvers/fc/LocalContactSolvers.hpp's analytic_solve, in closed form without a matrix inverse.
// With relaxation ω ≠ 1 the update is r ← proj_K(r + ω (r_local − r)) (projected SOR); ω = 1 is plain NSGS.
//
// Order and parallelism (SweepPartition.hpp): the blocks' interior contacts, each block sequentially by one
// thread, then the interface colours, each in parallel. With `symmetric`, odd sweeps visit every block
// backwards (symmetric Gauss–Seidel). The result is the same for any thread count. Stopping: the exact common
// residual of solvers/core/FrictionContactProblem.hpp, ‖r − proj_K(r − û)‖ / (1 + ‖q‖), is evaluated from the
// velocities (summed over fixed blocks, so its value does not depend on the thread count either) after
// `check_every` sweeps, then after as many sweeps as the convergence rate between the last two evaluations
// predicts; with `check_first` also once before the first sweep (a warm start that already solves the step
// costs one residual evaluation and no sweep).
//
// With `anderson` = m > 0 each sweep is followed by an Anderson extrapolation over the last m sweeps
// (AndersonSweep.hpp); a residual check that finds the residual higher than at the previous check restarts its
// history, and after `anderson_restarts` such restarts the solve goes on with plain sweeps. Contacts touching a
// capsule (`general`) and joint rows (`joints`) are not part of the extrapolated unknowns: with any of them the
// acceleration is off.
//
// Joints (`joints`, JointSweep.hpp): after the contacts of every sweep each block of joints sharing bodies is
// solved exactly, and the rows' errors enter the common residual. A solve without joints passes nullptr and
// runs exactly the code it ran before them.
//
// Rolling resistance (`rolling`, RollingResistance.hpp): one record per contact, in the contacts' order; each
// contact's rolling rows are solved right after its Coulomb rows and enter the common residual. Anderson is then
// off too (the rolling impulses are not extrapolated); an empty or null `rolling` runs the code without it.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "solvers/matrixfree/AndersonSweep.hpp"
#include "solvers/matrixfree/ResidualSample.hpp"
#include "solvers/matrixfree/BodyArrays.hpp"
#include "solvers/matrixfree/IsotropicContactSolve.hpp"
#include "solvers/matrixfree/RollingResistance.hpp"
#include "solvers/matrixfree/SweepContact.hpp"
#include "solvers/matrixfree/SweepPartition.hpp"
#include "solvers/core/SolverStats.hpp"

namespace talus::matrixfree {

struct MatrixFreeParameters {
  double tolerance = 1e-4;  // on the common residual
  int max_sweeps = 10000;
  int check_every = 4;      // sweeps between residual evaluations
  bool check_first = true;  // evaluate the residual of the warm start before sweeping
  double relaxation = 1.0;  // ω of projected SOR, in (0, 2)
  bool symmetric = false;   // alternate forward and backward sweeps inside the blocks
  bool nncg = false;        // nonsmooth nonlinear conjugate-gradient acceleration after each sweep
  int anderson = 0;         // memory m of the Anderson acceleration after each sweep (AndersonSweep.hpp); 0 = off
  int anderson_every = 1;   // sweeps per Anderson step (the map accelerated is that many sweeps)
  int anderson_restarts = 8;  // history restarts (a residual check that rose) after which the solve goes on plain
  double anderson_stall = 0.0;  // a check that lowered the residual by less than this fraction also restarts
  double anderson_warm = 0.0;   // > 0: a warm start within this factor of the tolerance is solved by plain sweeps
  int threads = 1;
};

// Scratch kept between calls (no allocation once the contact count stops growing).
struct MatrixFreeWorkspace {
  std::vector<double> block_sums;
  int residual_checks = 0;  // evaluations of the residual by the last solve (each costs about one sweep)
  bool record_history = false;  // keep every residual evaluation of the last solve in `history`
  std::vector<ResidualSample> history;
  // NNCG: reactions after the last sweep, the search direction, ‖Δr‖² of the last sweep and the last β.
  std::vector<Eigen::Vector3d> nncg_previous, nncg_direction;
  double nncg_delta = 0.0, nncg_beta = 0.0;
  AndersonWorkspace anderson;
};

struct GeneralContactSweep;  // GeneralContactSweep.hpp
struct JointSweep;           // JointSweep.hpp

// Solves the contacts' problem; q_norm = ‖q‖ of the problem (for the residual's scale). On entry the beads'
// velocities must already include the contacts' current impulses (apply_impulses); on exit they are the
// end-of-step velocities. stats.counters.sweeps = sweeps, colours = interface colours. `general` (contacts of
// other shapes, with their impulses already applied) is swept after the bead contacts in every sweep and
// counted in the residual; so are `joints` (their warm-start impulses already applied too).
solvers::SolverStats solve_matrix_free(std::vector<SweepContact>& contacts, const SweepLayout& layout,
                                       const BodyArrays& beads, double q_norm, const MatrixFreeParameters& params,
                                       MatrixFreeWorkspace& work, GeneralContactSweep* general = nullptr,
                                       JointSweep* joints = nullptr, RollingContacts* rolling = nullptr);

// `count` plain forward sweeps (ω = 1), no residual evaluation: the smoother of MultilevelNsgs.hpp.
void sweep_matrix_free(std::vector<SweepContact>& contacts, const SweepLayout& layout, const BodyArrays& beads, int count,
                       int threads, GeneralContactSweep* general = nullptr);

// Fills stats' sweeps, residual and status (Converged, MaxIterations, or Diverged for a non-finite residual),
// with a message naming `solver` and `detail` (what was spent) when it did not converge.
void set_solve_outcome(solvers::SolverStats& stats, int sweeps, double residual, double tolerance,
                       const std::string& solver, const std::string& detail);

// Adds M⁻¹ Hᵀ r of every contact to the beads' velocities (parallel over blocks, then interface colours), and the
// rolling torque impulses of `rolling` when given.
void apply_impulses(const std::vector<SweepContact>& contacts, const SweepLayout& layout, const BodyArrays& beads,
                    int threads, const RollingContacts* rolling = nullptr);

// The common residual of the current impulses, with u read from the beads' velocities (`general`'s contacts
// counted too).
double matrix_free_residual(const std::vector<SweepContact>& contacts, const BodyArrays& beads, double q_norm,
                            int threads, MatrixFreeWorkspace& work, GeneralContactSweep* general = nullptr,
                            const JointSweep* joints = nullptr, const RollingContacts* rolling = nullptr);

// Σ ‖H v + extra‖² over the contacts (‖q‖² on the free velocities), summed over fixed blocks in parallel.
double squared_contact_velocities(const std::vector<SweepContact>& contacts, const BodyArrays& beads, int threads,
                                  MatrixFreeWorkspace& work);

// The relative velocity u = H v + extra of one contact, in its frame: rel = v_b − r_b ω_b × n − (v_a + r_a ω_a × n),
// u = (n·rel + extra, t₁·rel, t₂·rel), written out in the order of operations of those Eigen expressions (the same
// bits; see push_impulse).
[[gnu::always_inline]] inline Eigen::Vector3d contact_velocity(const SweepContact& c, const BodyArrays& beads) {
  const double* n = c.n.data();
  auto cross_n = [n](const double* w, double* x) {  // x = w × n
    x[0] = w[1] * n[2] - w[2] * n[1];
    x[1] = w[2] * n[0] - w[0] * n[2];
    x[2] = w[0] * n[1] - w[1] * n[0];
  };
  double rel[3], x[3];
  {
    const double* v = beads.v[c.b].data();
    cross_n(beads.w[c.b].data(), x);
    for (int i = 0; i < 3; ++i) rel[i] = v[i] - c.rb * x[i];
  }
  if (c.a >= 0) {
    const double* v = beads.v[c.a].data();
    cross_n(beads.w[c.a].data(), x);
    for (int i = 0; i < 3; ++i) rel[i] -= v[i] + c.ra * x[i];
  }
  auto dot = [&rel](const Eigen::Vector3d& e) { return e[0] * rel[0] + e[1] * rel[1] + e[2] * rel[2]; };
  return Eigen::Vector3d(dot(c.n) + c.extra, dot(c.t1), dot(c.t2));
}

// One Gauss–Seidel update of a contact: the exact local solution from the beads' current velocities (Relaxed:
// r ← proj_K(r + ω (r_local − r)), projected SOR), and the beads moved by the change. The one kernel of the
// one-process and the distributed sweeps (solvers/distributed/DistributedNsgs.cpp).
template <bool Relaxed>
[[gnu::always_inline]] inline Eigen::Vector3d local_update(const SweepContact& c, const Eigen::Vector3d& u,
                                                           double omega) {
  Eigen::Vector3d r = c.r;
  isotropic_local_solve(c.wn, c.wt, c.mu, u, r);
  if constexpr (Relaxed) {
    r = c.r + omega * (r - c.r);
    project_isotropic(r, c.mu);
  }
  return r;
}

template <bool Relaxed>
[[gnu::always_inline]] inline void sweep_update(SweepContact& c, const BodyArrays& beads, double omega) {
  const Eigen::Vector3d r = local_update<Relaxed>(c, contact_velocity(c, beads), omega);
  const Eigen::Vector3d dr = r - c.r;
  c.r = r;
  push_impulse(c, dr, beads);
}

// sweep_update of c, then of d, for two contacts that share no bead: the same operations, so the same bits. Both
// read their beads before either writes, so the processor runs the two updates side by side. One update is a
// chain of dependent steps (the beads' velocities, the local solve's divisions and square root, the beads written
// back) that the next contact of a block usually waits for, since it shares a bead; the sweep is bound by that
// chain's latency, not by arithmetic or memory (docs/stack-height.md, "The sweep kernel").
template <bool Relaxed>
[[gnu::always_inline]] inline void sweep_update_pair(SweepContact& c, SweepContact& d, const BodyArrays& beads,
                                                     double omega) {
  const Eigen::Vector3d uc = contact_velocity(c, beads), ud = contact_velocity(d, beads);
  const Eigen::Vector3d rc = local_update<Relaxed>(c, uc, omega), rd = local_update<Relaxed>(d, ud, omega);
  const Eigen::Vector3d drc = rc - c.r, drd = rd - d.r;
  c.r = rc, d.r = rd;
  push_impulse(c, drc, beads);
  push_impulse(d, drd, beads);
}

// When to evaluate the residual next (solve_matrix_free's schedule, shared with the distributed solve): after
// check_every sweeps, then where the rate seen between the last two checks (last_residual at last_check sweeps,
// residual now) predicts the tolerance — never sooner than a quarter of the sweeps done (GS slows down as it
// goes, so the prediction is optimistic and the checks then cost a few percent), never later than 8 check_every
// (bounded overshoot). Depends on residual values only, hence not on the thread or rank count.
inline int next_residual_check(int sweeps, int last_check, double residual, double last_residual, double tolerance,
                               int check_every, int max_sweeps) {
  int gap = check_every;
  if (sweeps > last_check && residual < last_residual) {
    const double rate = std::pow(residual / last_residual, 1.0 / (sweeps - last_check));
    if (rate > 0.0 && rate < 1.0) {
      const double predicted = std::ceil(std::log(tolerance / residual) / std::log(rate));
      gap = static_cast<int>(std::clamp(std::max(predicted, 0.25 * sweeps), 1.0, 8.0 * check_every));
    }
  }
  return std::min(sweeps + gap, max_sweeps);
}

}  // namespace talus::matrixfree
