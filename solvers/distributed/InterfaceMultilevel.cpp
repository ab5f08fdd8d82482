// The multilevel solve of a partitioned model (InterfaceNsgs.hpp, solve_multilevel; issue 15 item 2: "the
// multilevel correction's coarse levels are gathered across ranks"; the method is MultilevelNsgs.hpp's).
//
// Why aggregates stay inside a process: an aggregate's mean velocity and its beads' deficits then need no message,
// and its spanning tree routes the correction through interior contacts only. Why the top levels are gathered:
// there the weight of the pile travels across the regions (a column cut in two by the bisection is two aggregates
// and one pair contact at the coarsest level), and they are small. The coarsest alone is not enough: a box of beads
// cut across needs its pair contacts corrected at intermediate scales too (with the coarsest level alone gathered,
// a 160-layer box on two ranks had every trial of cycles taken back). Levels below the gathered ones leave the pair
// contacts alone: their reactions do not change there, so every visit keeps the velocities those of the reactions,
// as the one-process visit does.
#include <algorithm>
#include <cmath>
#include <string>

#include "solvers/distributed/InterfaceNsgs.hpp"
#include "solvers/distributed/VelocityMessages.hpp"
#include "solvers/matrixfree/MultilevelNsgs.hpp"

namespace talus::distributed {

using matrixfree::AggregateLevel;
using matrixfree::BodyArrays;
using matrixfree::SweepContact;
using matrixfree::SweepLayout;

namespace {

constexpr int kTagAggregates = 14;
constexpr int kAggregateValues = 13;  // inverse mass, centre, inverse inertia (column-major)
constexpr int kContactValues = 19;    // A, B, the contact points on A and B, n, t1, t2, μ, extra
constexpr int kVisitAggregate = 6, kVisitContact = 3;
constexpr double kGatheredBudget = 4.0;
constexpr int kMaxTopLevels = 4;  // levels gathered at most

void put(double*& out, const Eigen::Vector3d& v) { out[0] = v.x(), out[1] = v.y(), out[2] = v.z(), out += 3; }
Eigen::Vector3d take(const double*& in) {
  const Eigen::Vector3d v(in[0], in[1], in[2]);
  in += 3;
  return v;
}

}  // namespace

void InterfaceNsgs::gather_level(int t, const std::vector<SweepContact>& contacts, const BodyArrays& bodies,
                                 const AggregateLevel* top, bool coarsest) {
  GatheredLevel& g = gathered_[t];
  const int n = bodies.spheres, owned = own_.owned;
  double clock = MPI_Wtime();
  // What this process gives: its level's boundary contacts (interior contacts between its aggregates or
  // with a wall), then the pair contacts it sweeps, pair by pair in rank order. Each pair contact is given once, by
  // its sweeper; the partner finds it from the table of pair counts.
  g.given.clear();
  if (top)
    for (const AggregateLevel::Contact& cc : top->contacts) g.given.push_back(cc.fine);
  const int from_level = static_cast<int>(g.given.size());
  for (const Pair& p : pairs_)
    if (p.sweeper) g.given.insert(g.given.end(), p.contacts.begin(), p.contacts.end());
  const int mine[4] = {top ? top->count : 0, static_cast<int>(g.given.size()), from_level, counted_};
  std::vector<int> all(4 * static_cast<std::size_t>(size_));
  MPI_Allgather(mine, 4, MPI_INT, all.data(), 4, MPI_INT, comm_);
  g.aggregates.resize(size_), g.contact_count.resize(size_);
  std::vector<int> aggregate_start(size_ + 1, 0), contact_start(size_ + 1, 0);
  double fine_contacts = 0.0;
  for (int r = 0; r < size_; ++r) {
    g.aggregates[r] = all[4 * r], g.contact_count[r] = all[4 * r + 1];
    fine_contacts += all[4 * r + 3];
    aggregate_start[r + 1] = aggregate_start[r] + g.aggregates[r];
    contact_start[r + 1] = contact_start[r] + g.contact_count[r];
  }
  g.offset = aggregate_start[rank_];

  // Each local bead's gathered aggregate: −1 for a fixed bead, −2 for a bead of a process without levels (its
  // contacts then stay out of the coarse problem). The ghosts' come from their owners, pair by pair.
  g.aggregate_of.assign(n, -1);
  for (int i = 0; i < owned; ++i)
    if (bodies.inv_mass[i] > 0.0)
      g.aggregate_of[i] = top && top->bead_aggregate[i] >= 0 ? g.offset + top->bead_aggregate[i] : -2;
  refresh_buffers_.resize(pairs_.size());
  requests_.resize(pairs_.size());
  for (std::size_t j = 0; j < pairs_.size(); ++j) {
    const Pair& p = pairs_[j];
    std::vector<double>& buf = refresh_buffers_[j];
    buf.resize(p.beads.size());
    if (p.sweeper) {
      MPI_Irecv(buf.data(), static_cast<int>(buf.size()), MPI_DOUBLE, p.rank, kTagAggregates, comm_, &requests_[j]);
    } else {
      for (std::size_t m = 0; m < p.beads.size(); ++m) buf[m] = g.aggregate_of[p.beads[m]];
      MPI_Isend(buf.data(), static_cast<int>(buf.size()), MPI_DOUBLE, p.rank, kTagAggregates, comm_, &requests_[j]);
      times_.bytes_sent += static_cast<std::int64_t>(buf.size() * sizeof(double));
      ++times_.messages;
    }
  }
  MPI_Waitall(static_cast<int>(pairs_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  for (std::size_t j = 0; j < pairs_.size(); ++j)
    if (pairs_[j].sweeper)
      for (std::size_t m = 0; m < pairs_[j].beads.size(); ++m)
        g.aggregate_of[pairs_[j].beads[m]] = static_cast<std::int32_t>(refresh_buffers_[j][m]);

  // The level's fixed data, gathered once per solve.
  g.send.resize(kAggregateValues * static_cast<std::size_t>(mine[0]) + kContactValues * g.given.size());
  double* out = g.send.data();
  for (int A = 0; A < mine[0]; ++A) {
    *out++ = top->inv_mass[A];
    put(out, top->centre[A]);
    out = std::copy(top->inv_inertia[A].data(), top->inv_inertia[A].data() + 9, out);
  }
  for (const std::int32_t k : g.given) {
    const SweepContact& c = contacts[k];
    *out++ = c.a >= 0 ? g.aggregate_of[c.a] : -1;
    *out++ = g.aggregate_of[c.b];
    put(out, c.a >= 0 ? Eigen::Vector3d(bodies.x[c.a] + c.ra * c.n) : Eigen::Vector3d(Eigen::Vector3d::Zero()));
    put(out, bodies.x[c.b] - c.rb * c.n);
    put(out, c.n), put(out, c.t1), put(out, c.t2);
    *out++ = c.mu;
    *out++ = c.extra;
  }
  std::vector<int> counts(size_), displacements(size_ + 1, 0);
  for (int r = 0; r < size_; ++r) {
    counts[r] = kAggregateValues * g.aggregates[r] + kContactValues * g.contact_count[r];
    displacements[r + 1] = displacements[r] + counts[r];
  }
  g.receive.resize(displacements[size_]);
  MPI_Allgatherv(g.send.data(), counts[rank_], MPI_DOUBLE, g.receive.data(), counts.data(), displacements.data(),
                 MPI_DOUBLE, comm_);
  times_.bytes_sent += static_cast<std::int64_t>(g.send.size() * sizeof(double)) * (size_ - 1);
  times_.messages += size_ - 1;

  // Every process builds the same coarse problem from the same bits.
  AggregateLevel& G = g.level;
  const int count = aggregate_start[size_], total = contact_start[size_];
  G.count = count;
  G.inv_mass.resize(count), G.centre.resize(count), G.inv_inertia.resize(count);
  G.v0.assign(count, Eigen::Vector3d::Zero()), G.w0 = G.v0, G.dv = G.v0, G.dw = G.v0;
  g.contacts.resize(total);
  G.contacts.clear();
  std::vector<Eigen::Vector3d>& pa = g.point_a;
  std::vector<Eigen::Vector3d>& pb = g.point_b;
  std::vector<std::int32_t>& A_of = g.side_a;
  std::vector<std::int32_t>& B_of = g.side_b;
  pa.resize(total), pb.resize(total), A_of.resize(total), B_of.resize(total);
  for (int r = 0; r < size_; ++r) {
    const double* in = g.receive.data() + displacements[r];
    for (int A = aggregate_start[r]; A < aggregate_start[r + 1]; ++A) {
      G.inv_mass[A] = *in++;
      G.centre[A] = take(in);
      std::copy(in, in + 9, G.inv_inertia[A].data());
      in += 9;
    }
    for (int k = contact_start[r]; k < contact_start[r + 1]; ++k) {
      SweepContact& c = g.contacts[k];
      A_of[k] = static_cast<std::int32_t>(*in++), B_of[k] = static_cast<std::int32_t>(*in++);
      pa[k] = take(in), pb[k] = take(in);
      c.n = take(in), c.t1 = take(in), c.t2 = take(in);
      c.mu = *in++, c.extra = *in++;
    }
  }
  for (int k = 0; k < total; ++k) {
    const int A = A_of[k], B = B_of[k];
    if (A == -2 || B == -2 || (A < 0 && B < 0)) continue;  // a bead outside the levels, or two fixed bodies
    AggregateLevel::Contact cc;
    cc.fine = k, cc.A = A, cc.B = B;
    matrixfree::set_coarse_block(G, g.contacts[k], pa[k], pb[k], cc);
    G.contacts.push_back(cc);
  }

  // The coarsest gathered level is solved where the one-process hierarchy would go on coarsening: its sweeps stop
  // once they change nothing, within the work of `kGatheredBudget` fine sweeps over the whole model (a chain of k
  // aggregates needs on the order of k² sweeps; a few thousand gathered contacts then cost a few fine sweeps).
  g.sweep_cap = G.contacts.empty() || !coarsest
                    ? 0
                    : static_cast<int>(std::min(1e6, kGatheredBudget * fine_contacts / G.contacts.size()));
  // Where each gathered contact is here: those this process gave, and the pair contacts whose partner it is.
  g.local.assign(total, -1);
  for (int j = 0; j < mine[1]; ++j) g.local[contact_start[rank_] + j] = g.given[j];
  for (const Pair& p : pairs_) {
    if (p.sweeper) continue;
    const int s = p.rank;  // s < rank_: it gave its level's contacts, then its pairs with ranks s+1, s+2, ...
    int base = contact_start[s] + all[4 * s + 2];
    for (int q = s + 1; q < rank_; ++q) base += all_counts_[static_cast<std::size_t>(s) * size_ + q];
    for (std::size_t m = 0; m < p.contacts.size(); ++m) g.local[base + m] = p.contacts[m];
  }

  // The visits' gather: mean velocities of the aggregates, reactions of the contacts.
  g.counts.resize(size_), g.displacements.assign(size_ + 1, 0);
  for (int r = 0; r < size_; ++r) {
    g.counts[r] = kVisitAggregate * g.aggregates[r] + kVisitContact * g.contact_count[r];
    g.displacements[r + 1] = g.displacements[r] + g.counts[r];
  }
  times_.gather += lap(clock);
}

void InterfaceNsgs::visit_gathered(int t, std::vector<SweepContact>& contacts, const BodyArrays& bodies,
                                   AggregateLevel* top, matrixfree::MultilevelWorkspace& work, int sweeps,
                                   double weight, matrixfree::Routing routing) {
  GatheredLevel& g = gathered_[t];
  AggregateLevel& G = g.level;
  if (G.contacts.empty()) return;  // the same on every process
  double clock = MPI_Wtime();
  if (top) matrixfree::mean_velocities(*top, bodies);
  const int mine = g.aggregates[rank_];
  g.send.resize(g.counts[rank_]);
  double* out = g.send.data();
  for (int A = 0; A < mine; ++A) put(out, top->v0[A]), put(out, top->w0[A]);
  for (const std::int32_t k : g.given) put(out, contacts[k].r);
  g.receive.resize(g.displacements[size_]);
  MPI_Allgatherv(g.send.data(), g.counts[rank_], MPI_DOUBLE, g.receive.data(), g.counts.data(),
                 g.displacements.data(), MPI_DOUBLE, comm_);
  times_.bytes_sent += static_cast<std::int64_t>(g.send.size() * sizeof(double)) * (size_ - 1);
  times_.messages += size_ - 1;
  times_.gather += lap(clock);
  int A = 0, k = 0;
  for (int r = 0; r < size_; ++r) {
    const double* in = g.receive.data() + g.displacements[r];
    for (int a = 0; a < g.aggregates[r]; ++a, ++A) G.v0[A] = take(in), G.w0[A] = take(in);
    for (int c = 0; c < g.contact_count[r]; ++c, ++k) g.contacts[k].r = take(in);
  }
  for (int a = 0; a < G.count; ++a) G.dv[a].setZero(), G.dw[a].setZero();
  for (AggregateLevel::Contact& cc : G.contacts) cc.r0 = g.contacts[cc.fine].r;
  // The coarsest: sweeps until one changes the reactions by under 1e-12 of their size. The one-process hierarchy
  // would take this level to a single aggregate, solved exactly by one sweep (coarse_sweeps' own test, 1e-6
  // relative, leaves a chain of aggregates that far from its solution, and the cycles then creep).
  const int cap = std::max(sweeps, g.sweep_cap);
  g.previous.resize(G.contacts.size());
  for (int s = 0; s < cap; ++s) {
    for (std::size_t c = 0; c < G.contacts.size(); ++c) g.previous[c] = g.contacts[G.contacts[c].fine].r;
    matrixfree::coarse_sweeps(G, g.contacts, 1);
    double changed = 0.0, size = 0.0;
    for (std::size_t c = 0; c < G.contacts.size(); ++c) {
      const Eigen::Vector3d& r = g.contacts[G.contacts[c].fine].r;
      changed += (r - g.previous[c]).squaredNorm(), size += r.squaredNorm();
    }
    if (changed <= (g.sweep_cap > 0 ? 1e-24 : 1e-12) * size) break;
  }
  // Back to this process's beads: its aggregates' new rigid motions, the changes of the contacts it holds (both
  // sides of a pair contact apply the same change, each to its own bead), then its trees.
  matrixfree::start_deficits(top, G, g.offset, weight, bodies, work);
  for (const AggregateLevel::Contact& cc : G.contacts) {
    const int local = g.local[cc.fine];
    if (local < 0) continue;
    matrixfree::add_boundary_change(local, weight * (g.contacts[cc.fine].r - cc.r0), contacts, work);
  }
  matrixfree::route_and_apply(top, routing, contacts, bodies, work);
  times_.sweep += lap(clock);
}

solvers::SolverStats InterfaceNsgs::solve_multilevel(std::vector<SweepContact>& contacts, const SweepLayout& layout,
                                                     const BodyArrays& bodies, double q_norm,
                                                     const matrixfree::MatrixFreeParameters& fine,
                                                     const matrixfree::MultilevelParameters& params,
                                                     matrixfree::MultilevelWorkspace& work, const double* gaps) {
  double t = MPI_Wtime();
  if (classified_ != contacts.size()) classify(contacts);  // contact_velocity_norm classified this step's
  times_.plan += lap(t);
  ++times_.solves;
  times_.contacts += counted_;
  times_.interface_contacts += static_cast<std::int64_t>(swept_.size());
  // The steps that solve plainly after a solve gave its levels up (MultilevelParameters::retry_after) build and
  // gather none; the countdown is the same on every process (its solves fail alike).
  if (work.cooldown == 0) {
    // Aggregates of this process's beads, bound and bounded by its interior contacts only.
    const int n = static_cast<int>(contacts.size());
    joinable_.resize(n);
    for (int i = 0; i < n; ++i) joinable_[i] = kind_[i] == kInterior;
    matrixfree::build_aggregate_levels(contacts, gaps, bodies, params, work, joinable_.data(), own_.owned);
    // How many top levels to gather: as many as every process with levels has, up to kMaxTopLevels, while the finest
    // of them holds no more contacts than a process does on average (each of its coarse sweeps, which every process
    // runs whole, then costs at most one fine sweep of a process). The coarsest is always gathered. A process without
    // levels gives none.
    const int m = static_cast<int>(work.levels.size());
    constexpr int kValues = 2 + kMaxTopLevels;
    int mine[kValues];
    mine[0] = m, mine[1] = counted_;
    for (int d = 0; d < kMaxTopLevels; ++d)
      mine[2 + d] = m - 1 - d >= 0 ? static_cast<int>(work.levels[m - 1 - d].contacts.size() + swept_.size()) : 0;
    std::vector<int> depth(kValues * static_cast<std::size_t>(size_));
    MPI_Allgather(mine, kValues, MPI_INT, depth.data(), kValues, MPI_INT, comm_);
    int tops = kMaxTopLevels;
    bool any = false;
    double per_process = 0.0;
    for (int r = 0; r < size_; ++r) {
      per_process += depth[kValues * r + 1] / static_cast<double>(size_);
      if (const int mr = depth[kValues * r]; mr > 0) tops = std::min(tops, mr), any = true;
    }
    if (!any) tops = 0;
    while (tops > 1) {
      double total = 0.0;
      for (int r = 0; r < size_; ++r) total += depth[kValues * r + 1 + tops];
      if (total <= per_process) break;
      --tops;
    }
    gathered_.resize(tops);
    for (int k = 0; k < tops; ++k)
      gather_level(k, contacts, bodies, m > 0 ? &work.levels[m - tops + k] : nullptr, k == tops - 1);
    work.setup_seconds = lap(t);
  }

  // A local class has this member's access: the cycles' fine operations are this solve's.
  struct Fine final : matrixfree::MultilevelFine {
    InterfaceNsgs& self;
    std::vector<SweepContact>& contacts;
    const SweepLayout& layout;
    const BodyArrays& bodies;
    double q_norm;
    matrixfree::MultilevelWorkspace& work;
    Fine(InterfaceNsgs& s, std::vector<SweepContact>& c, const SweepLayout& l, const BodyArrays& b, double q,
         matrixfree::MultilevelWorkspace& w)
        : self(s), contacts(c), layout(l), bodies(b), q_norm(q), work(w) {}
    double residual(int) override {
      ++work.fine.residual_checks;
      return self.spread(contacts, layout, bodies, q_norm, {}, nullptr, nullptr, Spread::kResidual, 0).residual;
    }
    solvers::SolverStats plain(const matrixfree::MatrixFreeParameters& p, int) override {
      return self.spread(contacts, layout, bodies, q_norm, p, nullptr, nullptr, Spread::kSolve, 0);
    }
    void sweep(int count) override {
      matrixfree::MatrixFreeParameters p;
      p.threads = threads;
      self.spread(contacts, layout, bodies, q_norm, p, nullptr, nullptr, Spread::kSweeps, count);
    }
    // The same on every process: the gathered levels are.
    bool coarse() const override {
      for (const GatheredLevel& g : self.gathered_)
        if (!g.level.contacts.empty()) return true;
      return false;
    }
    int top_levels() const override { return static_cast<int>(self.gathered_.size()); }
    void visit_top(int t, int sweeps, double weight, matrixfree::Routing routing) override {
      const int m = static_cast<int>(work.levels.size()), tops = top_levels();
      self.visit_gathered(t, contacts, bodies, m > 0 ? &work.levels[m - tops + t] : nullptr, work, sweeps, weight,
                          routing);
    }
    int threads = 1;
  } f(*this, contacts, layout, bodies, q_norm, work);
  f.threads = fine.threads;
  solvers::SolverStats stats =
      matrixfree::multilevel_cycles(f, contacts, bodies, fine, params, work, false,
                                    "partitioned multilevel NSGS (" + std::to_string(size_) + " processes)");
  // The sweepers' impulses become the partners' (the cycles' last sweeps and visits changed them).
  t = MPI_Wtime();
  send_impulses(contacts, nullptr);
  times_.gather += lap(t);
  classified_ = static_cast<std::size_t>(-1);
  stats.counters.colours = static_cast<int>(round_pair_.size());
  return stats;
}

}  // namespace talus::distributed
