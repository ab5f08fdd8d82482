// The talus command (apps/Cli.cpp) driven in-process as the executable drives it: run and check honour and
// refuse --set alike; a run into a folder holding an earlier run needs --overwrite and then leaves only the
// new run's files; temporary files of a killed run are removed; SIGTERM ends a run like SIGINT (status
// "interrupted", outputs in place, exit 130); --max-memory bounds the scene.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "apps/Cli.hpp"
#include "apps/RunOutputs.hpp"

using namespace talus::app;
namespace fs = std::filesystem;

namespace {

const fs::path kBall = fs::path(TALUS_SOURCE_DIR) / "examples" / "bouncing_ball.yaml";

struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("talus_cli_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

struct Result {
  int status;
  std::string out, err;
};

// Runs `talus ARGS…` in this process, capturing what it prints.
Result run_talus(std::vector<std::string> args) {
  args.insert(args.begin(), "talus");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  std::ostringstream out, err;
  auto* old_out = std::cout.rdbuf(out.rdbuf());
  auto* old_err = std::cerr.rdbuf(err.rdbuf());
  const int status = cli_main(static_cast<int>(argv.size()), argv.data());
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old_err);
  return {status, out.str(), err.str()};
}

std::string slurp(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST_CASE("run and check honour --set alike on a single scene, and refuse a bad one with the same message",
          "[apps][cli]") {
  TempDir dir;
  const Result check = run_talus({"check", kBall.string(), "--set", "integrator.h=2e-3"});
  CHECK(check.status == 0);
  CHECK(check.out.find("h = 0.002, t_end = 4 (2000 steps)") != std::string::npos);
  const Result run = run_talus({"run", kBall.string(), "--out", dir.path.string(), "--quiet", "--no-plot",
                                "--set", "integrator.h=2e-3", "--t-end", "0.5"});
  REQUIRE(run.status == 0);
  const auto json = nlohmann::json::parse(slurp(dir.path / "run.json"));
  CHECK(json["parameters"]["h"] == 2e-3);
  CHECK(json["parameters"]["t_end"] == 0.5);
  CHECK(json["steps"] == 250);
  CHECK(json["overrides"] == nlohmann::json::array({"--set integrator.h=2e-3", "--t-end 0.5"}));

  const std::string expected =
      "--set integrator.h=abc: field 'integrator.h': is 'abc' (expected a positive number)\n";
  CHECK(run_talus({"check", kBall.string(), "--set", "integrator.h=abc"}).err == expected);
  TempDir other;
  const Result bad = run_talus({"run", kBall.string(), "--out", other.path.string(), "--quiet", "--no-plot",
                                "--set", "integrator.h=abc"});
  CHECK(bad.status == 1);
  CHECK(bad.err == expected);
  CHECK(!fs::exists(other.path));  // refused before any output is touched
  // --h and --t-end are checked like the file: h larger than t_end is refused, naming the flag.
  const Result big =
      run_talus({"run", kBall.string(), "--out", other.path.string(), "--quiet", "--no-plot", "--h", "10"});
  CHECK(big.status == 1);
  CHECK(big.err.rfind("--h 10: field 'integrator.h': is 10, larger than t_end = 4", 0) == 0);
}

TEST_CASE("a run into a folder holding an earlier run needs --overwrite and then leaves only its own files",
          "[apps][cli]") {
  TempDir dir;
  const std::string out = dir.path.string();
  REQUIRE(
      run_talus({"run", kBall.string(), "--out", out, "--quiet", "--no-plot", "--t-end", "0.01"}).status ==
      0);
  const std::string first = slurp(dir.path / "timeseries.csv");
  // Files of other earlier runs: figures, an event list, a granular run's frames and summary, and a temporary
  // file a killed run left.
  for (const char* stale :
       {"positions.png", "events.csv", "beads_00003.vtp", "granular.json", ".timeseries.csv.partial"})
    std::ofstream(dir.path / stale) << "stale";
  std::ofstream(dir.path / "notes.txt") << "the user's own file";
  const Result refused =
      run_talus({"run", kBall.string(), "--out", out, "--quiet", "--no-plot", "--t-end", "0.02"});
  CHECK(refused.status == 1);
  CHECK(refused.err.find("holds an earlier run") != std::string::npos);
  CHECK(refused.err.find("--overwrite") != std::string::npos);
  CHECK(slurp(dir.path / "timeseries.csv") == first);

  REQUIRE(run_talus(
              {"run", kBall.string(), "--out", out, "--quiet", "--no-plot", "--t-end", "0.02", "--overwrite"})
              .status == 0);
  CHECK(files_in(dir.path) ==
        std::vector<std::string>{"notes.txt", "restart.h5", "run.json", "timeseries.csv", "timeseries.h5"});
  CHECK(slurp(dir.path / "timeseries.csv") != first);
}

TEST_CASE(
    "SIGTERM ends a single-scene run like SIGINT: status interrupted, outputs in place, no partial file",
    "[apps][cli]") {
  for (int sig : {SIGTERM, SIGINT}) {
    INFO("signal " << sig);
    TempDir dir;
    std::cout.flush();
    std::fflush(nullptr);  // the child must not print the parent's buffered output again
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      // A run far longer than the test: only the signal ends it.
      const std::string out = dir.path.string(), scene = kBall.string();
      std::vector<std::string> args{"talus",
                                    "run",
                                    scene,
                                    "--out",
                                    out,
                                    "--quiet",
                                    "--no-plot",
                                    "--t-end",
                                    "1e6",
                                    "--set",
                                    "output.every=100000"};
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      _exit(cli_main(static_cast<int>(argv.size()), argv.data()));
    }
    // The temporary files exist once the handlers are installed (RunOutputs opens them inside the run).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!fs::exists(dir.path / ".timeseries.csv.partial") && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    REQUIRE(fs::exists(dir.path / ".timeseries.csv.partial"));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    kill(child, sig);
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 130);
    const auto json = nlohmann::json::parse(slurp(dir.path / "run.json"));
    CHECK(json["status"] == "interrupted");
    CHECK(json["steps"].get<long>() > 0);
    for (const std::string& f : files_in(dir.path)) CHECK(f[0] != '.');
  }
}

