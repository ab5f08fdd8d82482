// NSGS sweeps, serial and coloured-parallel (see Nsgs.hpp for the method and the stopping rule).
#include "solvers/fc/Nsgs.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "solvers/fc/AndersonAcceleration.hpp"
#include "solvers/fc/BlockCsrMatrix.hpp"
#include "solvers/fc/ContactColouring.hpp"
#include "solvers/core/AcceptProblem.hpp"

namespace talus::solvers {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// One contact update in 32 is timed to split the sweep's time between the row product and the local solve.
constexpr int kProfileStride = 32;
// Work is handed to threads in chunks of contacts, dynamically: a thread that is held up (a slow local solve, or
// the OS scheduling another process on its core) does not hold the whole colour up. Sums over the sweep are kept
// per chunk and added in chunk order, so they do not depend on which thread did which chunk.
constexpr int kChunk = 256;
// Per-thread counters, padded to separate cache lines (order-free sums: integers and timings).
struct alignas(64) ThreadTally {
  long local_iterations = 0;
  long timed_updates = 0;
  double local_seconds = 0.0;
  double matvec_seconds = 0.0;
};

// Fisher–Yates with a raw 64-bit engine: std::shuffle's output is implementation-defined, this is not.
template <class T>
void shuffle_in_place(std::vector<T>& v, std::mt19937_64& rng) {
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng() % i]);
}

template <int D>
struct Workspace {
  using Vec = Eigen::Matrix<double, D, 1>;
  BlockCsrMatrix W;                      // rows in sweep order
  std::vector<LocalContact<D>> contact;  // sweep order
  std::vector<int> original;             // sweep position -> original contact
  std::vector<int> colour_start;         // colour ranges of sweep positions; one range when not coloured
  Vector q, r;                           // sweep order
  double q_norm = 0.0;
};

template <int D>
inline Eigen::Matrix<double, D, 1> row_product(const BlockCsrMatrix& W, const double* q, const double* r, Index k) {
  Eigen::Matrix<double, D, 1> b = Eigen::Map<const Eigen::Matrix<double, D, 1>>(q + D * k);
  const int end = W.row_start[k + 1];
  for (int e = W.row_start[k]; e < end; ++e) {
    const double* B = W.off_diagonal.data() + static_cast<size_t>(e) * D * D;
    const double* rj = r + static_cast<size_t>(D) * W.block_col[e];
    for (int a = 0; a < D; ++a) {
      double s = 0.0;
      for (int c = 0; c < D; ++c) s += B[a * D + c] * rj[c];
      b[a] += s;
    }
  }
  return b;
}

// Updates contact k in place; returns ‖Δr_k‖².
template <int D, bool Timed>
inline double update_contact(Workspace<D>& ws, Index k, const NsgsParameters& prm, const LocalSolveSettings& ls,
                             ThreadTally& tally) {
  using Vec = Eigen::Matrix<double, D, 1>;
  Clock::time_point t0, t1;
  if constexpr (Timed) t0 = Clock::now();
  const Vec b = row_product<D>(ws.W, ws.q.data(), ws.r.data(), k);
  if constexpr (Timed) t1 = Clock::now();
  Eigen::Map<Vec> rk(ws.r.data() + D * k);
  const Vec old = rk;
  Vec next = old;
  tally.local_iterations += solve_local_contact<D>(prm.local, ws.contact[k], b, next, ls);
  if (prm.relaxation != 1.0) {
    next = old + prm.relaxation * (next - old);
    if (prm.relaxation > 1.0) local_detail::project_on_cone<D>(next, ws.contact[k].mu);
  }
  rk = next;
  if constexpr (Timed) {
    const Clock::time_point t2 = Clock::now();
    tally.matvec_seconds += std::chrono::duration<double>(t1 - t0).count();
    tally.local_seconds += std::chrono::duration<double>(t2 - t1).count();
    ++tally.timed_updates;
  }
  return (next - old).squaredNorm();
}

