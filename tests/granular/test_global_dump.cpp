// A granular step in FCLIB's global form (issue 10 item 3; engine/granular/AssembledProblem.hpp): condensed, it is
// the local problem the stepper solves (W and q to round-off); the stepper's impulses, put through
// v = M⁻¹ (f + H r), give the bodies' end-of-step velocities; and the file written by write_fclib_global reads
// back as the same problem.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "solvers/fc/FclibIO.hpp"

using namespace talus::granular;
namespace fs = std::filesystem;

TEST_CASE("granular step as an FCLIB global problem: condenses to the local one, reproduces the step, round-trips") {
  BeadSpec spec;
  GranularScene sc = lattice_stack(spec, 3, 4);
  GranularParameters p;
  p.tolerance = 1e-10;
  p.max_sweeps = 100000;
  GranularStepper s(sc.model, p);
  for (int k = 0; k < 119; ++k) REQUIRE(s.step().solver.converged());
  s.keep_next_problem();
  REQUIRE(s.step().solver.converged());
  const talus::solvers::FrictionContactProblem& local = s.last_problem();
  const talus::solvers::GlobalFrictionContactProblem& global = s.last_global_problem();
  REQUIRE(local.contacts() > 20);
  REQUIRE(global.contacts() == local.contacts());

  const talus::solvers::FrictionContactProblem condensed = talus::solvers::condense_to_local(global);
  const double w_scale = Eigen::MatrixXd(local.W).cwiseAbs().maxCoeff();
  CHECK((Eigen::MatrixXd(condensed.W) - Eigen::MatrixXd(local.W)).cwiseAbs().maxCoeff() <= 1e-12 * w_scale);
  CHECK((condensed.q - local.q).cwiseAbs().maxCoeff() <= 1e-12 * (1.0 + local.q.cwiseAbs().maxCoeff()));
  CHECK(condensed.mu == local.mu);

  // v = M⁻¹ (f + H r) with the stepper's impulses is the end-of-step state.
  Eigen::VectorXd r(3 * s.contacts().size());
  for (std::size_t i = 0; i < s.contacts().size(); ++i) r.segment<3>(3 * i) = s.contacts()[i].r;
  const Eigen::VectorXd rhs = global.f + global.H * r;
  const talus::RigidBodies& b = sc.model.bodies;
  double worst = 0.0;
  for (int k = 0; k < b.spheres(); ++k) {
    const Eigen::Vector3d v = rhs.segment<3>(6 * k) / global.M.coeff(6 * k, 6 * k);
    const Eigen::Vector3d w = rhs.segment<3>(6 * k + 3) / global.M.coeff(6 * k + 3, 6 * k + 3);
    worst = std::max({worst, (v - b.v[k]).norm(), 0.01 * (w - b.w[k]).norm()});
  }
  INFO("worst velocity difference " << worst << " m/s");
  CHECK(worst <= 1e-12);

  const fs::path file = fs::temp_directory_path() / ("talus_global_dump_" + std::to_string(::getpid()) + ".hdf5");
  talus::solvers::write_fclib_global(file.string(), global, {"test", "lattice_stack(3, 4) step 120", "3D"});
  const talus::solvers::GlobalFrictionContactProblem back = talus::solvers::read_fclib_global(file.string());
  fs::remove(file);
  CHECK(Eigen::MatrixXd(back.M) == Eigen::MatrixXd(global.M));
  CHECK(Eigen::MatrixXd(back.H) == Eigen::MatrixXd(global.H));
  CHECK(back.f == global.f);
  CHECK(back.w == global.w);
  CHECK(back.mu == global.mu);
}
