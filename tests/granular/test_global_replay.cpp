// A granular step replayed alone (issue 10 item 3; solvers/matrixfree/SphereContactProblem.hpp): the step's FCLIB
// global problem, read back as a sphere-contact problem, is the problem the stepper solved (its solution needs no
// sweep and gives the stepper's end-of-step velocities), and the matrix-free solvers replayed from a cold start
// reach the tolerance as judged by the independent residual of the condensed local problem. Problems that are not
// of the sphere form are refused with the contact or body that breaks it.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "solvers/fc/FclibIO.hpp"
#include "solvers/matrixfree/SphereContactProblem.hpp"

using namespace talus::granular;
namespace fs = std::filesystem;
namespace sv = talus::solvers;

namespace {

struct KeptStep {
  sv::GlobalFrictionContactProblem global;
  Eigen::VectorXd r;                  // the stepper's reactions, in the problem's contact order
  std::vector<Eigen::Vector3d> v, w;  // the stepper's end-of-step velocities
};

KeptStep kept_step(GranularSolver solver, double tolerance) {
  BeadSpec spec;
  GranularScene sc = lattice_stack(spec, 3, 4);
  GranularParameters p;
  p.solver = solver;
  p.tolerance = tolerance;
  p.max_sweeps = 100000;
  GranularStepper s(sc.model, p);
  for (int k = 0; k < 119; ++k) REQUIRE(s.step().solver.converged());
  s.keep_next_problem();
  REQUIRE(s.step().solver.converged());
  KeptStep out;
  out.global = s.last_global_problem();
  out.r.resize(3 * s.contacts().size());
  for (std::size_t i = 0; i < s.contacts().size(); ++i) out.r.segment<3>(3 * i) = s.contacts()[i].r;
  const talus::RigidBodies& b = sc.model.bodies;
  out.v.assign(b.v.begin(), b.v.begin() + b.spheres());
  out.w.assign(b.w.begin(), b.w.begin() + b.spheres());
  return out;
}

talus::matrixfree::MatrixFreeParameters replay_parameters(double tolerance, int anderson) {
  talus::matrixfree::MatrixFreeParameters p;
  p.tolerance = tolerance;
  p.max_sweeps = 200000;
  p.anderson = anderson;
  return p;
}

}  // namespace

TEST_CASE("a granular step's global problem replays as the problem the stepper solved") {
  const KeptStep step = kept_step(GranularSolver::MatrixFree, 1e-10);
  const talus::matrixfree::SphereContactProblem problem = talus::matrixfree::sphere_problem_from_global(step.global);
  REQUIRE(problem.contacts.size() * 3 == static_cast<std::size_t>(step.r.size()));
  REQUIRE(problem.contacts.size() > 20);

  // Warm-started with the stepper's reactions, the replay is already solved and gives the stepper's velocities.
  talus::matrixfree::SphereSolveOutput out;
  out.r = step.r;
  talus::matrixfree::MatrixFreeWorkspace work;
  const sv::SolverStats st = talus::matrixfree::solve_sphere_problem(problem, replay_parameters(1e-10, 0), out, work);
  CHECK(st.converged());
  CHECK(st.counters.sweeps == 0);
  double worst = 0.0;
  for (std::size_t k = 0; k < step.v.size(); ++k)
    worst = std::max({worst, (out.v[k] - step.v[k]).norm(), 0.01 * (out.w[k] - step.w[k]).norm()});
  INFO("worst velocity difference " << worst << " m/s");
  CHECK(worst <= 1e-12);
  // The reactions are unchanged and satisfy the condensed local problem (an independent residual).
  CHECK((out.r - step.r).cwiseAbs().maxCoeff() == 0.0);
  CHECK(sv::friction_residual(sv::condense_to_local(step.global), out.r) <= 1e-9);
}

TEST_CASE("replayed from a cold start, the matrix-free and Anderson sweeps solve the dumped step") {
  const KeptStep step = kept_step(GranularSolver::Anderson, 1e-4);
  const talus::matrixfree::SphereContactProblem problem = talus::matrixfree::sphere_problem_from_global(step.global);
  const sv::FrictionContactProblem local = sv::condense_to_local(step.global);
  for (int anderson : {0, 2}) {
    INFO("anderson memory " << anderson);
    talus::matrixfree::SphereSolveOutput out;
    talus::matrixfree::MatrixFreeWorkspace work;
    const sv::SolverStats st = talus::matrixfree::solve_sphere_problem(problem, replay_parameters(1e-8, anderson), out, work);
    REQUIRE(st.converged());
    CHECK(st.counters.sweeps > 0);
    const double res = sv::friction_residual(local, out.r);
    INFO("sweeps " << st.counters.sweeps << ", solver residual " << st.residual << ", independent " << res);
    CHECK(res <= 1.01e-8);
    CHECK(std::abs(res - st.residual) <= 1e-3 * st.residual + 1e-14);
    // u = W r + q of the local form.
    CHECK((local.W * out.r + local.q - out.u).cwiseAbs().maxCoeff() <= 1e-12);
  }
}

TEST_CASE("a replay read from the FCLIB file is the in-memory replay, bit for bit") {
  const KeptStep step = kept_step(GranularSolver::Anderson, 1e-4);
  const fs::path file = fs::temp_directory_path() / ("talus_global_replay_" + std::to_string(::getpid()) + ".hdf5");
  sv::write_fclib_global(file.string(), step.global, {"test", "lattice_stack(3, 4) step 120", "3D"});
  const sv::GlobalFrictionContactProblem back = sv::read_fclib_global(file.string());
  fs::remove(file);
  talus::matrixfree::SphereSolveOutput a, b;
  talus::matrixfree::MatrixFreeWorkspace wa, wb;
  const auto sa = talus::matrixfree::solve_sphere_problem(talus::matrixfree::sphere_problem_from_global(step.global),
                                                          replay_parameters(1e-6, 2), a, wa);
  const auto sb = talus::matrixfree::solve_sphere_problem(talus::matrixfree::sphere_problem_from_global(back),
                                                          replay_parameters(1e-6, 2), b, wb);
  CHECK(sa.counters.sweeps == sb.counters.sweeps);
  CHECK(a.r == b.r);
}

TEST_CASE("a global problem that is not between spheres is refused with the entry that breaks the form") {
  const KeptStep step = kept_step(GranularSolver::MatrixFree, 1e-4);
  {
    sv::GlobalFrictionContactProblem g = step.global;
    // A lever arm off the normal: an angular entry of contact 5's normal row.
    const int body = [&] {
      for (int row = 0; row < g.H.rows(); ++row)
        if (g.H.coeff(row, 15) != 0.0) return row / 6;
      return 0;
    }();
    g.H.coeffRef(6 * body + 3, 15) += 0.25;
    CHECK_THROWS_WITH(talus::matrixfree::sphere_problem_from_global(g), Catch::Contains("contact 5"));
  }
  {
    sv::GlobalFrictionContactProblem g = step.global;
    g.M.coeffRef(6 * 2 + 4, 6 * 2 + 4) *= 2.0;  // body 2's inertia no longer isotropic
    CHECK_THROWS_WITH(talus::matrixfree::sphere_problem_from_global(g), Catch::Contains("body 2"));
  }
  {
    sv::GlobalFrictionContactProblem g = step.global;
    g.w[3 * 7 + 1] = 1e-3;
    CHECK_THROWS_WITH(talus::matrixfree::sphere_problem_from_global(g), Catch::Contains("contact 7"));
  }
}
