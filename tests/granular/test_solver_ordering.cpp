// The matrix-free sweep's order (solvers/matrixfree/SweepPartition.hpp, MatrixFreeNsgs.hpp): the block layout puts
// every contact exactly once, blocks share no bead, no interface colour holds two contacts of one bead; with
// several blocks and interface colours the result is bitwise the same for 1 and 2 threads; projected SOR and
// symmetric sweeps stop at a step whose independently evaluated residual (friction_residual on the assembled W)
// meets the tolerance.
#include <catch2/catch.hpp>
#include <algorithm>
#include <random>
#include <vector>

#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "solvers/matrixfree/SweepPartition.hpp"
#include "solvers/core/FrictionContactProblem.hpp"

using namespace talus::granular;

TEST_CASE("the sweep layout places every contact once, blocks independent, interface colours valid") {
  // Random contacts between 400 beads (a third of them with a wall), cut into 5 blocks.
  const int beads = 400, n = 3000, P = 5;
  std::mt19937 gen(7);
  std::uniform_int_distribution<int> pick(0, beads - 1);
  std::vector<std::int32_t> a(n), b(n);
  for (int k = 0; k < n; ++k) {
    b[k] = pick(gen);
    a[k] = k % 3 == 0 ? -1 : pick(gen);
    if (a[k] == b[k]) a[k] = -1;
  }
  SweepLayout L;
  build_sweep_layout(a.data(), b.data(), n, beads, P, L);
  REQUIRE(L.partitions == P);
  REQUIRE(static_cast<int>(L.slot.size()) == n);
  std::vector<int> at(n, -1);
  for (int k = 0; k < n; ++k) {
    REQUIRE(L.slot[k] >= 0);
    REQUIRE(L.slot[k] < n);
    CHECK(at[L.slot[k]] == -1);
    at[L.slot[k]] = k;
  }
  auto block = [&](int i) { return static_cast<int>(static_cast<long>(i) * P / beads); };
  // Interior contacts: both beads (or the only bead) in the block whose range holds the slot.
  for (int q = 0; q < P; ++q)
    for (int s = L.part_start[q]; s < L.part_start[q + 1]; ++s) {
      const int k = at[s];
      CHECK(block(b[k]) == q);
      if (a[k] >= 0) CHECK(block(a[k]) == q);
    }
  // Interface contacts: beads in two blocks, and no bead twice in one colour (unless the serial overflow one).
  const int base = L.interface_begin();
  CHECK(base < n);
  for (int c = 0; c < L.interface_colours(); ++c) {
    if (L.interface.last_is_overflow && c == L.interface_colours() - 1) continue;
    std::vector<int> seen(beads, 0);
    for (int s = base + L.interface.colour_start[c]; s < base + L.interface.colour_start[c + 1]; ++s) {
      const int k = at[s];
      REQUIRE(a[k] >= 0);
      CHECK(block(a[k]) != block(b[k]));
      CHECK(++seen[a[k]] == 1);
      CHECK(++seen[b[k]] == 1);
    }
  }
  // Detection order is kept inside a block.
  for (int q = 0; q < P; ++q)
    for (int s = L.part_start[q] + 1; s < L.part_start[q + 1]; ++s) CHECK(at[s - 1] < at[s]);
}

TEST_CASE("for_blocks visits every interior contact once, each block in its order, pairs from two blocks") {
  // Blocks of unequal lengths (one empty), an odd count so that one is left without a partner; forward and
  // backward; one thread, so the blocks go two at a time.
  SweepLayout L;
  L.partitions = 7;
  L.part_start = {0, 7, 10, 10, 14, 21, 24, 26};  // lengths 7, 3, 0, 4, 7, 3, 2
  auto block_of = [&](int i) {
    int q = 0;
    while (L.part_start[q + 1] <= i) ++q;
    return q;
  };
  for (bool backward : {false, true}) {
    std::vector<int> visits(26, 0), last(7, backward ? 1000 : -1);
    int pairs = 0;
    auto visit = [&](int i) {
      ++visits[i];
      const int q = block_of(i);
      CHECK((backward ? i < last[q] : i > last[q]));  // in the block's order
      last[q] = i;
    };
    for_blocks(
        L, backward, visit,
        [&](int i, int j) {
          CHECK(block_of(i) != block_of(j));
          ++pairs;
          visit(i), visit(j);
        });
    for (int v : visits) CHECK(v == 1);
    CHECK(pairs == 3 + 0 + 3);  // blocks 0 and 1 together for 3 contacts, 2 and 3 for none, 4 and 5 for 3; 6 alone
  }
}

