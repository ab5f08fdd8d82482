// --dump-fclib on a step that fails (apps/LargePathRun.cpp): the asked step's friction-contact problem is written
// even though its solve did not converge, since a failed step's problem is the one a user most wants to replay
// (docs/stack-height.md, "A cold retry"). The written problem is the failed step's: as many contacts as the step
// had, and a solver given enough sweeps solves it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>

#include "apps/SceneLoader.hpp"
#include "apps/SceneRun.hpp"
#include "solvers/fc/FclibIO.hpp"
#include "solvers/fc/Nsgs.hpp"
#include "tests/TempDir.hpp"
#include "tests/apps/GranularFileRun.hpp"

using namespace talus;
using namespace talus::app;

TEST_CASE("a failed step's problem is written by --dump-fclib when it is the asked step", "[apps][fclib]") {
  // 27 beads fall onto a floor; three sweeps cannot reach 1e-12 once they land.
  const std::string text =
      "gravity: [0, 0, -9.81]\n"
      "lattices: [{name: bed, corner: [0, 0, 0.012], counts: [3, 3, 3], radius: 0.01, density: 2500}]\n"
      "planes: [{name: floor, normal: [0, 0, 1], offset: 0}]\n"
      "contacts: {detect: true, law: {type: newton_friction, e: 0, mu: 0.3, dim: 3}}\n"
      "integrator: {path: large, h: 1.0e-3, t_end: 0.2, tolerance: 1.0e-12, max_sweeps: 3}\n";
  test::TempDir t;
  // Where it fails, without a dump.
  long failed_step = 0;
  {
    Scene scene = load_scene_from_string(text, "fall.yaml");
    std::ostringstream log;
    const RunResult r = run_scene(scene, test::quiet_run(t.dir / "first", log));
    REQUIRE(r.status == RunStatus::StepFailed);
    failed_step = r.failed_step;
  }
  Scene scene = load_scene_from_string(text, "fall.yaml");
  std::ostringstream log;
  RunOptions o = test::quiet_run(t.dir / "second", log);
  o.progress = true;  // the dump's line is part of the run's log
  o.dump_fclib = t.dir / "dump";
  o.dump_step = failed_step;
  const RunResult r = run_scene(scene, o);
  REQUIRE(r.status == RunStatus::StepFailed);
  CHECK(r.failed_step == failed_step);
  const auto file = t.dir / "dump" / ("fall_step" + std::to_string(failed_step) + ".hdf5");
  REQUIRE(std::filesystem::is_regular_file(file));
  CHECK(std::filesystem::is_regular_file(t.dir / "dump" / ("fall_step" + std::to_string(failed_step) + "_global.hdf5")));
  CHECK_THAT(log.str(), Catch::Contains("whose solve failed"));
  const solvers::FrictionContactProblem problem = solvers::read_fclib_local(file.string());
  CHECK(problem.contacts() > 0);
  // The problem itself is solvable: it is the step's, not a broken one.
  Vector reaction, velocity;
  solvers::NsgsParameters p;
  p.tolerance = 1e-10;
  p.max_iterations = 100000;
  CHECK(solvers::nsgs(problem, reaction, velocity, p).converged());
}
