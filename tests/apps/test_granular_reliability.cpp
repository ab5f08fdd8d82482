// The granular runner under a hostile user (issue 12 items 1, 5, 6, 7): sizes refused before anything is
// allocated, with the field and the estimate named; h, t_end and threads checked; a folder holding an earlier
// run refused unless `overwrite`, which then removes that run's files as one set; a killed run and a rerun leave
// no mixed or stale files; SIGTERM ends a run like SIGINT with complete outputs; a failed step leaves the last
// good state; run.json is JSON (parsed here) with the run's inputs.
#include <catch2/catch.hpp>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "apps/GranularOutput.hpp"
#include "apps/LargePathRestart.hpp"
#include "apps/GranularSceneFile.hpp"
#include "apps/SceneRun.hpp"
#include "tests/apps/GranularFileRun.hpp"
#include "apps/ProgressMeter.hpp"
#include "apps/SceneError.hpp"
#include "apps/SceneLoader.hpp"
#include "apps/SceneRun.hpp"

using namespace talus::app;
namespace fs = std::filesystem;

namespace {

fs::path scratch_dir(const char* name) {
  const fs::path d = fs::temp_directory_path() / ("talus_granular_reliability_" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

const fs::path kStack = fs::path(TALUS_SOURCE_DIR) / "examples" / "bead_stack.yaml";

std::string check_error(const std::vector<std::string>& sets, std::uint64_t max_memory = 0) {
  try {
    check_granular_scene(kStack, sets, max_memory);
  } catch (const SceneError& e) {
    return e.what();
  }
  return "";
}

// `talus run examples/bead_stack.yaml --set … [--t-end T] [--profile F] [--overwrite]`, quiet.
struct StackRun {
  fs::path out_dir;
  std::vector<std::string> sets;
  fs::path profile;
  bool overwrite = false;
  const std::atomic<bool>* stop = nullptr;
  double t_end = 0.0;
};

StackRun options(const fs::path& out, std::vector<std::string> sets) {
  StackRun o;
  o.out_dir = out;
  o.sets = std::move(sets);
  return o;
}

int run(const StackRun& r) {
  std::ostringstream log;
  RunOptions o = talus::test::quiet_run(r.out_dir, log);
  o.profile = r.profile, o.overwrite = r.overwrite, o.stop = r.stop;
  GranularFlags flags;
  flags.t_end = r.t_end;
  return talus::test::run_granular_file(kStack, r.sets, o, flags);
}

nlohmann::json summary(const fs::path& out) {
  std::ifstream in(out / "run.json");
  return nlohmann::json::parse(in);  // throws on anything that is not JSON (a bare nan, for instance)
}

std::set<std::string> files_in(const fs::path& dir) {
  std::set<std::string> s;
  for (const auto& e : fs::directory_iterator(dir)) s.insert(e.path().filename().string());
  return s;
}

// Every file of the folder is complete and of one run: run.json parses and lists exactly the files there,
// each .pvd names only frames that exist, the restart archive reads back, and no temporary file is left.
void require_one_complete_run(const fs::path& out) {
  const nlohmann::json j = summary(out);
  std::set<std::string> listed;
  for (const auto& f : j["files"]) listed.insert(f.get<std::string>());
  CHECK(files_in(out) == listed);
  const std::regex dataset("file=\"([^\"]+)\"");
  for (const char* pvd : {"beads.pvd", "contacts.pvd"}) {
    std::ifstream in(out / pvd);
    std::stringstream text;
    text << in.rdbuf();
    const std::string t = text.str();
    CHECK(t.find("</VTKFile>") != std::string::npos);
    for (auto it = std::sregex_iterator(t.begin(), t.end(), dataset); it != std::sregex_iterator(); ++it)
      CHECK(fs::is_regular_file(out / (*it)[1].str()));
  }
  talus::Model back;
  read_restart(out / "restart.h5", back);
  CHECK(back.bodies.spheres() > 0);
}

}  // namespace

TEST_CASE("granular sizes are checked against the memory before anything is allocated", "[apps][granular][reliability]") {
  // Each would have been allocated (or wrapped around) before: now one line naming the --set and the estimate.
  for (const char* n : {"4294967297", "2147483648", "1e9"}) {
    const std::string e = check_error({std::string("n=") + n});
    INFO(e);
    CHECK(e.rfind(std::string("--set n=") + n + ": field 'granular.n': ", 0) == 0);
    CHECK(e.find(" bodies need about ") != std::string::npos);
    CHECK(e.find("TiB (2200 B per bead), more than the ") != std::string::npos);
  }
  // A --max-memory limit (load_granular_scene's max_memory) refuses what fits the machine.
  CHECK(check_error({"n=1000"}, 1u << 20) ==
        "--set n=1000: field 'granular.n': 1000 bodies need about 2.1 MiB (2200 B per bead), more than the 1 MiB "
        "allowed by --max-memory (expected fewer beads, or a larger --max-memory)");
  CHECK(check_error({"n=1000", "capsule_fraction=0.5"}, 1u << 20).find("2200 B per bead, 4400 B per capsule") !=
        std::string::npos);
  CHECK(check_error({"n=100"}, 1u << 20).empty());
  CHECK(granular_memory_estimate(1e30, 0) == std::numeric_limits<std::uint64_t>::max());  // saturates
  // A whole number written with an exponent is a whole number; a fraction is not.
  CHECK(check_granular_scene(kStack, {"n=1e2"}).beads == 100);
  CHECK(check_error({"n=12.5"}) == "--set n=12.5: field 'granular.n': is '12.5' (expected an integer)");
}

TEST_CASE("granular threads, h and t_end are checked against each other and the machine", "[apps][granular][reliability]") {
  CHECK(check_error({"threads=4294967297"}) == "--set threads=4294967297: field 'granular.threads': is 4294967297 (expected an integer <= 1024)");
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  if (16 * cores < 1024) {
    const std::string many = "threads=" + std::to_string(16 * cores + 1);
    CHECK(check_error({many}).rfind("--set " + many + ": field 'granular.threads': is " + std::to_string(16 * cores + 1) +
                                        " (expected at most 16 × the " + std::to_string(cores) + " cores",
                                    0) == 0);
  }
  CHECK(check_error({"max_sweeps=4294967297"}) ==
        "--set max_sweeps=4294967297: field 'granular.max_sweeps': is 4294967297 (expected an integer <= 2147483647)");
  CHECK(check_error({"h=1e300"}) ==
        "--set h=1e300: field 'granular.h': h = 1e+300 is larger than the time to run (t_end = 0.8): no step would run");
  CHECK(check_error({"h=0.5", "t_end=0.2"}) ==
        "--set h=0.5: field 'granular.h': h = 0.5 is larger than the time to run (t_end = 0.2): no step would run");
  CHECK(check_error({"h=1e-300"}) == "--set h=1e-300: field 'granular.h': h = 1e-300 and t_end = 0.8 make 8e+299 steps "
                                     "(expected at most 1e+09: is h too small?)");
  // A t_end that is not a whole number of steps: the run takes the steps that fit and never ends past t_end.
  const fs::path dir = scratch_dir("t_end");
  REQUIRE(run(options(dir / "out", {"n=27", "h=0.003", "t_end=0.01"})) == 0);
  const nlohmann::json j = summary(dir / "out");
  CHECK(j["steps"] == 3);
  CHECK(j["planned_steps"] == 3);
  CHECK(j["final_time"].get<double>() <= 0.01);
  CHECK(j["final_time"].get<double>() == Approx(0.009));
  fs::remove_all(dir.parent_path());
}

TEST_CASE("a granular run into a folder holding an earlier run refuses, or replaces that run as one set",
          "[apps][granular][reliability]") {
  const fs::path dir = scratch_dir("overwrite");
  const fs::path out = dir / "out";
  StackRun o = options(out, {"n=27", "t_end=0.02", "frame_every=0.002"});
  o.profile = out / "trace.json";  // a file of the run that the name patterns do not know: listed in run.json
  REQUIRE(run(o) == 0);
  require_one_complete_run(out);
  CHECK(fs::exists(out / "beads_00010.vtp"));
  const std::set<std::string> first = files_in(out);

  // Without overwrite: refused, nothing touched.
  StackRun again = options(out, {"n=27", "t_end=0.004", "frame_every=0.002"});
  try {
    run(again);
    FAIL("an earlier run's folder was accepted");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).rfind(out.string() + ": holds the outputs of an earlier run (beads.pvd, contacts.pvd, "
                                                      "measures.csv, obstacle_loads.csv, profile.txt, restart.h5, run.json, trace.json, 22 frame files): "
                                                      "choose another output folder, or pass --overwrite to replace them",
                                      0) == 0);
  }
  CHECK(files_in(out) == first);