namespace {

std::uint64_t run(int threads, int partitions, double relaxation, bool symmetric, int steps, int* interface = nullptr,
                  long beads = 216, GranularSolver solver = GranularSolver::MatrixFree) {
  BeadSpec spec;
  spec.n = beads;
  GranularScene sc = bead_stack(spec);
  GranularParameters p;
  p.solver = solver;
  p.threads = threads;
  p.partitions = partitions;
  p.relaxation = relaxation;
  p.symmetric = symmetric;
  GranularStepper stepper(sc.model, p);
  for (int k = 0; k < steps; ++k) {
    const GranularStepReport& r = stepper.step();
    REQUIRE(r.solver.converged());
    if (interface) *interface = std::max(*interface, r.colours);
  }
  return state_hash(sc.model.bodies);
}

}  // namespace

TEST_CASE("several sweep blocks give the same state for 1 and 2 threads") {
  int colours = 0;
  const std::uint64_t one = run(1, 4, 1.0, false, 150, &colours);
  CHECK(colours > 1);  // interface contacts exist and are coloured
  CHECK(run(2, 4, 1.0, false, 150) == one);
  CHECK(run(2, 4, 1.5, true, 60) == run(1, 4, 1.5, true, 60));
}

TEST_CASE("sweep blocks: two from 1 024 beads by default, two per thread when automatic") {
  CHECK(default_partitions(1023) == 1);
  CHECK(default_partitions(1024) == 2);
  CHECK(default_partitions(16383) == 2);
  CHECK(default_partitions(16384) == 4);
  CHECK(automatic_partitions(1500, 1) == 2);
  CHECK(automatic_partitions(1500, 2) == 2);  // 512 beads a block at least
  CHECK(automatic_partitions(1500, 4) == 2);
  CHECK(automatic_partitions(1023, 2) == 1);
  CHECK(automatic_partitions(4096, 2) == 4);
  CHECK(automatic_partitions(4096, 3) == 4);
  CHECK(automatic_partitions(4096, 8) == 8);
  CHECK(automatic_partitions(20000, 1) == default_partitions(20000));
  CHECK(automatic_partitions(20000, 16) == 32);
  // A 1 100-bead pile is swept in two blocks on one thread as on two: the same bits, and not those of one block.
  // On one thread the two blocks are walked side by side (for_blocks), which must not change a bit either.
  auto hash = [](int threads, int partitions) {
    return run(threads, partitions, 1.0, false, 60, nullptr, 1100, GranularSolver::Anderson);
  };
  const std::uint64_t two_threads = hash(2, 0);
  CHECK(two_threads == hash(1, 2));
  CHECK(two_threads == hash(1, 0));
  CHECK(two_threads != hash(1, 1));
}

TEST_CASE("projected SOR and symmetric sweeps meet the tolerance on the assembled problem") {
  for (const auto& [omega, symmetric] : {std::pair{1.5, false}, std::pair{1.0, true}, std::pair{1.3, true}}) {
    BeadSpec spec;
    spec.n = 125;
    GranularScene sc = bead_stack(spec);
    GranularParameters p;
    p.tolerance = 1e-6;
    p.relaxation = omega;
    p.symmetric = symmetric;
    p.partitions = 2;
    GranularStepper stepper(sc.model, p);
    for (int k = 0; k < 150; ++k) REQUIRE(stepper.step().solver.converged());
    stepper.keep_next_problem();
    const GranularStepReport& r = stepper.step();
    REQUIRE(r.solver.converged());
    REQUIRE(r.contacts > 100);
    talus::Vector rv(3 * r.contacts);
    for (int k = 0; k < r.contacts; ++k) rv.segment<3>(3 * k) = stepper.contacts()[k].r;
    const double independent = talus::solvers::friction_residual(stepper.last_problem(), rv);
    INFO("omega " << omega << ", symmetric " << symmetric << ": stepper residual " << r.solver.residual
                  << ", independent " << independent);
    CHECK(independent == Approx(r.solver.residual).epsilon(1e-6).margin(1e-12));
    CHECK(independent <= p.tolerance);
  }
}

TEST_CASE("bad solver parameters are refused") {
  BeadSpec spec;
  spec.n = 8;
  GranularScene sc = bead_stack(spec);
  GranularParameters p;
  p.relaxation = 2.0;
  CHECK_THROWS_AS(GranularStepper(sc.model, p), std::invalid_argument);
  p.relaxation = 1.0;
  p.partitions = -1;
  CHECK_THROWS_AS(GranularStepper(sc.model, p), std::invalid_argument);
}
