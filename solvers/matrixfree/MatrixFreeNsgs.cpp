#include "solvers/matrixfree/MatrixFreeNsgs.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "solvers/core/NumberText.hpp"
#include "solvers/matrixfree/GeneralContactSweep.hpp"
#include "solvers/matrixfree/IsotropicContactSolve.hpp"
#include "solvers/matrixfree/JointSweep.hpp"
#include "solvers/matrixfree/RollingResistance.hpp"
#include "solvers/matrixfree/SweepSchedule.hpp"
#include "solvers/core/FrictionContactProblem.hpp"

namespace talus::matrixfree {

namespace {

constexpr int kBlock = 2048;  // contacts per residual block: fixed, so the sum's order never changes

// With Rolling, the contact's rolling rows (RollingResistance.hpp) are solved right after its Coulomb rows.
template <bool Relaxed, bool Rolling>
inline void update(SweepContact& c, RollingContact* k, const BodyArrays& beads, double omega) {
  sweep_update<Relaxed>(c, beads, omega);
  if constexpr (Rolling) rolling_update(c, *k, beads);
}

template <bool Relaxed, bool Rolling>
inline void update_at(std::vector<SweepContact>& contacts, RollingContact* roll, int i, const BodyArrays& beads,
                      double omega) {
  if constexpr (Rolling)
    update<Relaxed, true>(contacts[i], roll + i, beads, omega);
  else
    update<Relaxed, false>(contacts[i], nullptr, beads, omega);
}

template <bool Relaxed, bool Rolling>
void sweep_range(std::vector<SweepContact>& contacts, RollingContact* roll, int s, int e, bool backward,
                 const BodyArrays& beads, double omega) {
  if (backward) {
    for (int i = e - 1; i >= s; --i) update_at<Relaxed, Rolling>(contacts, roll, i, beads, omega);
  } else {
    for (int i = s; i < e; ++i) update_at<Relaxed, Rolling>(contacts, roll, i, beads, omega);
  }
}

// One sweep, inside the parallel region: blocks (dynamic: a held-up thread does not hold the others, and the
// blocks are independent, so the result does not depend on who sweeps which), then the interface colours.
// A backward sweep reverses the whole order. Two contacts of different blocks, or of one proper colour, are updated
// side by side (for_blocks, for_colour_pairs): the same bits, more updates in flight.
template <bool Relaxed, bool Rolling = false>
void sweep(std::vector<SweepContact>& contacts, const SweepLayout& L, const BodyArrays& beads, double omega,
           bool backward, RollingContact* roll = nullptr) {
  const ContactColours& ic = L.interface;
  const int nc = L.interface_colours(), base = L.interface_begin();
  auto one = [&](int i) { update_at<Relaxed, Rolling>(contacts, roll, i, beads, omega); };
  auto two = [&](int i, int j) {  // i and j share no bead: each one's rolling rows may follow both Coulomb updates
    sweep_update_pair<Relaxed>(contacts[i], contacts[j], beads, omega);
    if constexpr (Rolling) rolling_update(contacts[i], roll[i], beads), rolling_update(contacts[j], roll[j], beads);
  };
  auto interface_colour = [&](int k) { for_colour_pairs(ic, k, base, backward, one, two); };
  if (backward)
    for (int k = nc - 1; k >= 0; --k) interface_colour(k);
  for_blocks(L, backward, one, two);
  if (!backward)
    for (int k = 0; k < nc; ++k) interface_colour(k);
}

// Nonsmooth nonlinear conjugate gradients (NNCG; Silcowitz et al.; Bullet's btNNCGConstraintSolver), after a
// sweep, inside the parallel region: Δ = r − r_prev, β = ‖Δ‖² / ‖Δ_prev‖²; β > 1 restarts (p = Δ), otherwise
// r += β p, the beads move by M⁻¹ Hᵀ (β p) (so velocities stay those of the reactions), and p = Δ + β p. The
// next sweep projects back on the cones. Sums over fixed blocks: β does not depend on the thread count.
void nncg_step(std::vector<SweepContact>& contacts, const SweepLayout& L, const BodyArrays& beads,
               MatrixFreeWorkspace& work) {
  const int n = static_cast<int>(contacts.size());
  const int blocks = static_cast<int>(work.block_sums.size());
#pragma omp for schedule(static)
  for (int k = 0; k < blocks; ++k) {
    double s = 0.0;
    for (int i = k * kBlock, e = std::min(n, (k + 1) * kBlock); i < e; ++i)
      s += (contacts[i].r - work.nncg_previous[i]).squaredNorm();
    work.block_sums[k] = s;
  }
#pragma omp single
  {
    double d = 0.0;
    for (double v : work.block_sums) d += v;
    work.nncg_beta = work.nncg_delta > 0.0 ? d / work.nncg_delta : 2.0;
    work.nncg_delta = d;
  }
  const double beta = work.nncg_beta;
  auto accelerate = [&](int i) {
    SweepContact& c = contacts[i];
    const Eigen::Vector3d delta = c.r - work.nncg_previous[i];
    if (beta > 1.0) {
      work.nncg_direction[i] = delta;
    } else {
      const Eigen::Vector3d step = beta * work.nncg_direction[i];
      c.r += step;
      push_impulse(c, step, beads);
      work.nncg_direction[i] = delta + step;
    }
    work.nncg_previous[i] = c.r;
  };
  const ContactColours& ic = L.interface;
  const int P = L.partitions, nc = L.interface_colours(), base = L.interface_begin();
#pragma omp for schedule(dynamic, 1)
  for (int q = 0; q < P; ++q)
    for (int i = L.part_start[q]; i < L.part_start[q + 1]; ++i) accelerate(i);
  for (int k = 0; k < nc; ++k) for_colour(ic, k, base, false, accelerate);
}

inline double contact_error(const SweepContact& c, const BodyArrays& beads) {
  const Eigen::Vector3d u = contact_velocity(c, beads);
  return solvers::contact_residual_squared(c.r.data(), u.data(), 3, c.mu);
}

// Inside a parallel region (or alone): the blocks' squared errors into work.block_sums (with `roll`, the rolling
// rows' errors too).
void residual_blocks(const std::vector<SweepContact>& contacts, const BodyArrays& beads, std::vector<double>& sums,
                     const RollingContact* roll = nullptr) {
  const int n = static_cast<int>(contacts.size());
  const int blocks = static_cast<int>(sums.size());
#pragma omp for schedule(static)
  for (int k = 0; k < blocks; ++k) {
    double s = 0.0;
    if (roll)
      for (int i = k * kBlock, e = std::min(n, (k + 1) * kBlock); i < e; ++i)
        s += contact_error(contacts[i], beads) + rolling_error_squared(contacts[i], roll[i], beads);
    else
      for (int i = k * kBlock, e = std::min(n, (k + 1) * kBlock); i < e; ++i) s += contact_error(contacts[i], beads);
    sums[k] = s;
  }
}

// The records of `rolling` (one per contact), or nullptr for none.
template <class Records>
auto rolling_records(Records* rolling, const std::vector<SweepContact>& contacts) -> decltype(rolling->data()) {
  if (!rolling || rolling->empty()) return nullptr;
  if (rolling->size() != contacts.size())
    throw std::invalid_argument("matrix-free NSGS: " + std::to_string(rolling->size()) + " rolling records for " +
                                std::to_string(contacts.size()) + " contacts");
  return rolling->data();
}

void velocity_blocks(const std::vector<SweepContact>& contacts, const BodyArrays& beads, std::vector<double>& sums) {
  const int n = static_cast<int>(contacts.size());
  const int blocks = static_cast<int>(sums.size());
#pragma omp for schedule(static)
  for (int k = 0; k < blocks; ++k) {
    double s = 0.0;
    for (int i = k * kBlock, e = std::min(n, (k + 1) * kBlock); i < e; ++i)
      s += contact_velocity(contacts[i], beads).squaredNorm();
    sums[k] = s;
  }
}

double total(const std::vector<double>& sums, double q_norm, double extra = 0.0) {
  double s = extra;
  for (double v : sums) s += v;
  return std::sqrt(s) / (1.0 + q_norm);
}

}  // namespace

void set_solve_outcome(solvers::SolverStats& stats, int sweeps, double residual, double tolerance,
                       const std::string& solver, const std::string& detail) {
  stats.iterations = sweeps;  // fine sweeps: the runners sum them
  stats.counters.sweeps = sweeps;
  stats.residual = residual;
  if (!std::isfinite(residual)) {
    stats.status = solvers::SolverStatus::Diverged;
    stats.message = solver + ": non-finite residual";
  } else if (residual <= tolerance) {
    stats.status = solvers::SolverStatus::Converged;
  } else {
    stats.status = solvers::SolverStatus::MaxIterations;
    stats.message = solver + ": residual " + number_text(residual) + " > tolerance " + number_text(tolerance) +
                    " after " + detail;
  }
}

void apply_impulses(const std::vector<SweepContact>& contacts, const SweepLayout& L, const BodyArrays& beads,
                    int threads, const RollingContacts* rolling) {
  const ContactColours& ic = L.interface;
  const int P = L.partitions, nc = L.interface_colours(), base = L.interface_begin();
  const RollingContact* roll = rolling_records(rolling, contacts);
  auto push = [&](int i) {
    push_impulse(contacts[i], contacts[i].r, beads);
    if (roll) push_rolling(contacts[i], roll[i], roll[i].rho, beads);
  };
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
#pragma omp for schedule(dynamic, 1)
    for (int q = 0; q < P; ++q)
      for (int i = L.part_start[q]; i < L.part_start[q + 1]; ++i) push(i);
    for (int k = 0; k < nc; ++k) for_colour(ic, k, base, false, push);
  }
}