  // With overwrite: a shorter run leaves only its own files (3 frames, no trace), none of the earlier 11.
  std::ofstream(out / "notes.txt") << "the user's own file\n";
  again.overwrite = true;
  REQUIRE(run(again) == 0);
  std::set<std::string> left = files_in(out);
  CHECK(left.count("notes.txt") == 1);  // not the run's: kept
  left.erase("notes.txt");
  fs::remove(out / "notes.txt");
  require_one_complete_run(out);
  CHECK(left == std::set<std::string>{"beads.pvd", "beads_00000.vtp", "beads_00001.vtp", "beads_00002.vtp", "contacts.pvd",
                                      "contacts_00000.vtp", "contacts_00001.vtp", "contacts_00002.vtp", "measures.csv",
                                      "obstacle_loads.csv", "profile.txt", "restart.h5", "run.json"});

  // A single-scene run's files (apps/RunOutputs.hpp) are an earlier run too: a folder never mixes two runs.
  const fs::path mixed = dir / "mixed";
  fs::create_directories(mixed);
  std::ofstream(mixed / "run.json") << "{}\n";
  std::ofstream(mixed / "timeseries.csv") << "t\n0\n";
  StackRun into_mixed = options(mixed, {"n=27", "t_end=0.002"});
  CHECK_THROWS_WITH(run(into_mixed), Catch::Contains("(run.json, timeseries.csv)"));
  into_mixed.overwrite = true;
  REQUIRE(run(into_mixed) == 0);
  CHECK(summary(mixed)["path"] == "large");  // the single scene's run.json replaced by this run's
  CHECK_FALSE(fs::exists(mixed / "timeseries.csv"));
  require_one_complete_run(mixed);
  fs::remove_all(dir.parent_path());
}

