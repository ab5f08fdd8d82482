// The rank plan of the distributed sweep (solvers/distributed/RankPlan.hpp, issue 15), checked in one process by
// emulating R ranks, each with its own copy of the bodies' velocities, that exchange exactly what the plan lists
// after each phase. What it cannot fake: after several sweeps the emulated ranks' reactions and the velocities of
// the beads each one owns are the same bits as the one-process sweep (solvers/matrixfree/MatrixFreeNsgs.hpp);
// the plan's invariant (every copy a rank reads is current) is what makes that hold, and a missing or misplaced
// exchange breaks it at once. Also: every contact is swept by exactly one rank, and what each rank sends to
// another is what that one expects, in the same order.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "solvers/distributed/RankPlan.hpp"

using namespace talus;
using namespace talus::granular;
using talus::distributed::RankLink;
using talus::distributed::RankPlan;
using talus::distributed::build_rank_plan;

namespace {

// A settling pile's contacts, laid out in sweep order for `partitions` blocks, with zero reactions.
struct PileProblem {
  Model model;
  std::vector<SweepContact> contacts;
  SweepLayout layout;
};

PileProblem settling_pile(int partitions) {
  BeadSpec spec;
  spec.n = 600;
  GranularScene sc = bead_stack(spec);
  GranularParameters p;
  p.solver = GranularSolver::MatrixFree;
  p.partitions = partitions;
  GranularStepper s(sc.model, p);
  for (int k = 0; k < 120; ++k) s.step();
  PileProblem out{sc.model, {}, {}};
  const std::vector<SweepContact>& cs = s.contacts();
  const int n = static_cast<int>(cs.size());
  std::vector<std::int32_t> a(n), b(n);
  for (int k = 0; k < n; ++k) a[k] = cs[k].a, b[k] = cs[k].b;
  build_sweep_layout(a.data(), b.data(), n, out.model.bodies.spheres(), partitions, out.layout);
  out.contacts.resize(n);
  for (int k = 0; k < n; ++k) {
    out.contacts[out.layout.slot[k]] = cs[k];
    out.contacts[out.layout.slot[k]].r.setZero();
  }
  // Velocities that press the pile together: the next step's free velocities.
  for (int i = 0; i < out.model.bodies.spheres(); ++i) out.model.bodies.v[i] += p.h * out.model.gravity;
  return out;
}

// One rank's copy of the velocities.
struct RankCopy {
  std::vector<Eigen::Vector3d> v, w;
};

void exchange(const std::vector<RankPlan>& plans, std::vector<RankCopy>& copies, int phase) {
  // Every send is packed before any receive is applied, as with MPI (the plan never sends and receives one body in
  // one phase, but the emulation should not rely on that).
  std::vector<std::vector<std::vector<Eigen::Vector3d>>> packed(plans.size());
  for (std::size_t r = 0; r < plans.size(); ++r)
    for (const RankLink& l : plans[r].send[phase]) {
      std::vector<Eigen::Vector3d> buf;
      for (std::int32_t i : l.bodies) buf.push_back(copies[r].v[i]), buf.push_back(copies[r].w[i]);
      packed[r].push_back(buf);
    }
  for (std::size_t r = 0; r < plans.size(); ++r)
    for (std::size_t j = 0; j < plans[r].send[phase].size(); ++j) {
      const RankLink& l = plans[r].send[phase][j];
      for (std::size_t k = 0; k < l.bodies.size(); ++k) {
        copies[l.rank].v[l.bodies[k]] = packed[r][j][2 * k];
        copies[l.rank].w[l.bodies[k]] = packed[r][j][2 * k + 1];
      }
    }
}

matrixfree::BodyArrays view_of(const Model& m, RankCopy& c) {
  matrixfree::BodyArrays a = body_arrays(const_cast<RigidBodies&>(m.bodies));
  a.v = c.v.data(), a.w = c.w.data();
  return a;
}

}  // namespace