// Squared natural-map residual of contact k, before the (1 + ‖q‖) normalisation (same formula as
// friction_residual).
template <int D>
inline double contact_residual_squared(const Workspace<D>& ws, Index k) {
  using Vec = Eigen::Matrix<double, D, 1>;
  const Eigen::Map<const Vec> rk(ws.r.data() + D * k);
  const Vec u = row_product<D>(ws.W, ws.q.data(), ws.r.data(), k) + ws.contact[k].W * rk;
  return solvers::contact_residual_squared(rk.data(), u.data(), D, ws.contact[k].mu);
}

// When to extrapolate (AndersonAcceleration.hpp). Anderson acceleration removes the slow linear mode of
// Gauss–Seidel on singular W, but on a nonsmooth sweep it can also stall while the active set still changes.
// So the sweeps alternate between plain and accelerated phases: every `window` sweeps the smallest sweep change
// of the window is compared with the previous window's; a phase that did not divide it by 1/`slow` hands over
// to the other mode. Inside an accelerated phase, a sweep that moves more than ten times the smallest change
// since the last restart rejects the history (Walker–Ni's safeguard idea on the fixed-point residual).
class AccelerationPolicy {
 public:
  // The history (2 × memory vectors of the problem's size) is allocated when a first accelerated phase starts:
  // warm-started time steps usually converge before one does.
  AccelerationPolicy(Index size, const NsgsParameters& prm)
      : size_(size), memory_(std::clamp(prm.anderson_memory, 0, AndersonAcceleration::kMaxMemory)),
        window_(std::max(1, prm.anderson_window)), slow_(prm.anderson_slow_progress) {}

  bool enabled() const { return memory_ > 0; }
  // The accelerated phase needs x_k, the reactions before the sweep.
  bool wants_previous() const { return enabled() && accelerate_; }
  Vector& previous() { return before_; }

  // After sweep number `sweeps` with sweep change ‖G(x_k) − x_k‖ = change: possibly replaces r = G(x_k) by the
  // extrapolated iterate (not yet projected on the cones). Returns true when it did.
  bool after_sweep(int sweeps, double change, Vector& r) {
    window_best_ = std::min(window_best_, change);
    bool switched = false;
    if (sweeps % window_ == 0) {
      if (window_best_ > slow_ * last_window_best_) {
        accelerate_ = !accelerate_;
        switched = true;
        if (accelerate_ && anderson_.memory() == 0) {
          anderson_.reset(size_, memory_);
          before_.resize(size_);
        }
      }
      last_window_best_ = window_best_;
      window_best_ = INFINITY;
    }
    if (switched || !accelerate_) {
      restart();
      return false;
    }
    if (extrapolated_ && change > 10.0 * smallest_change_) {
      restart();
      smallest_change_ = change;
      return false;
    }
    smallest_change_ = std::min(smallest_change_, change);
    extrapolated_ = anderson_.step(before_, r);
    return extrapolated_;
  }

 private:
  void restart() {
    anderson_.restart();
    extrapolated_ = false;
    smallest_change_ = INFINITY;
  }

  AndersonAcceleration anderson_;
  Vector before_;
  Index size_;
  int memory_;
  int window_;
  double slow_;
  bool accelerate_ = false, extrapolated_ = false;
  double smallest_change_ = INFINITY;
  double window_best_ = INFINITY, last_window_best_ = INFINITY;
};

template <int D>
Workspace<D> prepare(const FrictionContactProblem& p, const Vector& r0, bool coloured, long& colours) {
  Workspace<D> ws;
  const Index n = p.contacts();
  if (coloured) {
    const ContactColouring col = colour_contacts(make_contact_graph(p.W, D));
    ws.original = col.order;
    ws.colour_start = col.colour_start;
    colours = col.colours();
  } else {
    ws.original.resize(n);
    std::iota(ws.original.begin(), ws.original.end(), 0);
    ws.colour_start = {0, static_cast<int>(n)};
    colours = 0;
  }
  ws.W = make_block_csr(p.W, D, coloured ? ws.original : std::vector<int>{});
  ws.contact.reserve(n);
  ws.q.resize(D * n);
  ws.r.resize(D * n);
  for (Index k = 0; k < n; ++k) {
    const Index i = ws.original[k];
    ws.contact.push_back(prepare_local_contact<D>(ws.W.diagonal_block(k), p.mu[i]));
    ws.q.template segment<D>(D * k) = p.q.template segment<D>(D * i);
    ws.r.template segment<D>(D * k) = r0.template segment<D>(D * i);
  }
  ws.q_norm = p.q.norm();
  return ws;
}