TEST_CASE("a killed granular run and a rerun leave no mixed or stale files", "[apps][granular][reliability]") {
  const fs::path dir = scratch_dir("killed");
  const fs::path out = dir / "out";
  // A run far longer than the test, killed (SIGKILL: no handler runs) once it has written a few frames.
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    int status = 1;
    try {
      status = run(options(out, {"n=64", "t_end=1000", "frame_every=0.002"}));
    } catch (...) {
    }
    ::_exit(status);
  }
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!fs::exists(out / "beads_00004.vtp") && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(WIFSIGNALED(status));
  // What the killed run left is complete as far as it went: run.json says it was still running, the
  // archive reads, each series names existing frames (a temporary file may remain, counted as the run's).
  CHECK(summary(out)["status"] == "running");
  talus::Model back;
  read_restart(out / "restart.h5", back);
  // Leave a temporary file as a kill in the middle of a write would.
  std::ofstream(temporary_name(out / "beads_00099.vtp")) << "<?xml";

  StackRun rerun = options(out, {"n=27", "t_end=0.002", "frame_every=0.002"});
  CHECK_THROWS_WITH(run(rerun), Catch::Contains("holds the outputs of an earlier run"));
  rerun.overwrite = true;
  REQUIRE(run(rerun) == 0);
  require_one_complete_run(out);
  CHECK(files_in(out).size() == 11);  // 2 frames × 2 series, 2 .pvd, restart.h5, run.json, measures.csv,
                                      // obstacle_loads.csv, profile.txt
  fs::remove_all(dir.parent_path());
}

TEST_CASE("SIGTERM ends a granular run like SIGINT, its outputs complete", "[apps][granular][reliability]") {
  const fs::path dir = scratch_dir("sigterm");
  const fs::path out = dir / "out";
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // A program without a SIGTERM handler of its own (Catch2 installs one for its fatal signals): the runner
    // then sets its own for the run. The CLI's handler sets RunOptions::stop instead.
    std::signal(SIGTERM, SIG_DFL);
    int status = 1;
    try {
      status = run(options(out, {"n=64", "t_end=1000", "frame_every=0.002"}));
    } catch (...) {
    }
    ::_exit(status);
  }
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!fs::exists(out / "beads_00003.vtp") && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ::kill(child, SIGTERM);
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  const nlohmann::json j = summary(out);
  CHECK(j["status"] == "interrupted");
  require_one_complete_run(out);
  // The archive holds the state at the end (the last frame's time or later).
  talus::Model back;
  read_restart(out / "restart.h5", back);
  CHECK(back.time == j["final_time"].get<double>());
  fs::remove_all(dir.parent_path());
}

TEST_CASE("a stop before the first step still leaves complete outputs", "[apps][granular][reliability]") {
  const fs::path dir = scratch_dir("stopped");
  std::atomic<bool> stop{true};
  StackRun o = options(dir / "out", {"n=27", "t_end=0.01"});
  o.stop = &stop;
  CHECK(run(o) == 130);
  CHECK(summary(dir / "out")["status"] == "interrupted");
  require_one_complete_run(dir / "out");
  fs::remove_all(dir.parent_path());
}