TEST_CASE("rank plan: emulated ranks sweep the same bits as one process") {
  const int partitions = 8;
  PileProblem pile = settling_pile(partitions);
  const int n = static_cast<int>(pile.contacts.size());
  const int N = pile.model.bodies.spheres();
  REQUIRE(pile.layout.interface_colours() > 2);
  REQUIRE(pile.layout.interface_begin() < n);  // there is an interface to exchange across

  // The reference: plain sweeps in one process.
  constexpr int kSweeps = 6;
  std::vector<SweepContact> reference = pile.contacts;
  RigidBodies bodies = pile.model.bodies;
  sweep_matrix_free(reference, pile.layout, body_arrays(bodies), kSweeps, 1);

  for (int R : {1, 2, 3, 4, 8}) {
    INFO(R << " ranks");
    std::vector<RankPlan> plans(R);
    for (int r = 0; r < R; ++r) build_rank_plan(pile.contacts, pile.layout, N, R, r, plans[r]);

    // Every contact swept by exactly one rank.
    std::vector<int> swept(n, 0);
    for (int r = 0; r < R; ++r) {
      for (int i = plans[r].contact_begin[r]; i < plans[r].contact_begin[r + 1]; ++i) ++swept[i];
      for (std::int32_t i : plans[r].mine) ++swept[i];
    }
    CHECK(std::all_of(swept.begin(), swept.end(), [](int s) { return s == 1; }));
    // What r sends to d is what d receives from r, in the same order.
    for (int phase = 0; phase < plans[0].phases(); ++phase)
      for (int r = 0; r < R; ++r)
        for (const RankLink& l : plans[r].send[phase]) {
          const auto& from = plans[l.rank].recv[phase];
          const auto it = std::find_if(from.begin(), from.end(), [&](const RankLink& x) { return x.rank == r; });
          REQUIRE(it != from.end());
          CHECK(it->bodies == l.bodies);
        }

    // kSweeps sweeps of the emulated ranks; with_halo false leaves out the exchange after the interior sweep.
    const SweepLayout& L = pile.layout;
    auto emulate = [&](bool with_halo, std::vector<SweepContact>& contacts, std::vector<RankCopy>& copies) {
      contacts = pile.contacts;
      copies.assign(R, RankCopy{pile.model.bodies.v, pile.model.bodies.w});
      for (int s = 0; s < kSweeps; ++s) {
        for (int r = 0; r < R; ++r) {
          const matrixfree::BodyArrays view = view_of(pile.model, copies[r]);
          for (int i = plans[r].contact_begin[r]; i < plans[r].contact_begin[r + 1]; ++i)
            matrixfree::sweep_update<false>(contacts[i], view, 1.0);
        }
        if (with_halo) exchange(plans, copies, 0);
        for (int k = 0; k < L.interface_colours(); ++k) {
          for (int r = 0; r < R; ++r) {
            const matrixfree::BodyArrays view = view_of(pile.model, copies[r]);
            for (int j = plans[r].mine_start[k]; j < plans[r].mine_start[k + 1]; ++j)
              matrixfree::sweep_update<false>(contacts[plans[r].mine[j]], view, 1.0);
          }
          exchange(plans, copies, k + 1);
        }
      }
    };
    std::vector<SweepContact> contacts;
    std::vector<RankCopy> copies;
    emulate(true, contacts, copies);
    int differing_contacts = 0, differing_bodies = 0;
    for (int i = 0; i < n; ++i) differing_contacts += contacts[i].r != reference[i].r;
    for (int r = 0; r < R; ++r)
      for (int i = plans[r].body_begin[r]; i < plans[r].body_begin[r + 1]; ++i)
        differing_bodies += copies[r].v[i] != bodies.v[i] || copies[r].w[i] != bodies.w[i];
    CHECK(differing_contacts == 0);
    CHECK(differing_bodies == 0);
    CHECK(plans[0].body_begin[R] == N);
    CHECK(plans[0].contact_begin[R] == L.interface_begin());

    // Leaving out one phase's exchange must break it (the test can fail).
    if (R == 2) {
      std::vector<SweepContact> c2;
      std::vector<RankCopy> k2;
      emulate(false, c2, k2);
      int wrong = 0;
      for (int i = 0; i < n; ++i) wrong += c2[i].r != reference[i].r;
      CHECK(wrong > 0);
    }
  }
}

TEST_CASE("rank plan: blocks go to ranks in contiguous ranges balanced by their contacts") {
  PileProblem pile = settling_pile(8);
  const int N = pile.model.bodies.spheres();
  RankPlan plan;
  for (int R : {1, 2, 3, 4}) {
    build_rank_plan(pile.contacts, pile.layout, N, R, 0, plan);
    const auto& ps = pile.layout.part_start;
    const double total = ps.back();
    for (int r = 0; r < R; ++r) {
      INFO(R << " ranks, rank " << r);
      CHECK(plan.block_begin[r + 1] > plan.block_begin[r]);  // 8 blocks: every rank has one at least
      const double share = (ps[plan.block_begin[r + 1]] - ps[plan.block_begin[r]]) / total;
      // Within one block's share of the even split.
      CHECK(share == Approx(1.0 / R).margin(1.0 / 8 + 0.05));
      for (std::int32_t i = plan.body_begin[r]; i < plan.body_begin[r + 1]; ++i) {
        const int block = static_cast<int>(static_cast<long>(i) * 8 / N);
        CHECK((block >= plan.block_begin[r] && block < plan.block_begin[r + 1]));
      }
    }
  }
  CHECK_THROWS_AS(build_rank_plan(pile.contacts, pile.layout, N, 128, 0, plan), std::invalid_argument);
}
