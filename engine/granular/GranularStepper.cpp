#include "engine/granular/GranularStepper.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "contact/ContactFrame.hpp"
#include "contact/NarrowPhase.hpp"
#include "engine/granular/AssembledProblem.hpp"
#include "engine/granular/SpaceFillingCurve.hpp"
#include "solvers/fc/Nsgs.hpp"

namespace talus::granular {

namespace {

using Clock = ProfileClock;

double max_radius(const SphereBodies& b) {
  double r = 0.0;
  for (double v : b.radius) r = std::max(r, v);
  return r;
}

}  // namespace

GranularStepper::GranularStepper(GranularModel& model, const GranularParameters& params, PhaseProfile* profile)
    : m_(model), params_(params), profile_(profile) {
  if (!(params_.h > 0.0)) throw std::invalid_argument("granular: time step h must be positive");
  if (!(params_.tolerance > 0.0)) throw std::invalid_argument("granular: tolerance must be positive");
  if (params_.max_sweeps < 1) throw std::invalid_argument("granular: max_sweeps must be >= 1");
  if (params_.threads < 1) throw std::invalid_argument("granular: threads must be >= 1");
  if (m_.mu_bead < 0.0 || m_.mu_wall < 0.0) throw std::invalid_argument("granular: friction coefficients must be >= 0");
  if (m_.restitution < 0.0 || m_.restitution > 1.0) throw std::invalid_argument("granular: restitution must be in [0, 1]");
  pair_buffers_.resize(params_.threads);
  wall_buffers_.resize(params_.threads);
}

void GranularStepper::resort() {
  morton_order(m_.beads.x, 2.0 * std::max(max_radius(m_.beads), 1e-12), order_, sort_scratch_);
  m_.beads.permute(order_, permute_scratch_);
}

void GranularStepper::detect(double margin) {
  SphereBodies& b = m_.beads;
  const int n = b.size();
  const int T = params_.threads;
  const double rmax = max_radius(b);
  contact::size_cell_grid(grid_, b.x.data(), n, 2.0 * rmax + margin);
#pragma omp parallel num_threads(T) if (T > 1)
  {
    const int t = omp_get_thread_num();
    contact::assign_cells(grid_, b.x.data(), static_cast<int>(static_cast<long>(n) * t / T),
                          static_cast<int>(static_cast<long>(n) * (t + 1) / T));
#pragma omp barrier
#pragma omp single
    contact::sort_into_cells(grid_);
    long begin, end;
    contact::cell_range(grid_, t, T, begin, end);
    pair_buffers_[t].clear();
    contact::find_sphere_pairs(grid_, b.x.data(), b.radius.data(), margin, begin, end, pair_buffers_[t]);
    // Bead–wall candidates over a contiguous bead range per thread: concatenated in order below.
    wall_buffers_[t].clear();
    const int lo = static_cast<int>(static_cast<long>(n) * t / T), hi = static_cast<int>(static_cast<long>(n) * (t + 1) / T);
    contact::ContactPoint cp;
    for (int i = lo; i < hi; ++i)
      for (int w = 0; w < static_cast<int>(m_.walls.size()); ++w)
        if (contact::sphere_wall_point(m_.walls[w], b.x[i], b.radius[i], cp) && cp.gap <= margin)
          wall_buffers_[t].push_back({i, static_cast<std::int16_t>(w), static_cast<std::int16_t>(cp.feature)});
  }
  pairs_.clear();
  wall_hits_.clear();
  for (int t = 0; t < T; ++t) {
    pairs_.insert(pairs_.end(), pair_buffers_[t].begin(), pair_buffers_[t].end());
    wall_hits_.insert(wall_hits_.end(), wall_buffers_[t].begin(), wall_buffers_[t].end());
  }
}

void GranularStepper::narrow() {
  // Narrow phase, frames, colouring, diagonal blocks and warm start: the contacts go to their slot in sweep order.
  SphereBodies& b = m_.beads;
  const int np = static_cast<int>(pairs_.size());
  const int n = np + static_cast<int>(wall_hits_.size());
  cand_a_.resize(n);
  cand_b_.resize(n);
  for (int k = 0; k < np; ++k) cand_a_[k] = pairs_[k].a, cand_b_[k] = pairs_[k].b;
  for (int k = np; k < n; ++k) cand_a_[k] = -1, cand_b_[k] = wall_hits_[k - np].bead;
  colour_contacts_on_bodies(cand_a_.data(), cand_b_.data(), n, b.size(), colours_);
  contacts_.resize(n);
  keys_.resize(n);
  gaps_.resize(n);
  const double h = params_.h, e = m_.restitution;
  const int T = params_.threads;
  double max_pen = 0.0;
#pragma omp parallel for num_threads(T) if (T > 1) schedule(static) reduction(max : max_pen)
  for (int k = 0; k < n; ++k) {
    const int s = colours_.slot[k];
    SweepContact& c = contacts_[s];
    contact::ContactPoint cp;
    if (k < np) {
      // a = the bead with the smaller id, so that the cache key and the normal's orientation agree across steps.
      int ia = pairs_[k].a, ib = pairs_[k].b;
      if (b.id[ia] > b.id[ib]) std::swap(ia, ib);
      if (!contact::sphere_sphere_point(b.x[ia], b.radius[ia], b.x[ib], b.radius[ib], cp)) {
        cp.n = Eigen::Vector3d::UnitZ(), cp.gap = -b.radius[ia] - b.radius[ib];
      }
      c.a = ia, c.b = ib, c.ra = b.radius[ia], c.rb = b.radius[ib], c.mu = m_.mu_bead;
      keys_[s] = contact::bead_pair_key(b.id[ia], b.id[ib]);
    } else {
      const WallHit& w = wall_hits_[k - np];
      contact::sphere_wall_point(m_.walls[w.wall], b.x[w.bead], b.radius[w.bead], cp);
      c.a = -1, c.b = w.bead, c.ra = 0.0, c.rb = b.radius[w.bead], c.mu = m_.mu_wall;
      keys_[s] = contact::bead_wall_key(w.wall, w.feature, b.id[w.bead]);
    }
    const contact::ContactFrame f = contact::make_frame(cp.n);
    c.n = f.n, c.t1 = f.t1, c.t2 = f.t2;
    gaps_[s] = cp.gap;
    max_pen = std::max(max_pen, -cp.gap);
    const double ima = c.a >= 0 ? b.inv_mass[c.a] : 0.0, iia = c.a >= 0 ? b.inv_inertia[c.a] : 0.0;
    c.wn = ima + b.inv_mass[c.b];
    c.wt = c.wn + iia * c.ra * c.ra + b.inv_inertia[c.b] * c.rb * c.rb;
    // Normal target from the start-of-step state (velocities are still v_k here).
    if (cp.gap > 0.0) {
      c.extra = cp.gap / h;
    } else {
      c.extra = 0.0;
      if (e > 0.0) c.extra = e * std::min(0.0, contact_velocity(c, b)[0]);
    }
    const Eigen::Vector3d R = cache_.find(keys_[s]);
    Eigen::Vector3d r(R.dot(c.n), R.dot(c.t1), R.dot(c.t2));
    solvers::project_on_cone(r.data(), 3, c.mu);
    c.r = r;
  }
  report_.max_penetration = max_pen;
}

void GranularStepper::assemble() {
  SphereBodies& b = m_.beads;
  const double h = params_.h;
  const int T = params_.threads;
  const int n = static_cast<int>(contacts_.size());
  // Free velocities, then q = H v* + extra (its norm scales the residual).
  const Eigen::Vector3d dv = h * m_.gravity;
#pragma omp parallel for num_threads(T) if (T > 1) schedule(static)
  for (int i = 0; i < b.size(); ++i)
    if (b.inv_mass[i] > 0.0) b.v[i] += dv;
  double qq = 0.0;
  for (int k = 0; k < n; ++k) qq += contact_velocity(contacts_[k], b).squaredNorm();
  q_norm_ = std::sqrt(qq);
  if (keep_problem_) {
    problem_ = assemble_problem(contacts_, b);
    keep_problem_ = false;
  }
}

void GranularStepper::solve() {
  SphereBodies& b = m_.beads;
  if (params_.solver == GranularSolver::MatrixFree) {
    apply_impulses(contacts_, colours_, b, params_.threads);
    MatrixFreeParameters p;
    p.tolerance = params_.tolerance;
    p.max_sweeps = params_.max_sweeps;
    p.check_every = params_.check_every;
    p.threads = params_.threads;
    report_.solver = solve_matrix_free(contacts_, colours_, b, q_norm_, p, work_);
    return;
  }
  const solvers::FrictionContactProblem prob = assemble_problem(contacts_, b);
  Vector r(3 * contacts_.size()), u;
  for (std::size_t k = 0; k < contacts_.size(); ++k) r.segment<3>(3 * k) = contacts_[k].r;
  solvers::NsgsParameters p;
  p.tolerance = params_.tolerance;
  p.max_iterations = params_.max_sweeps;
  p.threads = params_.threads;
  p.coloured = params_.threads > 1;
  report_.solver = solvers::nsgs(prob, r, u, p);
  for (std::size_t k = 0; k < contacts_.size(); ++k) contacts_[k].r = r.segment<3>(3 * k);
  apply_impulses(contacts_, colours_, b, params_.threads);
}

void GranularStepper::integrate() {
  SphereBodies& b = m_.beads;
  const double h = params_.h;
  const int T = params_.threads;
#pragma omp parallel for num_threads(T) if (T > 1) schedule(static)
  for (int i = 0; i < b.size(); ++i) b.x[i] += h * b.v[i];
  world_impulses_.resize(contacts_.size());
  for (std::size_t k = 0; k < contacts_.size(); ++k) {
    const SweepContact& c = contacts_[k];
    world_impulses_[k] = c.r[0] * c.n + c.r[1] * c.t1 + c.r[2] * c.t2;
  }
  cache_.store(keys_.data(), world_impulses_.data(), keys_.size());
}

const GranularStepReport& GranularStepper::step() {
  SphereBodies& b = m_.beads;
  const int T = params_.threads;
  report_.phase_seconds.fill(0.0);
  auto stamp = [&](Phase p, Clock::time_point start) {
    const Clock::time_point end = Clock::now();
    report_.phase_seconds[static_cast<int>(p)] = std::chrono::duration<double>(end - start).count();
    if (profile_) profile_->record(p, start, end, m_.step + 1);
    return end;
  };
  Clock::time_point t0 = Clock::now();
  if (params_.resort_every > 0 && m_.step % params_.resort_every == 0) resort();
  double vmax = 0.0;
#pragma omp parallel for num_threads(T) if (T > 1) schedule(static) reduction(max : vmax)
  for (int i = 0; i < b.size(); ++i) vmax = std::max(vmax, b.v[i].norm());
  const double h = params_.h;
  const double margin = h * (2.0 * vmax + h * m_.gravity.norm()) + 1e-9 * max_radius(b);
  detect(margin);
  t0 = stamp(Phase::Broad, t0);
  narrow();
  t0 = stamp(Phase::Narrow, t0);
  assemble();
  t0 = stamp(Phase::Assembly, t0);
  solve();
  t0 = stamp(Phase::Solve, t0);
  integrate();
  stamp(Phase::Integration, t0);
  m_.time += h;
  ++m_.step;
  if (profile_) profile_->count_step();
  report_.time = m_.time;
  report_.step = m_.step;
  report_.contacts = static_cast<int>(contacts_.size());
  report_.colours = colours_.colours();
  return report_;
}

}  // namespace talus::granular