TEST_CASE("a failed granular step leaves the last good state and names the step", "[apps][granular][reliability]") {
  const fs::path dir = scratch_dir("failed");
  // Two sweeps cannot reach 1e-12 once the falling lattice lands: the first step with contacts fails.
  REQUIRE(run(options(dir / "failed", {"n=27", "t_end=0.5", "max_sweeps=2", "tolerance=1e-12", "frame_every=1"})) == 2);
  const nlohmann::json j = summary(dir / "failed");
  CHECK(j["status"] == "step_failed");
  const long failed = j["failure"]["step"].get<long>();
  CHECK(failed > 1);
  CHECK(j["failure"]["message"].get<std::string>().find("the fastest body after it: bead id") != std::string::npos);
  CHECK(j["final_step"].get<long>() == failed - 1);
  CHECK(j["steps"].get<long>() == failed - 1);
  // The failed step is named with the time it started from, the state the outputs keep (as on the small path).
  CHECK(j["failure"]["time"].get<double>() == j["final_time"].get<double>());
  require_one_complete_run(dir / "failed");
  // restart.h5 holds the state before the failed step: the state of the same run stopped one step earlier.
  REQUIRE(run(options(dir / "short", {"n=27", "t_end=" + std::to_string((failed - 1) * 1e-3), "max_sweeps=2",
                                      "tolerance=1e-12", "frame_every=1"})) == 0);
  talus::Model a, b;
  read_restart(dir / "failed" / "restart.h5", a);
  read_restart(dir / "short" / "restart.h5", b);
  CHECK(a.step == failed - 1);
  CHECK(a.step == b.step);
  CHECK(a.bodies.x == b.bodies.x);
  CHECK(a.bodies.v == b.bodies.v);
  fs::remove_all(dir.parent_path());
}

TEST_CASE("a granular run's run.json records the inputs and units with the small path's keys, and writes NaN as null",
          "[apps][granular][reliability]") {
  const fs::path dir = scratch_dir("json");
  StackRun o = options(dir / "out", {"n=27", "t_end=0.003", "name=quote\"less"});
  // A name with a quote is refused (it names the folder); a failure message with quotes goes through the library.
  CHECK_THROWS_AS(run(o), SceneError);
  o.sets = {"n=27", "t_end=0.003", "seed=5"};
  o.t_end = 0.002;
  REQUIRE(run(o) == 0);
  const nlohmann::json j = summary(dir / "out");
  CHECK(j["scene_file"] == kStack.string());
  CHECK(j["path"] == "large");
  CHECK(j["description"] == "granular scene 'bead_stack'");
  CHECK(j["overrides"] == nlohmann::json({"--set n=27", "--set t_end=0.003", "--set seed=5", "--t-end 0.002"}));
  CHECK(j["parameters"]["t_end"] == 0.002);
  CHECK(j["parameters"]["seed"] == 5);
  CHECK(j["parameters"]["generator"] == "bead_stack");
  CHECK(j["talus_version"].is_string());
  CHECK(j["units"]["parameters.h"] == "s");
  CHECK(j["units"]["results.max_penetration_over_r"] == "bead radius");
  CHECK(j["failure"].is_null());
  CHECK(j["restarted_from"].is_null());
  CHECK(j["steps"] == 2);
  CHECK(j["final_step"] == 2);
  CHECK(j["model"]["beads"] == 27);
  CHECK(j["parameters"]["scheme"] == "moreau_jean");
  CHECK(j["parameters"]["solver"] == "anderson");
  // The stages' times, as the small path's run.json gives them: the solve took some of the run.
  CHECK(j["phase_seconds"]["solve"].get<double>() > 0.0);
  CHECK(j["phase_seconds"]["solve"].get<double>() <= j["wall_seconds"].get<double>());
  // Both paths write the same top-level keys in the same order (apps/RunSummary.hpp).
  std::vector<std::string> large_keys, small_keys;
  for (auto it = j.begin(); it != j.end(); ++it) large_keys.push_back(it.key());
  const nlohmann::json s = nlohmann::json::parse(run_json(load_scene(fs::path(TALUS_SOURCE_DIR) / "examples" / "bouncing_ball.yaml"), RunResult{}, 3));
  for (auto it = s.begin(); it != s.end(); ++it) small_keys.push_back(it.key());
  CHECK(large_keys == small_keys);
  CHECK(s["path"] == "small");
  // nlohmann writes non-finite numbers as null (a bare nan is not JSON).
  CHECK(nlohmann::json(std::numeric_limits<double>::quiet_NaN()).dump() == "null");
  fs::remove_all(dir.parent_path());
}

TEST_CASE("the progress line's time left", "[apps][granular][reliability]") {
  CHECK(format_duration(42.4) == "42 s");
  CHECK(format_duration(185) == "3 min 05 s");
  CHECK(format_duration(7620) == "2 h 07 min");
  CHECK(format_duration(-1) == "?");
  CHECK(time_left(10.0, 0.25, 0.75) == Approx(30.0));  // the last 0.25 s took 10 s: 0.75 s to go take 30 s
  CHECK(time_left(10.0, 0.0, 1.0) < 0.0);
}