TEST_CASE("a second signal removes the open outputs' temporary files before the process ends",
          "[apps][cli]") {
  TempDir dir;
  {
    RunOutputs outputs(dir.path, ColumnInfo{{"t"}, {"s"}, {"time"}}, {});
    const double row[1] = {0.0};
    outputs.append(row);
    outputs.flush();
    REQUIRE(fs::exists(dir.path / ".timeseries.csv.partial"));
    remove_partial_files_from_signal_handler();  // what the handler does on the second SIGINT/SIGTERM
    CHECK(files_in(dir.path).empty());
  }
  write_file_atomically(dir.path / "events.csv", "a\n");
  CHECK(files_in(dir.path) == std::vector<std::string>{"events.csv"});
}

TEST_CASE("the memory limit (--max-memory) bounds the scene, and a bad size is refused", "[apps][cli]") {
  const fs::path beam = fs::path(TALUS_SOURCE_DIR) / "examples" / "rotating_beam.yaml";
  CHECK(run_talus({"check", beam.string()}).status == 0);
  const Result small = run_talus(
      {"check", beam.string(), "--set", "corotational_beams[0].elements=2000", "--max-memory", "64M"});
  CHECK(small.status == 1);
  CHECK(small.err.find("field 'corotational_beams[0].elements': 2000 elements") != std::string::npos);
  CHECK(small.err.find("allowed by --max-memory") != std::string::npos);
  const Result bad = run_talus({"check", beam.string(), "--max-memory", "lots"});
  CHECK(bad.status == 1);
  CHECK(bad.err.find("--max-memory: 'lots' is not a memory size") != std::string::npos);
}

TEST_CASE("a single scene's figures, drawn after run.json, are listed in its files", "[apps][cli]") {
  TempDir dir;
  REQUIRE(run_talus({"run", kBall.string(), "--out", dir.path.string(), "--quiet", "--t-end", "0.05"}).status == 0);
  const auto json = nlohmann::json::parse(slurp(dir.path / "run.json"));
  std::vector<std::string> listed = json["files"].get<std::vector<std::string>>();
  std::sort(listed.begin(), listed.end());
  // python3-matplotlib is one of the project's dependencies (scripts/install-deps.sh): the four figures are there.
  CHECK(listed == std::vector<std::string>{"energy.png", "positions.png", "reactions.png", "restart.h5", "run.json",
                                           "timeseries.csv", "timeseries.h5", "velocities.png"});
  CHECK(files_in(dir.path) == listed);
}

