#include "solvers/distributed/InterfaceNsgs.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "solvers/core/FrictionContactProblem.hpp"
#include "solvers/distributed/FixedOrderSum.hpp"
#include "solvers/matrixfree/GeneralContactSweep.hpp"
#include "solvers/matrixfree/MatrixFreeNsgs.hpp"
#include "solvers/distributed/SpreadSweep.hpp"
#include "solvers/distributed/VelocityMessages.hpp"

namespace talus::distributed {

using matrixfree::BodyArrays;
using matrixfree::SweepContact;
using matrixfree::SweepLayout;

namespace {

constexpr int kTagRound = 11, kTagRefresh = 12, kTagImpulse = 13;

}  // namespace

InterfaceNsgs::InterfaceNsgs(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

double InterfaceNsgs::common_margin(double local) {
  double all = local;  // a maximum is exact whatever the order it is taken in
  MPI_Allreduce(&local, &all, 1, MPI_DOUBLE, MPI_MAX, comm_);
  return all;
}

void InterfaceNsgs::classify(const std::vector<SweepContact>& contacts) {
  const int n = static_cast<int>(contacts.size()), owned = own_.owned;
  kind_.assign(n, kOther);
  interior_count_ = 0;
  for (Pair& p : pairs_) p.contacts.clear(), p.beads.clear();
  std::vector<int> pair_of(size_, -1);
  for (std::size_t k = 0; k < pairs_.size(); ++k) pair_of[pairs_[k].rank] = static_cast<int>(k);
  for (int i = 0; i < n; ++i) {
    const SweepContact& c = contacts[i];
    const bool ghost_a = c.a >= owned, ghost_b = c.b >= owned;
    if (!ghost_a && !ghost_b) {
      kind_[i] = kInterior;
      ++interior_count_;
      continue;
    }
    if (c.a < 0 || (ghost_a && ghost_b)) continue;  // another process's contact
    const int ghost = ghost_a ? c.a : c.b;
    const int s = own_.ghost_rank[ghost - owned];
    if (pair_of[s] < 0) {
      pair_of[s] = static_cast<int>(pairs_.size());
      Pair fresh;
      fresh.rank = s;
      pairs_.push_back(std::move(fresh));
    }
    kind_[i] = rank_ < s ? kSwept : kPartner;
    pairs_[pair_of[s]].contacts.push_back(i);
  }
  // Drop partners without contacts this step; keep the others in rank order.
  pairs_.erase(std::remove_if(pairs_.begin(), pairs_.end(), [](const Pair& p) { return p.contacts.empty(); }),
               pairs_.end());
  std::sort(pairs_.begin(), pairs_.end(), [](const Pair& x, const Pair& y) { return x.rank < y.rank; });
  const std::uint32_t* id = own_.id;
  for (Pair& p : pairs_) {
    p.sweeper = rank_ < p.rank;
    // Both sides order the pair's contacts and beads by ids, which are the same on both.
    sort_scratch_.clear();
    for (const std::int32_t i : p.contacts) {
      const std::uint64_t x = id[contacts[i].a], y = id[contacts[i].b];
      sort_scratch_.emplace_back((std::min(x, y) << 32) | std::max(x, y), i);
    }
    std::sort(sort_scratch_.begin(), sort_scratch_.end());
    for (std::size_t k = 0; k < sort_scratch_.size(); ++k) p.contacts[k] = sort_scratch_[k].second;
    // The non-sweeping side's beads (ghosts at the sweeper, own beads at the partner).
    sort_scratch_.clear();
    for (const std::int32_t i : p.contacts) {
      const SweepContact& c = contacts[i];
      const std::int32_t theirs = p.sweeper ? (c.a >= owned ? c.a : c.b) : (c.a >= owned ? c.b : c.a);
      sort_scratch_.emplace_back(id[theirs], theirs);
    }
    std::sort(sort_scratch_.begin(), sort_scratch_.end());
    sort_scratch_.erase(std::unique(sort_scratch_.begin(), sort_scratch_.end()), sort_scratch_.end());
    for (const auto& [key, bead] : sort_scratch_) p.beads.push_back(bead);
  }
  classified_ = contacts.size();
  plan_rounds();
  counted_ = interior_count_;
  for (const Pair& p : pairs_)
    if (p.sweeper) counted_ += static_cast<int>(p.contacts.size());
}

void InterfaceNsgs::plan_rounds() {
  // The table of pair-contact counts, every process's row: the graph the rounds colour, and a check that both
  // sides of each pair found the same contacts (the same count).
  pair_count_.assign(size_, 0);
  for (const Pair& p : pairs_) pair_count_[p.rank] = static_cast<int>(p.contacts.size());
  all_counts_.resize(static_cast<std::size_t>(size_) * size_);
  MPI_Allgather(pair_count_.data(), size_, MPI_INT, all_counts_.data(), size_, MPI_INT, comm_);
  for (int r = 0; r < size_; ++r)
    for (int s = r + 1; s < size_; ++s)
      if (all_counts_[r * size_ + s] != all_counts_[s * size_ + r])
        throw std::runtime_error("partitioned solve: process " + std::to_string(r) + " finds " +
                                 std::to_string(all_counts_[r * size_ + s]) + " contacts between its beads and those of "
                                 "process " + std::to_string(s) + ", which finds " +
                                 std::to_string(all_counts_[s * size_ + r]) +
                                 " (their copies of the beads or the step's margin differ)");
  // Greedy edge colouring in rank order: the same rounds on every process.
  std::vector<std::vector<char>> busy;  // busy[round][rank]
  round_pair_.clear();
  for (int r = 0; r < size_; ++r)
    for (int s = r + 1; s < size_; ++s) {
      if (all_counts_[r * size_ + s] == 0) continue;
      int k = 0;
      while (k < static_cast<int>(busy.size()) && (busy[k][r] || busy[k][s])) ++k;
      if (k == static_cast<int>(busy.size())) {
        busy.emplace_back(size_, 0);
        round_pair_.push_back(-1);
      }
      busy[k][r] = busy[k][s] = 1;
      if (r == rank_ || s == rank_) {
        const int other = r == rank_ ? s : r;
        for (std::size_t j = 0; j < pairs_.size(); ++j)
          if (pairs_[j].rank == other) round_pair_[k] = static_cast<int>(j);
      }
    }
  // The swept contacts in sweep order: round by round.
  swept_.clear();
  swept_start_.assign(pairs_.size(), 0);
  for (const int j : round_pair_)
    if (j >= 0 && pairs_[j].sweeper) {
      swept_start_[j] = static_cast<int>(swept_.size());
      swept_.insert(swept_.end(), pairs_[j].contacts.begin(), pairs_[j].contacts.end());
    }
}

bool InterfaceNsgs::any_over_processes(bool local) {
  int mine = local ? 1 : 0, any = 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm_);
  return any != 0;
}

void InterfaceNsgs::largest_over_processes(double& value, std::int64_t& tag) {
  struct {
    double value;
    int rank;
  } mine{value, rank_}, largest{};
  MPI_Allreduce(&mine, &largest, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm_);
  value = largest.value;
  MPI_Bcast(&tag, 1, MPI_INT64_T, largest.rank, comm_);
}

void InterfaceNsgs::sum_over_processes(double* values, int n) {
  fixed_order_sum(comm_, values, n, values, reduce_scratch_);
}

double InterfaceNsgs::contact_velocity_norm(const std::vector<SweepContact>& contacts, const BodyArrays& bodies,
                                            double, double own_general_squared) {
  classify(contacts);
  double local = own_general_squared;
  for_mine([&](int i, int) { local += matrixfree::contact_velocity(contacts[i], bodies).squaredNorm(); });
  double total = 0.0;
  fixed_order_sum(comm_, &local, 1, &total, reduce_scratch_);
  return std::sqrt(total);
}

template <class F>
void InterfaceNsgs::round(int k, bool backward, const BodyArrays& bodies, F&& f) {
  const int j = round_pair_[k];
  if (j < 0) return;
  Pair& p = pairs_[j];
  double t = MPI_Wtime();
  const int count = kValuesPerBody * static_cast<int>(p.beads.size());
  if (p.sweeper) {
    recv_.resize(count);
    MPI_Recv(recv_.data(), count, MPI_DOUBLE, p.rank, kTagRound, comm_, MPI_STATUS_IGNORE);
    unpack_velocities(p.beads, recv_.data(), bodies);
    times_.exchange += lap(t);
    const int n = static_cast<int>(p.contacts.size()), base = swept_start_[j];
    if (backward)
      for (int m = n - 1; m >= 0; --m) f(p.contacts[m], static_cast<int>(kind_.size()) + base + m);
    else
      for (int m = 0; m < n; ++m) f(p.contacts[m], static_cast<int>(kind_.size()) + base + m);
    times_.sweep += lap(t);
    pack_velocities(p.beads, bodies, send_);
    MPI_Send(send_.data(), count, MPI_DOUBLE, p.rank, kTagRound, comm_);
  } else {
    pack_velocities(p.beads, bodies, send_);
    MPI_Send(send_.data(), count, MPI_DOUBLE, p.rank, kTagRound, comm_);
    recv_.resize(count);
    MPI_Recv(recv_.data(), count, MPI_DOUBLE, p.rank, kTagRound, comm_, MPI_STATUS_IGNORE);
    unpack_velocities(p.beads, recv_.data(), bodies);
  }
  times_.bytes_sent += static_cast<std::int64_t>(count * sizeof(double));
  ++times_.messages;
  times_.exchange += lap(t);
}

void InterfaceNsgs::refresh(const BodyArrays& bodies) {
  refresh_buffers_.resize(pairs_.size());
  requests_.resize(pairs_.size());
  for (std::size_t j = 0; j < pairs_.size(); ++j) {
    const Pair& p = pairs_[j];
    std::vector<double>& buf = refresh_buffers_[j];
    const int count = kValuesPerBody * static_cast<int>(p.beads.size());
    if (p.sweeper) {
      buf.resize(count);
      MPI_Irecv(buf.data(), count, MPI_DOUBLE, p.rank, kTagRefresh, comm_, &requests_[j]);
    } else {
      pack_velocities(p.beads, bodies, buf);
      MPI_Isend(buf.data(), count, MPI_DOUBLE, p.rank, kTagRefresh, comm_, &requests_[j]);
      times_.bytes_sent += static_cast<std::int64_t>(count * sizeof(double));
      ++times_.messages;
    }
  }
  MPI_Waitall(static_cast<int>(pairs_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  for (std::size_t j = 0; j < pairs_.size(); ++j)
    if (pairs_[j].sweeper) unpack_velocities(pairs_[j].beads, refresh_buffers_[j].data(), bodies);
}

void InterfaceNsgs::send_impulses(std::vector<SweepContact>& contacts, matrixfree::RollingContact* rolling) {
  // The sweeper's impulses (and rolling impulses) become the partner's: both caches keep the same warm start.
  const int width = rolling ? 5 : 3;
  refresh_buffers_.resize(pairs_.size());
  requests_.resize(pairs_.size());
  for (std::size_t j = 0; j < pairs_.size(); ++j) {
    const Pair& p = pairs_[j];
    std::vector<double>& buf = refresh_buffers_[j];
    const int count = width * static_cast<int>(p.contacts.size());
    buf.resize(count);
    if (p.sweeper) {
      for (std::size_t m = 0; m < p.contacts.size(); ++m) {
        for (int d = 0; d < 3; ++d) buf[width * m + d] = contacts[p.contacts[m]].r[d];
        if (rolling) buf[width * m + 3] = rolling[p.contacts[m]].rho[0], buf[width * m + 4] = rolling[p.contacts[m]].rho[1];
      }
      MPI_Isend(buf.data(), count, MPI_DOUBLE, p.rank, kTagImpulse, comm_, &requests_[j]);
      times_.bytes_sent += static_cast<std::int64_t>(count * sizeof(double));
      ++times_.messages;
    } else {
      MPI_Irecv(buf.data(), count, MPI_DOUBLE, p.rank, kTagImpulse, comm_, &requests_[j]);
    }
  }
  MPI_Waitall(static_cast<int>(pairs_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  for (std::size_t j = 0; j < pairs_.size(); ++j)
    if (!pairs_[j].sweeper)
      for (std::size_t m = 0; m < pairs_[j].contacts.size(); ++m) {
        const double* in = refresh_buffers_[j].data() + width * m;
        contacts[pairs_[j].contacts[m]].r = Eigen::Vector3d(in[0], in[1], in[2]);
        if (rolling) rolling[pairs_[j].contacts[m]].rho = Eigen::Vector2d(in[3], in[4]);
      }
}

solvers::SolverStats InterfaceNsgs::solve(std::vector<SweepContact>& contacts, const SweepLayout& L,
                                          const BodyArrays& bodies, double q_norm,
                                          const matrixfree::MatrixFreeParameters& p,
                                          matrixfree::RollingContacts* rolling,
                                          matrixfree::GeneralContactSweep* general) {
  if (p.nncg) throw std::invalid_argument("partitioned solve: NNCG is not spread over processes");
  matrixfree::RollingContact* roll = rolling && !rolling->empty() ? rolling->data() : nullptr;
  if (roll && rolling->size() != contacts.size())
    throw std::invalid_argument("partitioned solve: " + std::to_string(rolling->size()) + " rolling records for " +
                                std::to_string(contacts.size()) + " contacts");
  double t = MPI_Wtime();
  if (classified_ != contacts.size()) classify(contacts);  // contact_velocity_norm classified this step's
  classified_ = static_cast<std::size_t>(-1);
  times_.plan += lap(t);
  ++times_.solves;
  times_.contacts += counted_;
  times_.interface_contacts += static_cast<std::int64_t>(swept_.size());
  // Contacts of other shapes on any process turn Anderson off on all of them (its sums are collective).
  matrixfree::MatrixFreeParameters q = p;
  if (any_over_processes(general && !general->empty())) q.anderson = 0;
  return spread(contacts, L, bodies, q_norm, q, roll, general, Spread::kSolve, 0);
}

solvers::SolverStats InterfaceNsgs::spread(std::vector<SweepContact>& contacts, const SweepLayout& L,
                                           const BodyArrays& bodies, double q_norm,
                                           const matrixfree::MatrixFreeParameters& p,
                                           matrixfree::RollingContact* roll, matrixfree::GeneralContactSweep* general,
                                           Spread what, int count) {
  const bool others = general && !general->empty();
  const double start = MPI_Wtime();
  const int n = static_cast<int>(contacts.size());
  const int slots = n + static_cast<int>(swept_.size());  // Anderson history: interior contact i at i, swept m at n + m
  const int rounds = static_cast<int>(round_pair_.size());
  const int threads = std::max(1, p.threads);
  const int P = L.partitions, base = L.interface_begin();

  // One pass in sweep order (backward: reversed): the interior contacts, then the rounds; f(i, slot) with slot the
  // contact's place in the Anderson history. The interior contacts are visited in place (most contacts of a
  // process are), skipping the others.
  auto pass = [&](bool backward, auto&& f, auto&& f2, bool parallel) {
    auto interior = [&] {
      double s = MPI_Wtime();
      auto one = [&](int i) {
        if (kind_[i] == kInterior) f(i, i);
      };
      // Two contacts of different blocks share no bead (SweepPartition.hpp, for_blocks).
      auto two = [&](int i, int j) {
        const bool a = kind_[i] == kInterior, b = kind_[j] == kInterior;
        if (a && b)
          f2(i, i, j, j);
        else if (a)
          f(i, i);
        else if (b)
          f(j, j);
      };
      auto interface = [&] {  // the contacts between blocks, in order
        if (backward)
          for (int i = n - 1; i >= base; --i) one(i);
        else
          for (int i = base; i < n; ++i) one(i);
      };
      const int T = parallel && threads > 1 && P > 1 ? threads : 1;
      if (backward) interface();
#pragma omp parallel num_threads(T) if (T > 1)
      matrixfree::for_blocks(L, backward, one, two);
      if (!backward) interface();
      // The contacts of other shapes after the beads' (MatrixFreeNsgs.hpp), in sweeps only (not in Anderson's moves).
      if (parallel && others) {
        const int TG = threads > 1 ? threads : 1;
#pragma omp parallel num_threads(TG) if (TG > 1)
        matrixfree::sweep_general_contacts(*general);
      }
      times_.sweep += lap(s);
    };
    if (backward) {
      for (int k = rounds - 1; k >= 0; --k) round(k, true, bodies, f);
      interior();
    } else {
      interior();
      for (int k = 0; k < rounds; ++k) round(k, false, bodies, f);
    }
  };
  auto residual_now = [&] {
    double s = MPI_Wtime();
    refresh(bodies);
    times_.exchange += lap(s);
    double local = 0.0;
    auto add = [&](std::int32_t i) {
      const Eigen::Vector3d u = matrixfree::contact_velocity(contacts[i], bodies);
      local += solvers::contact_residual_squared(contacts[i].r.data(), u.data(), 3, contacts[i].mu);
      if (roll) local += matrixfree::rolling_error_squared(contacts[i], roll[i], bodies);
    };
    for_mine([&](int i, int) { add(i); });
    if (others) {
      const int TG = threads > 1 ? threads : 1;
#pragma omp parallel num_threads(TG) if (TG > 1)
      matrixfree::general_residual_blocks(*general);
      local += matrixfree::general_squared_error(*general);
    }
    times_.sweep += lap(s);
    double total = 0.0;
    fixed_order_sum(comm_, &local, 1, &total, reduce_scratch_);
    times_.reduce += lap(s);
    return std::sqrt(total) / (1.0 + q_norm);
  };

  solvers::SolverStats stats;
  stats.counters.colours = rounds;
  if (what == Spread::kResidual) {
    stats.residual = residual_now();
    return stats;
  }
  if (what == Spread::kSweeps) {  // plain forward sweeps, the multilevel cycles' smoother
    for (int k = 0; k < count; ++k)
      pass(
          false, [&](int i, int) { matrixfree::sweep_update<false>(contacts[i], bodies, 1.0); },
          [&](int i, int, int j, int) { matrixfree::sweep_update_pair<false>(contacts[i], contacts[j], bodies, 1.0); },
          true);
    times_.sweeps += count;
    stats.counters.sweeps = count;
    return stats;
  }
  // The loop (SpreadSweep.hpp). Every process takes part in every check and sweep, even one without contacts
  // (the sums and rounds are collective), and all stop alike, on the common residual.
  // Anderson is off with rolling resistance, as in the one-process solve (the rolling impulses are not extrapolated).
  const matrixfree::SweepSchedule sc = spread_sweeps(
      contacts, bodies, p, p.anderson > 0 && !roll, false, static_cast<std::size_t>(slots), history_, times_, pass,
      [&](auto&& g) { for_mine(g); }, residual_now,
      [&](const double* local, int n, double* total) { fixed_order_sum(comm_, local, n, total, reduce_scratch_); },
      roll);
  const int sweeps = sc.sweeps;
  const double residual = sc.residual;
  double s = MPI_Wtime();
  send_impulses(contacts, roll);
  times_.gather += lap(s);
  matrixfree::set_solve_outcome(stats, sweeps, residual, p.tolerance,
                                "partitioned NSGS (" + std::to_string(size_) + " processes)",
                                std::to_string(sweeps) + " sweeps");
  stats.seconds = MPI_Wtime() - start;
  return stats;
}

}  // namespace talus::distributed