template <int D>
SolverStats run(const FrictionContactProblem& p, Vector& r, Vector& u, const NsgsParameters& prm) {
  const Clock::time_point start = Clock::now();
  SolverStats stats;
  const Index n = p.contacts();
  // A coloured sweep gives the same reactions on any thread count, so small problems may use fewer threads.
  const bool coloured = prm.coloured || prm.threads > 1;
  const Index by_size = n / std::max(1, prm.min_contacts_per_thread);
  const int threads = static_cast<int>(std::clamp<Index>(by_size, 1, std::max(1, prm.threads)));
  Workspace<D> ws = prepare<D>(p, r, coloured, stats.counters.colours);
  const int colours = static_cast<int>(ws.colour_start.size()) - 1;

  LocalSolveSettings ls;
  ls.max_iterations = prm.local_max_iterations;
  ls.tolerance = prm.local_tolerance;

  // Scale of the residual estimate. After an exact local solve a contact's own residual is zero; what remains at
  // the end of the sweep comes from its neighbours' later changes, bounded by the off-diagonal row of W (times
  // 1 + μ for û). The projection solver is not exact, so its own diagonal block counts too. A problem without
  // coupling starts at 0: one exact sweep solves it, and the first check says so.
  double calibration = 0.0, largest_block = 0.0;
  for (Index k = 0; k < n; ++k) {
    double row = 0.0;
    for (int e = ws.W.row_start[k]; e < ws.W.row_start[k + 1]; ++e)
      row += Eigen::Map<const Eigen::Matrix<double, D * D, 1>>(ws.W.off_diagonal.data() + static_cast<size_t>(e) * D * D)
                 .norm();
    const double diagonal = ws.contact[k].W.norm();
    if (prm.local == LocalSolverKind::Projection) row += diagonal;
    calibration = std::max(calibration, row * (1.0 + ws.contact[k].mu));
    largest_block = std::max(largest_block, diagonal);
  }
  if (!(largest_block > 0.0)) largest_block = 1.0;
  const double normaliser = 1.0 + ws.q_norm;
  // Near the tolerance (estimate within a factor 10) exact checks are made at doubling intervals, so that an
  // estimate that has become pessimistic is corrected instead of costing extra sweeps. Far from it, an exact
  // check is still made once a quarter of the sweeps done (at least kFarCheck) have passed since the last one:
  // the initial calibration bounds W's off-diagonal rows, which in a dense pile overestimates the residual by a
  // factor of hundreds, and without such checks the estimate stayed above 10 × tolerance long after the exact
  // residual had passed it (a settling 1 500-bead pile: 11 700 sweeps where 1 784 sufficed). Each check costs
  // about one sweep; the quarter rule keeps them a few percent of the solve.
  constexpr int kFarCheck = 16;
  int last_check = 0, check_gap = 1;

  std::mt19937_64 rng(prm.seed);
  const bool shuffle_contacts = prm.shuffle && !coloured;
  const bool shuffle_colours = prm.shuffle && coloured;
  std::vector<int> visit(n);  // sweep positions in visiting order (shuffled serial sweeps)
  std::iota(visit.begin(), visit.end(), 0);
  std::vector<int> colour_sequence(colours);
  std::iota(colour_sequence.begin(), colour_sequence.end(), 0);

  AccelerationPolicy acceleration(ws.r.size(), prm);

  std::vector<int> chunk_start(colours + 1, 0);  // first chunk of each colour in chunk_change
  for (int c = 0; c < colours; ++c)
    chunk_start[c + 1] = chunk_start[c] + (ws.colour_start[c + 1] - ws.colour_start[c] + kChunk - 1) / kChunk;
  std::vector<double> chunk_change(chunk_start[colours], 0.0);
  std::vector<double> chunk_residual((n + kChunk - 1) / kChunk, 0.0);

  std::vector<ThreadTally> tally(threads);
  int sweeps = 0;
  bool stop = false, check = false, diverged = false, converged = false, timed_out = false;
  double residual = NAN, change = 0.0;

  // The sweeps' exact checks and the final check u = W r + q (below) evaluate the same residual with sums in a
  // different order; at a tolerance near round-off (the small path's 1e-12 on thousands of contacts) they can
  // disagree by a hair. Then the sweeps go on to a target lowered by the disagreement (at most kRetargets times,
  // within the budget), instead of reporting a converged solve as failed.
  constexpr int kRetargets = 3;
  double target = prm.tolerance;
  for (int retarget = 0;; ++retarget) {
#pragma omp parallel num_threads(threads)
    {
      ThreadTally& mine = tally[omp_get_thread_num()];
      while (true) {
#pragma omp single
        {
          if (shuffle_contacts) shuffle_in_place(visit, rng);
          if (shuffle_colours) shuffle_in_place(colour_sequence, rng);
          if (acceleration.wants_previous()) acceleration.previous() = ws.r;
        }
        for (int ci = 0; ci < colours; ++ci) {
          const int c = colour_sequence[ci];
          const int begin = ws.colour_start[c], end = ws.colour_start[c + 1];
          const int chunks = chunk_start[c + 1] - chunk_start[c];
#pragma omp for schedule(dynamic, 1)
          for (int j = 0; j < chunks; ++j) {
            double sum = 0.0;
            const int last = std::min(end, begin + (j + 1) * kChunk);
            for (int pos = begin + j * kChunk; pos < last; ++pos) {
              const Index k = shuffle_contacts ? visit[pos] : pos;
              if (pos % kProfileStride == 0)
                sum += update_contact<D, true>(ws, k, prm, ls, mine);
              else
                sum += update_contact<D, false>(ws, k, prm, ls, mine);
            }
            chunk_change[chunk_start[c] + j] = sum;
          }
        }
#pragma omp single
        {
          ++sweeps;
          change = 0.0;
          for (double x : chunk_change) change += x;
          const double estimate = calibration * std::sqrt(change) / normaliser;
          if (!std::isfinite(change)) {
            diverged = stop = true;
          } else {
            check = prm.record_history || estimate <= target || sweeps >= prm.max_iterations ||
                    (estimate <= 10.0 * target && sweeps - last_check >= check_gap) ||
                    sweeps - last_check >= std::max(kFarCheck, sweeps / 4);
            if (!check && prm.time_cap_seconds > 0.0 && seconds_since(start) > prm.time_cap_seconds)
              timed_out = stop = true;
          }
        }
        if (check && !stop) {
          const int chunks = static_cast<int>(chunk_residual.size());
#pragma omp for schedule(dynamic, 1)
          for (int j = 0; j < chunks; ++j) {
            double sum = 0.0;
            const Index last = std::min<Index>(n, static_cast<Index>(j + 1) * kChunk);
            for (Index k = static_cast<Index>(j) * kChunk; k < last; ++k) sum += contact_residual_squared<D>(ws, k);
            chunk_residual[j] = sum;
          }
#pragma omp single
          {
            double total = 0.0;
            for (double x : chunk_residual) total += x;
            residual = std::sqrt(total) / normaliser;
            const double estimate = calibration * std::sqrt(change) / normaliser;
            if (prm.record_history) stats.residual_history.push_back(residual);
            if (!std::isfinite(residual)) {
              diverged = stop = true;
            } else if (residual <= target) {
              converged = stop = true;
            } else {
              // Recalibrate both ways; an estimate of 0 (no coupling, or no change) with a residual left means the
              // local solves were inexact: fall back to the scale of the diagonal blocks.
              calibration = estimate > 0.0 ? calibration * residual / estimate : std::max(calibration, largest_block);
              last_check = sweeps;
              check_gap = std::min(2 * check_gap, 16);
              if (sweeps >= prm.max_iterations) stop = true;
              if (prm.time_cap_seconds > 0.0 && seconds_since(start) > prm.time_cap_seconds) timed_out = stop = true;
            }
            check = false;
          }
        }
        if (stop) break;
        if (acceleration.enabled()) {
#pragma omp single
          {
            if (acceleration.after_sweep(sweeps, std::sqrt(change), ws.r))
              for (Index k = 0; k < n; ++k) {
                Eigen::Matrix<double, D, 1> rk = ws.r.template segment<D>(D * k);
                local_detail::project_on_cone<D>(rk, ws.contact[k].mu);
                ws.r.template segment<D>(D * k) = rk;
              }
          }
        }
      }
    }

    for (Index k = 0; k < n; ++k) r.template segment<D>(D * ws.original[k]) = ws.r.template segment<D>(D * k);
    stats.residual = friction_residual(p, r);
    if (!converged || !(stats.residual > prm.tolerance) || !std::isfinite(stats.residual) || retarget >= kRetargets ||
        sweeps >= prm.max_iterations)
      break;
    target *= 0.5 * prm.tolerance / stats.residual;
    converged = stop = false;
  }
  u = p.W * r + p.q;
  stats.iterations = sweeps;
  stats.counters.sweeps = sweeps;
  long timed = 0;
  double local_s = 0.0, matvec_s = 0.0;
  for (const auto& t : tally) {
    stats.counters.local_iterations += t.local_iterations;
    timed += t.timed_updates;
    local_s += t.local_seconds;
    matvec_s += t.matvec_seconds;
  }
  if (timed > 0) {
    const double updates = static_cast<double>(sweeps) * static_cast<double>(n);
    stats.counters.local_seconds = local_s * updates / timed;
    stats.counters.matvec_seconds = matvec_s * updates / timed;
  }
  if (diverged || !std::isfinite(stats.residual)) {
    stats.status = SolverStatus::Diverged;
    stats.message = "NaN or Inf in the reactions after sweep " + std::to_string(sweeps);
  } else if (stats.residual <= prm.tolerance) {
    stats.status = SolverStatus::Converged;
  } else {
    stats.status = SolverStatus::MaxIterations;
    stats.message = timed_out ? "time cap reached" : (converged ? "sweep residual and independent check disagree"
                                                                : "iteration budget spent");
  }
  stats.seconds = seconds_since(start);
  return stats;
}

}  // namespace

bool accept_nsgs_start(Index m, Vector& r, const NsgsParameters& params, SolverStats& stats) {
  if (r.size() == 0) r = Vector::Zero(m);
  if (r.size() != m || !r.allFinite()) {
    stats.status = SolverStatus::InvalidInput;
    stats.message = "nsgs: warm start r has " + std::to_string(r.size()) + " entries (expected " +
                    std::to_string(m) + ") or is not finite";
    return false;
  }
  if (!(params.relaxation > 0.0 && params.relaxation < 2.0)) {
    stats.status = SolverStatus::InvalidInput;
    stats.message = "nsgs: relaxation must lie in (0, 2)";
    return false;
  }
  return true;
}

SolverStats nsgs(const FrictionContactProblem& p, Vector& r, Vector& u, const NsgsParameters& params) {
  SolverStats stats;
  if (!accept_problem(p, stats)) return stats;
  const Index m = p.dim * p.contacts();
  if (!accept_nsgs_start(m, r, params, stats)) return stats;
  if (m == 0) {
    u = p.q;
    stats.status = SolverStatus::Converged;
    return stats;
  }
  return p.dim == 3 ? run<3>(p, r, u, params) : run<2>(p, r, u, params);
}

}  // namespace talus::solvers