TEST_CASE("talus run --help names the files each kind of run writes", "[apps][cli]") {
  // CLI11 prints help to stdout and asks to exit 0.
  const Result help = run_talus({"run", "--help"});
  CHECK(help.status == 0);
  for (const char* f :
       {"beads.pvd", "contacts.pvd", "snapshot.png", "profile.txt", "restart.h5",
        "trace.json", "timeseries.csv", "timeseries.h5", "run.json", "--overwrite", "--max-memory"})
    CHECK(help.out.find(f) != std::string::npos);
}

TEST_CASE("granular scenes get --max-memory and --overwrite from the command line too", "[apps][cli]") {
  const fs::path stack = fs::path(TALUS_SOURCE_DIR) / "examples" / "bead_stack.yaml";
  CHECK(run_talus({"check", stack.string(), "--set", "n=200"}).status == 0);
  const Result small = run_talus({"check", stack.string(), "--set", "n=200", "--max-memory", "1K"});
  CHECK(small.status == 1);
  CHECK(small.err.find("--max-memory") != std::string::npos);
  // A granular run into a folder holding a single-scene run is refused without --overwrite, before stepping.
  TempDir dir;
  REQUIRE(run_talus(
              {"run", kBall.string(), "--out", dir.path.string(), "--quiet", "--no-plot", "--t-end", "0.01"})
              .status == 0);
  const Result refused = run_talus({"run", stack.string(), "--out", dir.path.string(), "--quiet", "--no-plot",
                                    "--set", "n=50", "--t-end", "0.002"});
  CHECK(refused.status == 1);
  CHECK(refused.err.find("--overwrite") != std::string::npos);
  CHECK(nlohmann::json::parse(slurp(dir.path / "run.json"))["path"] == "small");  // the single scene's, untouched
  // --restart is the granular scenes' restart key too; its problems name the flag.
  const Result restart = run_talus({"run", stack.string(), "--restart", "x.h5"});
  CHECK(restart.status == 1);
  CHECK(restart.err == "--restart x.h5: field 'granular.restart': 'x.h5': no such file\n");
}

