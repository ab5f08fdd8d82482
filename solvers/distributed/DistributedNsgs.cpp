#include "solvers/distributed/DistributedNsgs.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "solvers/core/FrictionContactProblem.hpp"
#include "solvers/distributed/FixedOrderSum.hpp"
#include "solvers/matrixfree/AndersonSweep.hpp"
#include "solvers/matrixfree/GeneralContactSweep.hpp"
#include "solvers/distributed/SpreadSweep.hpp"
#include "solvers/distributed/VelocityMessages.hpp"

namespace talus::distributed {

using matrixfree::BodyArrays;
using matrixfree::SweepContact;
using matrixfree::SweepLayout;

DistributedNsgs::DistributedNsgs(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

void DistributedNsgs::exchange(int phase, const BodyArrays& bodies) {
  const std::vector<RankLink>& send = plan_.send[phase];
  const std::vector<RankLink>& recv = plan_.recv[phase];
  if (send.empty() && recv.empty()) return;
  send_buffers_.resize(std::max(send_buffers_.size(), send.size()));
  recv_buffers_.resize(std::max(recv_buffers_.size(), recv.size()));
  requests_.resize(send.size() + recv.size());
  int q = 0;
  for (std::size_t j = 0; j < recv.size(); ++j) {
    std::vector<double>& buf = recv_buffers_[j];
    buf.resize(kValuesPerBody * recv[j].bodies.size());
    MPI_Irecv(buf.data(), static_cast<int>(buf.size()), MPI_DOUBLE, recv[j].rank, phase, comm_, &requests_[q++]);
  }
  for (std::size_t j = 0; j < send.size(); ++j) {
    std::vector<double>& buf = send_buffers_[j];
    pack_velocities(send[j].bodies, bodies, buf);
    MPI_Isend(buf.data(), static_cast<int>(buf.size()), MPI_DOUBLE, send[j].rank, phase, comm_, &requests_[q++]);
    times_.bytes_sent += static_cast<std::int64_t>(buf.size() * sizeof(double));
    ++times_.messages;
  }
  MPI_Waitall(q, requests_.data(), MPI_STATUSES_IGNORE);
  for (std::size_t j = 0; j < recv.size(); ++j) unpack_velocities(recv[j].bodies, recv_buffers_[j].data(), bodies);
}

void DistributedNsgs::reduce_sums(const double* local, int n, double* total) {
  // The same bits on every rank, run after run, in log₂ R rounds (FixedOrderSum.hpp).
  fixed_order_sum(comm_, local, n, total, reduce_scratch_);
}

double DistributedNsgs::reduce_sum(double local) {
  double total = 0.0;
  reduce_sums(&local, 1, &total);
  return total;
}

void DistributedNsgs::gather(std::vector<SweepContact>& contacts, const SweepLayout& L, const BodyArrays& bodies) {
  if (size_ == 1) return;  // one rank holds everything already
  // The owned beads' velocities: contiguous ranges, in rank order.
  counts_.resize(size_), offsets_.resize(size_);
  for (int r = 0; r < size_; ++r) {
    counts_[r] = kValuesPerBody * (plan_.body_begin[r + 1] - plan_.body_begin[r]);
    offsets_[r] = kValuesPerBody * plan_.body_begin[r];
  }
  const int b0 = plan_.body_begin[rank_], b1 = plan_.body_begin[rank_ + 1];
  pack_.resize(static_cast<std::size_t>(kValuesPerBody) * (b1 - b0));
  for (int i = b0; i < b1; ++i)
    for (int d = 0; d < 3; ++d) pack_[kValuesPerBody * (i - b0) + d] = bodies.v[i][d], pack_[kValuesPerBody * (i - b0) + 3 + d] = bodies.w[i][d];
  unpack_.resize(static_cast<std::size_t>(kValuesPerBody) * plan_.body_begin[size_]);
  MPI_Allgatherv(pack_.data(), counts_[rank_], MPI_DOUBLE, unpack_.data(), counts_.data(), offsets_.data(), MPI_DOUBLE,
                 comm_);
  for (int i = 0; i < plan_.body_begin[size_]; ++i)
    for (int d = 0; d < 3; ++d) bodies.v[i][d] = unpack_[kValuesPerBody * i + d], bodies.w[i][d] = unpack_[kValuesPerBody * i + 3 + d];

  // The impulses of the contacts each rank swept: its interior range, then its interface contacts in sweep order.
  const int base = L.interface_begin();
  std::vector<int>& interface_count = interface_count_;  // member scratch: no allocation per solve
  interface_count.assign(size_, 0);
  for (const std::int8_t s : plan_.solver) ++interface_count[s];
  int offset = 0;
  for (int r = 0; r < size_; ++r) {
    counts_[r] = 3 * (plan_.contact_begin[r + 1] - plan_.contact_begin[r] + interface_count[r]);
    offsets_[r] = offset;
    offset += counts_[r];
  }
  pack_.resize(counts_[rank_]);
  double* o = pack_.data();
  auto put = [&](int i) {
    for (int d = 0; d < 3; ++d) o[d] = contacts[i].r[d];
    o += 3;
  };
  for (int i = plan_.contact_begin[rank_]; i < plan_.contact_begin[rank_ + 1]; ++i) put(i);
  for (int i = 0; i < static_cast<int>(plan_.solver.size()); ++i)
    if (plan_.solver[i] == rank_) put(base + i);
  unpack_.resize(offset);
  MPI_Allgatherv(pack_.data(), counts_[rank_], MPI_DOUBLE, unpack_.data(), counts_.data(), offsets_.data(), MPI_DOUBLE,
                 comm_);
  std::vector<const double*>& from = from_;
  from.resize(size_);
  for (int r = 0; r < size_; ++r) {
    from[r] = unpack_.data() + offsets_[r];
    for (int i = plan_.contact_begin[r]; i < plan_.contact_begin[r + 1]; ++i, from[r] += 3)
      contacts[i].r = Eigen::Vector3d(from[r][0], from[r][1], from[r][2]);
  }
  for (int i = 0; i < static_cast<int>(plan_.solver.size()); ++i) {
    const double*& f = from[plan_.solver[i]];
    contacts[base + i].r = Eigen::Vector3d(f[0], f[1], f[2]);
    f += 3;
  }
}

solvers::SolverStats DistributedNsgs::solve(std::vector<SweepContact>& contacts, const SweepLayout& L,
                                            const BodyArrays& bodies, double q_norm,
                                            const matrixfree::MatrixFreeParameters& p,
                                            matrixfree::RollingContacts* rolling,
                                            matrixfree::GeneralContactSweep* general) {
  if (p.nncg) throw std::invalid_argument("distributed sweep: NNCG is not spread over ranks");
  if (general && !general->empty())
    throw std::invalid_argument("distributed sweep: contacts of other shapes are not spread over a whole model's ranks");
  if (rolling && !rolling->empty())
    throw std::invalid_argument("distributed sweep: rolling resistance is not spread over a whole model's ranks");
  double t = MPI_Wtime();
  const double start = t;
  build_rank_plan(contacts, L, bodies.spheres, size_, rank_, plan_);
  times_.plan += lap(t);
  ++times_.solves;
  times_.contacts += static_cast<std::int64_t>(contacts.size());
  times_.interface_contacts += plan_.interface_contacts();

  const int c0 = plan_.contact_begin[rank_], c1 = plan_.contact_begin[rank_ + 1];
  const int q0 = plan_.block_begin[rank_], q1 = plan_.block_begin[rank_ + 1];
  const int nc = L.interface_colours();
  // This rank's contacts: its interior range, then its interface contacts (the order of the Anderson history).
  owned_contacts_.clear();
  for (int i = c0; i < c1; ++i) owned_contacts_.push_back(i);
  owned_contacts_.insert(owned_contacts_.end(), plan_.mine.begin(), plan_.mine.end());
  const int owned = static_cast<int>(owned_contacts_.size());

  const int threads = std::max(1, p.threads);
  // One pass over this rank's contacts in sweep order (forward or backward), with the plan's exchanges after the
  // interior and after each colour; f(i, j) with j the contact's place in owned_contacts_.
  auto pass = [&](bool backward, auto&& f, auto&& /*f2: one contact at a time here*/, bool parallel_interior) {
    auto interior = [&] {
      double s = MPI_Wtime();
      if (parallel_interior && threads > 1) {
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
        for (int q = q0; q < q1; ++q) {
          if (backward)
            for (int i = L.part_start[q + 1] - 1; i >= L.part_start[q]; --i) f(i, i - c0);
          else
            for (int i = L.part_start[q]; i < L.part_start[q + 1]; ++i) f(i, i - c0);
        }
      } else if (backward) {
        for (int i = c1 - 1; i >= c0; --i) f(i, i - c0);
      } else {
        for (int i = c0; i < c1; ++i) f(i, i - c0);
      }
      times_.sweep += lap(s);
      exchange(0, bodies);
      times_.exchange += lap(s);
    };
    auto colour = [&](int k) {
      double s = MPI_Wtime();
      const int a = plan_.mine_start[k], e = plan_.mine_start[k + 1];
      // A proper colour's contacts share no bead: split among the threads; the overflow colour in order.
      const bool overflow = L.interface.last_is_overflow && k == nc - 1;
      if (parallel_interior && threads > 1 && !overflow && e - a > 256) {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int j = a; j < e; ++j) f(plan_.mine[j], c1 - c0 + j);
      } else if (backward) {
        for (int j = e - 1; j >= a; --j) f(plan_.mine[j], c1 - c0 + j);
      } else {
        for (int j = a; j < e; ++j) f(plan_.mine[j], c1 - c0 + j);
      }
      times_.sweep += lap(s);
      exchange(k + 1, bodies);
      times_.exchange += lap(s);
    };
    if (backward) {
      for (int k = nc - 1; k >= 0; --k) colour(k);
      interior();
    } else {
      interior();
      for (int k = 0; k < nc; ++k) colour(k);
    }
  };
  auto residual_now = [&] {
    double s = MPI_Wtime();
    double local = 0.0;
    for (const int i : owned_contacts_) {
      const Eigen::Vector3d u = matrixfree::contact_velocity(contacts[i], bodies);
      local += solvers::contact_residual_squared(contacts[i].r.data(), u.data(), 3, contacts[i].mu);
    }
    times_.sweep += lap(s);
    const double total = reduce_sum(local);
    times_.reduce += lap(s);
    return std::sqrt(total) / (1.0 + q_norm);
  };

  // The loop (SpreadSweep.hpp): Anderson over this rank's contacts (interior, then interface), history by place.
  auto for_mine = [&](auto&& g) {
    for (int j = 0; j < owned; ++j) g(owned_contacts_[j], j);
  };
  const matrixfree::SweepSchedule sc = spread_sweeps(
      contacts, bodies, p, p.anderson > 0 && !contacts.empty(), contacts.empty(), static_cast<std::size_t>(owned),
      history_, times_, pass, for_mine, residual_now,
      [&](const double* local, int n, double* total) { reduce_sums(local, n, total); });
  solvers::SolverStats stats;
  stats.counters.colours = nc;
  const int sweeps = sc.sweeps;
  const double residual = sc.residual;
  double s = MPI_Wtime();
  gather(contacts, L, bodies);
  times_.gather += lap(s);
  matrixfree::set_solve_outcome(stats, sweeps, residual, p.tolerance,
                                "distributed NSGS (" + std::to_string(size_) + " ranks)",
                                std::to_string(sweeps) + " sweeps");
  stats.seconds = MPI_Wtime() - start;
  return stats;
}

}  // namespace talus::distributed
