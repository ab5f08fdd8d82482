// Workspaces (LcpSolver.hpp, Lemke.hpp, Psor.hpp): a time-stepping loop keeps one and solves once per step.
// Checked here: reusing a workspace across problems of other sizes and kinds leaves no stale state (results
// equal those of fresh workspaces bit for bit), and a repeated solve of unchanged sizes performs no heap
// allocation at all (STYLE.md practice 9), counted by interposing glibc's malloc in this test executable.
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>

#include "solvers/lcp/LcpSolver.hpp"
#include "tests/solvers_lcp/LcpTestProblems.hpp"

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#define TALUS_COUNT_MALLOC 1
namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};
}  // namespace
extern "C" void* __libc_malloc(size_t size);
extern "C" void* malloc(size_t size) {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(size);
}
#endif

using namespace talus;
using namespace talus::solvers;
using namespace talus::solvers::testing;

namespace {

std::vector<LcpProblem> mixed_problems() {
  std::mt19937 rng(77);
  std::vector<LcpProblem> problems;
  problems.push_back(make_lcp(spd_matrix(12, rng), random_vector(12, rng)));
  problems.push_back(make_lcp(spd_matrix(5, rng), random_vector(5, rng), 2));
  problems.push_back(make_lcp(diagonally_dominant_matrix(20, rng), random_vector(20, rng)));
  problems.push_back(make_lcp(spd_matrix(12, rng), random_vector(12, rng), 4));
  return problems;
}

}  // namespace

TEST_CASE("LCP workspace: reuse across sizes and kinds gives the results of fresh workspaces") {
  for (LcpMethod method : {LcpMethod::Lemke, LcpMethod::Psor}) {
    LcpSolverOptions options;
    options.method = method;
    options.tolerance = 1e-12;
    LcpWorkspace kept;
    for (const LcpProblem& p : mixed_problems()) {
      Vector z_kept, w_kept, z_fresh, w_fresh;
      const SolverStats a = solve_lcp(p, z_kept, w_kept, options, kept);
      const SolverStats b = solve_lcp(p, z_fresh, w_fresh, options);
      INFO(to_string(method) << " n " << p.size() << " n_equality " << p.n_equality);
      REQUIRE(a.converged());
      CHECK(a.iterations == b.iterations);
      CHECK(z_kept == z_fresh);
      CHECK(w_kept == w_fresh);
    }
  }
}

TEST_CASE("LCP workspace: a repeated solve of unchanged sizes does not allocate") {
#ifndef TALUS_COUNT_MALLOC
  WARN("malloc counting needs glibc without AddressSanitizer; skipped");
  return;
#else
  for (LcpMethod method : {LcpMethod::Lemke, LcpMethod::Psor}) {
    for (const LcpProblem& p : mixed_problems()) {
      LcpSolverOptions options;
      options.method = method;
      LcpWorkspace workspace;
      Vector z, w;
      allocations = 0;
      counting = true;
      REQUIRE(solve_lcp(p, z, w, options, workspace).converged());
      counting = false;
      CHECK(allocations > 0);  // the first solve sizes the buffers: proves the counter sees Eigen's mallocs
      z.setZero();             // PSOR starts cold again, so it walks the same path
      allocations = 0;
      counting = true;
      const SolverStats stats = solve_lcp(p, z, w, options, workspace);
      counting = false;
      INFO(to_string(method) << " n " << p.size() << " n_equality " << p.n_equality);
      REQUIRE(stats.converged());
      CHECK(allocations == 0);
    }
  }
#endif
}
