// FCLIB problems with stored reference reactions (tests/data/fclib_reference/*.csv), and the dev-set driver.
//  - [.generate] (hidden) recomputes the references: semismooth Newton to 1e-12 on a few small dev files.
//  - the default test reproduces them from a cold start to 1e-8 with Newton, APGD and NSGS. Where W is
//    singular r is not unique, so the file says to compare u = W r + q instead (its header: "compare: u").
//  - [.devset] (hidden) runs Newton and APGD on every dev file and prints the table of docs/semismooth-newton.md.
// Files come from TALUS_SHARED_DIR/fclib; the tests WARN and return when it is absent, and ctest reports them skipped.
#include <catch2/catch.hpp>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "solvers/fc/Apgd.hpp"
#include "solvers/fc/FclibIO.hpp"
#include "solvers/fc/Nsgs.hpp"
#include "solvers/fc/SemismoothNewton.hpp"

using namespace talus;
using namespace talus::solvers;
namespace fs = std::filesystem;

namespace {

const std::string kFclibDir = std::string(TALUS_SHARED_DIR) + "/fclib";
const std::string kReferenceDir = std::string(TALUS_SOURCE_DIR) + "/tests/data/fclib_reference";

struct ReferenceEntry {
  const char* problem;  // relative to kFclibDir
  bool unique_r;        // false where W is singular and only u = W r + q is determined
};

// Small dev files (≤ 82 contacts) of several families; uniqueness of r checked by comparing Newton and APGD
// at 1e-11 (they differ by ~1e-3 on Box_Stacks, whose W has rank 175 of 246).
const ReferenceEntry kReferences[] = {
    {"SmallExamples/FC3D_Example1.hdf5", true},
    {"SmallExamples/GFC3D_OneContact_local.hdf5", true},
    {"Rover/Rover1039.hdf5", true},
    {"NESpheres/NESpheres_30_1.hdf5", true},
    {"Confeti/Confeti-ex03-Fc3D-SBM.hdf5", true},
    {"BoxesStack/Box_Stacks-i0122-82-5_local.hdf5", false},
};

bool shared_data_present() {
  if (fs::is_directory(kFclibDir)) return true;
  // TALUS_TEST_SKIPPED: tests/CMakeLists.txt reports the test as skipped, not passed.
  WARN("TALUS_TEST_SKIPPED: " << kFclibDir << " not found (set TALUS_SHARED_DIR)");
  return false;
}

struct Reference {
  std::string problem;
  double tolerance = 0.0;
  double residual = 0.0;
  bool compare_u = false;
  Vector r;
};

Reference read_reference(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  Reference ref;
  std::vector<double> values;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# problem: ", 0) == 0) ref.problem = line.substr(11);
    if (line.rfind("# tolerance: ", 0) == 0) ref.tolerance = std::stod(line.substr(13));
    if (line.rfind("# residual: ", 0) == 0) ref.residual = std::stod(line.substr(12));
    if (line.rfind("# compare: u", 0) == 0) ref.compare_u = true;
    if (line.empty() || line[0] == '#' || line == "r") continue;
    values.push_back(std::stod(line));
  }
  ref.r = Eigen::Map<const Vector>(values.data(), Index(values.size()));
  return ref;
}

std::string stem(const std::string& problem) { return fs::path(problem).stem().string(); }