void sweep_matrix_free(std::vector<SweepContact>& contacts, const SweepLayout& layout, const BodyArrays& beads, int count,
                       int threads, GeneralContactSweep* general) {
  if (count <= 0) return;
#pragma omp parallel num_threads(threads) if (threads > 1)
  for (int k = 0; k < count; ++k) {
    sweep<false>(contacts, layout, beads, 1.0, false);
    if (general) sweep_general_contacts(*general);
  }
}

double matrix_free_residual(const std::vector<SweepContact>& contacts, const BodyArrays& beads, double q_norm,
                            int threads, MatrixFreeWorkspace& work, GeneralContactSweep* general,
                            const JointSweep* joints, const RollingContacts* rolling) {
  work.block_sums.assign((contacts.size() + kBlock - 1) / kBlock, 0.0);
  const RollingContact* roll = rolling_records(rolling, contacts);
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    residual_blocks(contacts, beads, work.block_sums, roll);
    if (general) general_residual_blocks(*general);
  }
  return total(work.block_sums, q_norm,
               (general ? general_squared_error(*general) : 0.0) + (joints ? joint_squared_velocity(*joints) : 0.0));
}

double squared_contact_velocities(const std::vector<SweepContact>& contacts, const BodyArrays& beads, int threads,
                                  MatrixFreeWorkspace& work) {
  work.block_sums.assign((contacts.size() + kBlock - 1) / kBlock, 0.0);
#pragma omp parallel num_threads(threads) if (threads > 1)
  velocity_blocks(contacts, beads, work.block_sums);
  double s = 0.0;
  for (double v : work.block_sums) s += v;
  return s;
}