TEST_CASE("a granular scene continues with --restart as with --set restart, bit for bit", "[apps][cli]") {
  const fs::path stack = fs::path(TALUS_SOURCE_DIR) / "examples" / "bead_stack.yaml";
  TempDir dir;
  const auto run = [&](const std::string& out, std::vector<std::string> extra) {
    std::vector<std::string> args = {"run", stack.string(), "--out", (dir.path / out).string(), "--quiet",
                                     "--no-plot", "--set", "n=64", "--set", "frame_every=0.01"};
    args.insert(args.end(), extra.begin(), extra.end());
    REQUIRE(run_talus(args).status == 0);
  };
  run("half", {"--t-end", "0.01"});
  const std::string archive = (dir.path / "half" / "restart.h5").string();
  run("flag", {"--t-end", "0.02", "--restart", archive});
  run("key", {"--t-end", "0.02", "--set", "restart=" + archive});
  run("straight", {"--t-end", "0.02"});
  const auto text = [&](const std::string& out) {
    std::ifstream in(dir.path / out / "beads_00001.vtp");
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  REQUIRE(!text("flag").empty());
  CHECK(text("flag") == text("key"));
  // The restarted runs' second frame (t = 0.02) is the straight run's third.
  std::ifstream in(dir.path / "straight" / "beads_00002.vtp");
  CHECK(text("flag") == std::string(std::istreambuf_iterator<char>(in), {}));
}

TEST_CASE("a single scene's --profile times every step's stages: a Chrome trace and run.json's phase_seconds",
          "[apps][cli]") {
  TempDir dir;
  fs::create_directories(dir.path);
  const fs::path examples = fs::path(TALUS_SOURCE_DIR) / "examples";
  const fs::path trace = dir.path / "trace.json";
  // The rocking block under Moreau–Jean, the two-ball oscillator under generalized-α (their own schemes).
  for (const char* scheme : {"rocking_block", "two_ball_oscillator"}) {
    INFO(scheme);
    const Result run =
        run_talus({"run", (examples / (std::string(scheme) + ".yaml")).string(), "--out",
                   (dir.path / scheme).string(), "--no-plot", "--t-end", "0.5", "--profile", trace.string()});
    REQUIRE(run.status == 0);
    CHECK(run.err.find("solve") != std::string::npos);  // the per-stage table
    const auto json = nlohmann::json::parse(slurp(dir.path / scheme / "run.json"));
    const auto events = nlohmann::json::parse(slurp(trace))["traceEvents"];
    // Every step has its activation, assembly, solve and integration; the solve is timed, and the stages add
    // up to no more than the run's wall time.
    long solves = 0;
    for (const auto& e : events) solves += e["name"] == "solve";
    CHECK(solves >= json["steps"].get<long>() / 2);  // steps where a contact is active
    double sum = 0.0;
    for (const auto& [name, seconds] : json["phase_seconds"].items()) sum += seconds.get<double>();
    CHECK(json["phase_seconds"]["solve"].get<double>() > 0.0);
    CHECK(sum <= json["wall_seconds"].get<double>());
  }
  const Result ed = run_talus({"run", kBall.string(), "--out", (dir.path / "ed").string(), "--no-plot",
                               "--set", "integrator.scheme=event_driven", "--profile", trace.string()});
  CHECK(ed.status != 0);
  CHECK(ed.err.find("--profile: an event_driven scene") != std::string::npos);
}

TEST_CASE("talus check and run take an integrator.path: large scene, its overrides and --restart",
          "[apps][cli]") {
  const fs::path trough = fs::path(TALUS_SOURCE_DIR) / "examples" / "trough.yaml";
  const Result check = run_talus({"check", trough.string(), "--set", "lattices[0].counts=[4, 4, 2]"});
  CHECK(check.status == 0);
  CHECK(
      check.out.find("ok: trough: large path, 33 spheres, 0 capsules, 0 joints, 4 planes, 0 boxes, 0 drums, 0 cones, "
                     "0 meshes (0 triangles), 0 FE beams, 2 materials; moreau_jean, solver anderson; h = 0.001, t_end = 0.8 "
                     "(800 steps)") != std::string::npos);
  TempDir dir;
  const std::vector<std::string> small = {"--set", "lattices[0].counts=[4, 4, 2]", "--no-plot", "--quiet"};
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.end(), small.begin(), small.end());
    return run_talus(args);
  };
  CHECK(with({"run", trough.string(), "--t-end", "0.02", "--out", (dir.path / "a").string()}).status == 0);
  // The one summary, run.json, with the small path's keys (apps/RunSummary.hpp).
  const auto a = nlohmann::json::parse(slurp(dir.path / "a" / "run.json"));
  CHECK(a["path"] == "large");
  CHECK(a["parameters"]["generator"] == "explicit");
  CHECK(a["overrides"] == nlohmann::json::array({"--set lattices[0].counts=[4, 4, 2]", "--t-end 0.02"}));
  CHECK(a["restarted_from"].is_null());
  CHECK(!fs::exists(dir.path / "a" / "granular.json"));
  const Result next = with({"run", trough.string(), "--t-end", "0.04", "--out", (dir.path / "b").string(),
                            "--restart", (dir.path / "a" / "restart.h5").string()});
  CHECK(next.status == 0);
  const auto b = nlohmann::json::parse(slurp(dir.path / "b" / "run.json"));
  CHECK(b["steps"] == 20);
  CHECK(b["final_step"] == 40);
  CHECK(b["restarted_from"]["step"] == 20);
  CHECK(b["restarted_from"]["continues_bitwise"] == true);  // continued under the settings it was written with
  CHECK(b["start_time"].get<double>() == Approx(0.02));
  // The small path's keys are refused with the field, as for any scene.
  const Result bad = run_talus({"check", trough.string(), "--set", "integrator.theta=1"});
  CHECK(bad.status == 1);
  CHECK(bad.err.find("--set integrator.theta=1: field 'integrator.theta': is not read by path: large") !=
        std::string::npos);
}