std::vector<std::string> dev_files() {
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(kFclibDir)) {
    if (!e.is_regular_file() || e.path().extension() != ".hdf5") continue;
    if (e.path().parent_path().filename() == "global") continue;  // the condensed *_local.hdf5 is beside it
    files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST_CASE("generate FCLIB reference reactions with semismooth Newton at 1e-12", "[.generate]") {
  if (!shared_data_present()) return;
  fs::create_directories(kReferenceDir);
  for (const auto& entry : kReferences) {
    const FrictionContactProblem p = read_fclib_local(kFclibDir + "/" + entry.problem);
    Vector r, u;
    SemismoothNewtonParameters params;
    params.tolerance = 1e-12;
    params.max_iterations = 1000;
    const SolverStats s = semismooth_newton(p, r, u, params);
    INFO(entry.problem << ": " << to_string(s.status) << " " << s.message);
    REQUIRE(s.converged());
    std::ofstream out(kReferenceDir + "/" + stem(entry.problem) + ".csv");
    char buf[64];
    out << "# FCLIB reference reactions, written by tests/solvers_fc_newton/FclibReferenceTest.cpp [.generate]\n";
    out << "# problem: " << entry.problem << "\n";
    out << "# (path relative to TALUS_SHARED_DIR/fclib)\n";
    out << "# solver: semismooth_newton, default parameters, cold start\n";
    std::snprintf(buf, sizeof buf, "%.1e", params.tolerance);
    out << "# tolerance: " << buf << "\n";
    std::snprintf(buf, sizeof buf, "%.3e", s.residual);
    out << "# residual: " << buf << "\n";
    out << "# contacts: " << p.contacts() << ", dim: " << p.dim << ", iterations: " << s.iterations << "\n";
    if (entry.unique_r)
      out << "# compare: r\n";
    else
      out << "# compare: u (W is singular: r is not unique, u = W r + q is)\n";
    out << "r\n";
    for (Index i = 0; i < r.size(); ++i) {
      std::snprintf(buf, sizeof buf, "%.17g", r[i]);
      out << buf << "\n";
    }
  }
}

TEST_CASE("FCLIB reference reactions are reproduced from a cold start to 1e-8", "[fc][newton][apgd][fclib]") {
  if (!shared_data_present()) return;
  int checked = 0;
  for (const auto& entry : kReferences) {
    const std::string path = kReferenceDir + "/" + stem(entry.problem) + ".csv";
    INFO(path);
    REQUIRE(fs::exists(path));
    const Reference ref = read_reference(path);
    REQUIRE(ref.problem == entry.problem);
    const FrictionContactProblem p = read_fclib_local(kFclibDir + "/" + ref.problem);
    REQUIRE(ref.r.size() == p.q.size());
    // The stored data are what the header says.
    CHECK(friction_residual(p, ref.r) <= 1e-12);
    CHECK(friction_residual(p, ref.r) == Approx(ref.residual).epsilon(1e-2).margin(1e-15));
    const Vector u_ref = p.W * ref.r + p.q;

    auto check = [&](const char* solver, const SolverStats& s, const Vector& r, const Vector& u) {
      INFO(solver << ": " << to_string(s.status) << ", residual " << s.residual << " " << s.message);
      REQUIRE(s.converged());
      CHECK(friction_residual(p, r) <= 1e-8);
      // A residual of 1e-8 leaves an error of about cond × 1e-8 in the answer.
      if (ref.compare_u)
        CHECK((u - u_ref).norm() <= 1e-6 * (1.0 + u_ref.norm()));
      else
        CHECK((r - ref.r).norm() <= 1e-6 * (1.0 + ref.r.norm()));
    };
    {
      Vector r, u;
      const SolverStats s = semismooth_newton(p, r, u, SemismoothNewtonParameters{});
      check("newton", s, r, u);
    }
    {
      Vector r, u;
      ApgdParameters ap;
      ap.max_iterations = 200000;
      const SolverStats s = apgd(p, r, u, ap);
      check("apgd", s, r, u);
    }
    {
      Vector r, u;
      NsgsParameters gp;
      gp.max_iterations = 100000;
      const SolverStats s = nsgs(p, r, u, gp);
      check("nsgs", s, r, u);
    }
    ++checked;
  }
  CHECK(checked == int(std::size(kReferences)));
}

TEST_CASE("dev set: semismooth Newton and APGD on every FCLIB file", "[.devset]") {
  if (!shared_data_present()) return;
  // CPU seconds beside wall seconds: on a shared machine the wall clock also counts other processes' turns.
  std::printf("| problem | contacts | solver | status | iterations | residual | wall s | cpu s | factorisations |"
              " linear s |\n");
  std::printf("|---|---:|---|---|---:|---:|---:|---:|---:|---:|\n");
  int newton_converged = 0, apgd_converged = 0, files = 0;
  for (const auto& file : dev_files()) {
    const FrictionContactProblem p = read_fclib_local(file);
    const std::string name = fs::relative(file, kFclibDir).string();
    ++files;
    {
      Vector r, u;
      SemismoothNewtonParameters np;
      np.max_iterations = 1000;
      np.time_cap_seconds = 60.0;
      const std::clock_t c0 = std::clock();
      const SolverStats s = semismooth_newton(p, r, u, np);
      const double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
      newton_converged += s.converged();
      std::printf("| %s | %ld | newton | %s | %d | %.2e | %.4f | %.4f | %ld | %.4f |\n", name.c_str(),
                  long(p.contacts()), to_string(s.status), s.iterations, s.residual, s.seconds, cpu,
                  s.counters.factorizations, s.counters.linear_seconds);
      CHECK(s.converged());
    }
    {
      Vector r, u;
      ApgdParameters ap;
      ap.max_iterations = 1000000;
      ap.time_cap_seconds = 60.0;
      const std::clock_t c0 = std::clock();
      const SolverStats s = apgd(p, r, u, ap);
      const double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
      apgd_converged += s.converged();
      std::printf("| %s | %ld | apgd | %s | %d | %.2e | %.4f | %.4f | - | - |\n", name.c_str(), long(p.contacts()),
                  to_string(s.status), s.iterations, s.residual, s.seconds, cpu);
    }
    std::fflush(stdout);
  }
  std::printf("newton converged on %d of %d, apgd on %d of %d (tolerance 1e-8)\n", newton_converged, files,
              apgd_converged, files);
}
