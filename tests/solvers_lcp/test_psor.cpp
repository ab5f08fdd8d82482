// PSOR's contract beyond agreement with Lemke (Psor.hpp): warm start, stopping rules, the residual check
// interval, and the failure statuses (invalid input, divergence, exhausted budget) that must never be
// reported as Converged.
#include <catch2/catch.hpp>

#include "solvers/lcp/Lemke.hpp"
#include "solvers/lcp/Psor.hpp"
#include "tests/solvers_lcp/LcpTestProblems.hpp"

using namespace talus;
using namespace talus::solvers;
using namespace talus::solvers::testing;

TEST_CASE("PSOR: a warm start at the solution converges in one sweep, a cold start needs many") {
  std::mt19937 rng(11);
  const LcpProblem p = make_lcp(spd_matrix(20, rng), random_vector(20, rng));
  Vector z_lemke, w;
  REQUIRE(solve_lemke(p, z_lemke, w).converged());
  PsorParameters params;
  params.tolerance = 1e-12;
  Vector z = z_lemke;
  const SolverStats warm = solve_psor(p, z, w, params);
  CHECK(warm.converged());
  CHECK(warm.iterations == 1);
  Vector z_cold;
  const SolverStats cold = solve_psor(p, z_cold, w, params);
  CHECK(cold.converged());
  CHECK(cold.iterations > 5);
  CHECK((z_cold - z_lemke).norm() < 1e-9 * (1.0 + z_lemke.norm()));
}

TEST_CASE("PSOR: residual history, check interval and the iteration budget") {
  std::mt19937 rng(12);
  const LcpProblem p = make_lcp(spd_matrix(30, rng), random_vector(30, rng));
  PsorParameters params;
  params.tolerance = 1e-12;
  params.record_history = true;
  params.residual_check_interval = 5;
  Vector z, w;
  const SolverStats stats = solve_psor(p, z, w, params);
  REQUIRE(stats.converged());
  CHECK(stats.iterations % 5 == 0);
  CHECK(stats.residual_history.size() == static_cast<size_t>(stats.iterations / 5));
  CHECK(stats.residual_history.back() == stats.residual);
  CHECK(stats.residual == lcp_residual(p, z));
  CHECK((w - (p.M * z + p.q)).norm() == 0.0);

  params.max_iterations = 3;
  Vector z_short;
  const SolverStats short_run = solve_psor(p, z_short, w, params);
  CHECK(short_run.status == SolverStatus::MaxIterations);
  CHECK(short_run.iterations == 3);
  CHECK(short_run.residual > params.tolerance);
  CHECK(short_run.residual_history.size() == 1);  // the last sweep is always checked

  params.max_iterations = 100000;
  params.time_cap_seconds = 1e-12;
  Vector z_capped;
  const SolverStats capped = solve_psor(p, z_capped, w, params);
  CHECK(capped.status == SolverStatus::MaxIterations);
  CHECK(capped.message.find("time cap") != std::string::npos);
}

TEST_CASE("PSOR: Gauss-Seidel on an indefinite equality block diverges and says so") {
  Matrix M(2, 2);
  M << 1.0, 3.0, 3.0, 1.0;  // each sweep multiplies the error by 9
  const LcpProblem p = make_lcp(M, Vector::Ones(2), 2);
  Vector z, w;
  PsorParameters params;
  params.max_iterations = 10000;
  const SolverStats stats = solve_psor(p, z, w, params);
  CHECK(stats.status == SolverStatus::Diverged);
  CHECK(stats.iterations < 1000);
}

TEST_CASE("PSOR: invalid input is reported with a message") {
  Matrix M(2, 2);
  M << 1.0, 0.0, 0.0, -1.0;
  PsorParameters params;
  Vector z, w;
  SolverStats stats = solve_psor(make_lcp(M, -Vector::Ones(2)), z, w, params);
  CHECK(stats.status == SolverStatus::InvalidInput);
  CHECK(stats.message.find("M(1,1)") != std::string::npos);

  params.relaxation = 2.0;
  stats = solve_psor(make_lcp(Matrix::Identity(2, 2), -Vector::Ones(2)), z, w, params);
  CHECK(stats.status == SolverStatus::InvalidInput);

  params.relaxation = 1.0;
  z = Vector::Zero(3);
  stats = solve_psor(make_lcp(Matrix::Identity(2, 2), -Vector::Ones(2)), z, w, params);
  CHECK(stats.status == SolverStatus::InvalidInput);
  CHECK(stats.message.find("warm start") != std::string::npos);

  LcpProblem mismatched = make_lcp(Matrix::Identity(2, 2), -Vector::Ones(2));
  mismatched.q = -Vector::Ones(3);
  z.resize(0);
  stats = solve_psor(mismatched, z, w, params);
  CHECK(stats.status == SolverStatus::InvalidInput);
  CHECK(solve_lemke(mismatched, z, w).status == SolverStatus::InvalidInput);
}