solvers::SolverStats solve_matrix_free(std::vector<SweepContact>& contacts, const SweepLayout& layout,
                                       const BodyArrays& beads, double q_norm, const MatrixFreeParameters& p,
                                       MatrixFreeWorkspace& work, GeneralContactSweep* general,
                                       JointSweep* joints, RollingContacts* rolling) {
  if (joints && joints->empty()) joints = nullptr;
  RollingContact* roll = rolling_records(rolling, contacts);
  const auto start = std::chrono::steady_clock::now();
  solvers::SolverStats stats;
  stats.counters.colours = layout.interface_colours();
  work.block_sums.assign((contacts.size() + kBlock - 1) / kBlock, 0.0);
  const bool empty = contacts.empty() && (!general || general->empty()) && !joints;
  work.residual_checks = 0;
  work.history.clear();
  const bool relaxed = p.relaxation != 1.0;
  const double omega = p.relaxation;
  if (p.nncg) {
    work.nncg_previous.resize(contacts.size());
    work.nncg_direction.assign(contacts.size(), Eigen::Vector3d::Zero());
    for (std::size_t i = 0; i < contacts.size(); ++i) work.nncg_previous[i] = contacts[i].r;
    work.nncg_delta = 0.0;
  }
  const bool anderson = p.anderson > 0 && !p.nncg && (!general || general->empty()) && !joints && !roll && !contacts.empty();
  if (anderson) anderson_begin(contacts, p.anderson, work.anderson);
  work.anderson.restarts = 0;
  // Residual checks (SweepSchedule.hpp, next_residual_check): a check costs about one sweep, so checking every
  // sweep would double the cost, and checking rarely overshoots.
  SweepSchedule s(p, anderson);
  if (empty) s.residual = 0.0, s.done = true;
  auto check = [&] {
    residual_blocks(contacts, beads, work.block_sums, roll);
    if (general) general_residual_blocks(*general);
#pragma omp single
    {
      s.checked(total(work.block_sums, q_norm,
                      (general ? general_squared_error(*general) : 0.0) + (joints ? joint_squared_velocity(*joints) : 0.0)),
                p, work.anderson);
      ++work.residual_checks;
      if (work.record_history)
        work.history.push_back({s.sweeps, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                                s.residual});
    }
  };
#pragma omp parallel num_threads(p.threads) if (p.threads > 1)
  {
    if (p.check_first && !s.done) check();
    while (!s.done) {
      const bool backward = p.symmetric && s.sweeps % 2 == 1;
      if (roll && relaxed)
        sweep<true, true>(contacts, layout, beads, omega, backward, roll);
      else if (roll)
        sweep<false, true>(contacts, layout, beads, omega, backward, roll);
      else if (relaxed)
        sweep<true>(contacts, layout, beads, omega, backward);
      else
        sweep<false>(contacts, layout, beads, omega, backward);
      if (general) sweep_general_contacts(*general);
      if (joints) sweep_joints(*joints);
      if (p.nncg) nncg_step(contacts, layout, beads, work);
#pragma omp single
      ++s.sweeps;
      if (s.extrapolate_now(p)) anderson_step(contacts, layout, beads, work.anderson);
      if (s.check_due()) check();
    }
  }
  set_solve_outcome(stats, s.sweeps, s.residual, p.tolerance, "matrix-free NSGS", std::to_string(s.sweeps) + " sweeps");
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

}  // namespace talus::matrixfree
