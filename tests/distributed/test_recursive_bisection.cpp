// The regions of a partitioned model (engine/distributed/RecursiveBisection.hpp): every cut puts at least the target
// weight below its plane and no more than it needs, every rank gets one region, and points spread over several
// processes (simulated by threads whose reductions meet at a barrier) give the same regions, bit for bit, as one
// process holding them all: no centre has to be gathered.
#include <barrier>
#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <thread>

#include "engine/distributed/RecursiveBisection.hpp"

using talus::distributed::bisect;
using talus::distributed::RankRegions;
using talus::SpreadReductions;
using talus::WholeReductions;

namespace {

struct Cloud {
  std::vector<Eigen::Vector3d> x;
  std::vector<double> w;
};

// A pile: wide and low, clustered at the bottom, integer weights 1..13 (1 + contacts).
Cloud pile(int n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uniform_int_distribution<int> c(0, 12);
  Cloud p;
  for (int i = 0; i < n; ++i) {
    p.x.emplace_back(0.3 * u(g) - 0.1, 0.2 * u(g), 0.1 * u(g) * u(g));
    p.w.push_back(1.0 + c(g));
  }
  return p;
}

// P processes as threads: each reduction waits for all, then every thread sums the slots in process order.
class ThreadReductions final : public SpreadReductions {
 public:
  struct Shared {
    explicit Shared(int p) : slots(p), meet(p) {}
    std::vector<std::vector<double>> slots;
    std::barrier<> meet;
  };
  ThreadReductions(Shared& s, int me) : s_(s), me_(me) {}
  void sum(double* v, int n) override { combine(v, n, false); }
  void min(double* v, int n) override { combine(v, n, true); }

 private:
  void combine(double* v, int n, bool least) {
    s_.slots[me_].assign(v, v + n);
    s_.meet.arrive_and_wait();
    for (int k = 0; k < n; ++k) {
      double a = s_.slots[0][k];
      for (std::size_t p = 1; p < s_.slots.size(); ++p) a = least ? std::min(a, s_.slots[p][k]) : a + s_.slots[p][k];
      v[k] = a;
    }
    s_.meet.arrive_and_wait();  // every thread has read the slots before they are written again
  }
  Shared& s_;
  int me_;
};

// The weight below each inner node's plane against its target, from the points that reach the node.
void check_cuts(const RankRegions& r, const Cloud& p) {
  std::vector<std::vector<int>> at(r.nodes.size());
  std::vector<int> all(p.x.size());
  for (std::size_t i = 0; i < p.x.size(); ++i) all[i] = static_cast<int>(i);
  at[0] = all;
  std::vector<int> ranks_of(r.nodes.size(), 0);
  ranks_of[0] = r.ranks();
  std::vector<int> leaves;
  for (std::size_t k = 0; k < r.nodes.size(); ++k) {
    const RankRegions::Node& nd = r.nodes[k];
    if (nd.low < 0) {
      leaves.push_back(nd.rank);
      continue;
    }
    double total = 0.0, below = 0.0, last_below = 0.0, top_below = -INFINITY;
    for (int i : at[k]) {
      total += p.w[i];
      if (p.x[i][nd.axis] < nd.value) {
        below += p.w[i], at[nd.low].push_back(i);
        if (p.x[i][nd.axis] > top_below) top_below = p.x[i][nd.axis], last_below = p.w[i];
      } else {
        at[nd.high].push_back(i);
      }
    }
    ranks_of[nd.low] = ranks_of[k] / 2, ranks_of[nd.high] = ranks_of[k] - ranks_of[k] / 2;
    const double target = total * (ranks_of[k] / 2) / ranks_of[k];
    INFO("node " << k << ": " << at[k].size() << " points, weight below " << below << ", target " << target);
    CHECK(below >= target);
    // No more than needed: without the highest point below (and any at its coordinate) the target is not met.
    double without = 0.0;
    for (int i : at[k])
      if (p.x[i][nd.axis] < top_below) without += p.w[i];
    CHECK(without < target);
    (void)last_below;
  }
  std::sort(leaves.begin(), leaves.end());
  for (std::size_t k = 0; k < leaves.size(); ++k) CHECK(leaves[k] == static_cast<int>(k));
}

}  // namespace

TEST_CASE("recursive bisection: each cut takes the target weight and no more, one region per rank") {
  const Cloud p = pile(3000, 7);
  for (int R = 1; R <= 7; ++R) {
    WholeReductions whole;
    const RankRegions r = bisect(p.x.data(), p.w.data(), static_cast<int>(p.x.size()), R, whole);
    INFO(R << " ranks");
    CHECK(r.ranks() == R);
    check_cuts(r, p);
    // Every region holds about 1/R of the weight: within a few beads' weight of it.
    std::vector<double> held(R, 0.0);
    double total = 0.0;
    for (std::size_t i = 0; i < p.x.size(); ++i) held[r.owner(p.x[i])] += p.w[i], total += p.w[i];
    for (double h : held) CHECK(std::abs(h - total / R) <= 3 * 13.0);
  }
}

TEST_CASE("recursive bisection: points spread over processes give the regions of one process holding them all") {
  const Cloud p = pile(2000, 11);
  for (int P : {2, 3, 4}) {
    for (int R : {2, 3, 4, 5}) {
      WholeReductions whole;
      const RankRegions expected = bisect(p.x.data(), p.w.data(), static_cast<int>(p.x.size()), R, whole);
      ThreadReductions::Shared shared(P);
      std::vector<RankRegions> got(P);
      std::vector<std::thread> threads;
      for (int t = 0; t < P; ++t)
        threads.emplace_back([&, t] {
          // Process t holds every P-th point, from t (interleaved: each holds points everywhere).
          Cloud mine;
          for (std::size_t i = t; i < p.x.size(); i += P) mine.x.push_back(p.x[i]), mine.w.push_back(p.w[i]);
          ThreadReductions reduce(shared, t);
          got[t] = bisect(mine.x.data(), mine.w.data(), static_cast<int>(mine.x.size()), R, reduce);
        });
      for (std::thread& th : threads) th.join();
      for (int t = 0; t < P; ++t) {
        INFO(P << " processes, " << R << " ranks, process " << t);
        CHECK(got[t] == expected);
      }
    }
  }
}

TEST_CASE("recursive bisection: no points, and every point at one place") {
  WholeReductions whole;
  const RankRegions none = bisect(nullptr, nullptr, 0, 4, whole);
  CHECK(none.ranks() == 4);
  for (const RankRegions::Node& nd : none.nodes)
    if (nd.low >= 0) CHECK((nd.axis == 0 && nd.value == 0.0));
  std::vector<Eigen::Vector3d> x(10, Eigen::Vector3d(0.5, 0.5, 0.5));
  std::vector<double> w(10, 1.0);
  const RankRegions same = bisect(x.data(), w.data(), 10, 3, whole);
  CHECK(same.ranks() == 3);
  std::vector<int> count(3, 0);
  for (const Eigen::Vector3d& y : x) ++count[same.owner(y)];
  CHECK(count[0] + count[1] + count[2] == 10);
}
