// The FCLIB benchmark (issue 3 item 4): every friction solver on every FCLIB problem of a folder, one CSV row per
// (problem, solver) with columns problem,contacts,solver,converged,iterations,residual,seconds, a summary per
// family (sub-folder) and overall, the solvers' kernel counters, and Dolan–Moré performance profiles of
// time-to-tolerance drawn by scripts/performance_profile.py. Every answer is re-checked here with
// friction_residual, independently of what the solver reports.
//
// With --global, global files are also benchmarked: the local solvers on their condensed form, and the granular
// path's matrix-free sweeps (mf-nsgs, mf-anderson: solvers/matrixfree) on the global form itself when it is a
// sphere-contact problem (a granular step dumped by `talus run SCENE --dump-fclib DIR`), and NSGS and APGD on the
// factored operator of any global file (fd-nsgs, fd-apgd: H and X = M⁻¹H, W never formed); they have no row for
// local files. Each global file's line says how many entries each operator holds and what it costs to set up.
//
// --lattice N1,N2,... instead generates lattice bead stacks of about N contacts (LatticeStackProblem.hpp) and
// reports the NSGS sweep cost (ns per contact per sweep) and the 1- vs 2-thread coloured-sweep speed-up.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "solvers/core/FrictionContactProblem.hpp"
#include "solvers/fc/BlockCsrMatrix.hpp"
#include "solvers/fc/FactoredDelassus.hpp"
#include "solvers/fc/FclibIO.hpp"
#include "solvers/fc/LatticeStackProblem.hpp"
#include "solvers/fc/Nsgs.hpp"
#include "solvers/matrixfree/SphereContactProblem.hpp"
#if __has_include("solvers/fc/SemismoothNewton.hpp")
#include "solvers/fc/SemismoothNewton.hpp"
#define TALUS_BENCH_HAVE_NEWTON 1
#endif
#if __has_include("solvers/fc/Apgd.hpp")
#include "solvers/fc/Apgd.hpp"
#define TALUS_BENCH_HAVE_APGD 1
#endif

namespace fs = std::filesystem;
using namespace talus;
using namespace talus::solvers;

namespace {

struct Budget {
  double tolerance = 1e-8;
  int max_iterations = 10000;
  double time_cap = 0.0;
  int threads = 1;
};

using SolveFunction = std::function<SolverStats(const FrictionContactProblem&, Vector&, Vector&, const Budget&)>;
// Solvers that work on the global form itself (the matrix-free sweeps over bodies' arrays): r in the contacts'
// frames, as the local solvers give it.
using GlobalSolveFunction = std::function<SolverStats(const GlobalFrictionContactProblem&, Vector&, const Budget&)>;

struct Solver {
  std::string name;
  std::string what;
  SolveFunction solve;         // on the local problem (a global file condensed), or
  GlobalSolveFunction global;  // on the global problem: run on global files only (--global)
};

// The matrix-free sweep of the granular path on a global file of the sphere form
// (solvers/matrixfree/SphereContactProblem.hpp); any other global problem is reported as not solved.
Solver matrix_free_variant(std::string name, std::string what, int anderson, int anderson_every = 1) {
  return {std::move(name), std::move(what), nullptr,
          [=](const GlobalFrictionContactProblem& g, Vector& r, const Budget& b) {
            SolverStats st;
            matrixfree::SphereContactProblem sp;
            try {
              sp = matrixfree::sphere_problem_from_global(g);
            } catch (const std::invalid_argument& e) {
              st.status = SolverStatus::InvalidInput;
              st.message = e.what();
              return st;
            }
            matrixfree::MatrixFreeParameters prm;
            prm.tolerance = b.tolerance;
            prm.max_sweeps = b.max_iterations;
            prm.anderson = anderson;
            prm.anderson_every = anderson_every;
            prm.threads = b.threads;
            matrixfree::SphereSolveOutput out;
            matrixfree::MatrixFreeWorkspace work;
            st = matrixfree::solve_sphere_problem(sp, prm, out, work);
            r = out.r;
            return st;
          }};
}

// The assembled solvers on the factored form of a global file's operator (solvers/fc/FactoredDelassus.hpp: H and
// X = M⁻¹H, W never formed). The time is the solve's; the factorisation is printed per problem beside the
// condensation's (run_folder).
Solver factored_variant(std::string name, std::string what,
                        std::function<SolverStats(const DelassusOperator&, Vector&, Vector&, const Budget&)> run) {
  return {std::move(name), std::move(what), nullptr,
          [run](const GlobalFrictionContactProblem& g, Vector& r, const Budget& b) {
            SolverStats st;
            std::unique_ptr<FactoredDelassus> op;
            try {
              op = std::make_unique<FactoredDelassus>(g);
            } catch (const std::exception& e) {
              st.status = SolverStatus::InvalidInput;
              st.message = e.what();
              return st;
            }
            Vector u;
            return run(*op, r, u, b);
          }};
}

template <class P>
P with_budget(P prm, const Budget& b) {
  prm.tolerance = b.tolerance;
  prm.max_iterations = b.max_iterations;
  prm.time_cap_seconds = b.time_cap;
  return prm;
}

// The library defaults (analytic local solve, Anderson acceleration) with the given changes.
NsgsParameters nsgs_setup(LocalSolverKind local, double relaxation = 1.0, bool shuffle = false, int anderson = 5) {
  NsgsParameters prm;
  prm.local = local;
  prm.relaxation = relaxation;
  prm.shuffle = shuffle;
  prm.seed = 1;
  prm.anderson_memory = anderson;
  return prm;
}

// use_threads: coloured sweep on --threads threads.
Solver nsgs_variant(std::string name, std::string what, NsgsParameters setup, bool use_threads = false) {
  return {std::move(name), std::move(what),
          [=](const FrictionContactProblem& p, Vector& r, Vector& u, const Budget& b) {
            NsgsParameters prm = with_budget(setup, b);
            prm.threads = use_threads ? b.threads : 1;
            prm.coloured = use_threads;
            return nsgs(p, r, u, prm);
          }};
}

std::vector<Solver> all_solvers() {
  using K = LocalSolverKind;
  std::vector<Solver> s;
  s.push_back(nsgs_variant("nsgs", "NSGS defaults: analytic local solve, adaptive Anderson acceleration",
                           nsgs_setup(K::Analytic)));
  s.push_back(nsgs_variant("nsgs-plain", "NSGS analytic, plain Gauss-Seidel (no acceleration)",
                           nsgs_setup(K::Analytic, 1.0, false, 0)));
  s.push_back(nsgs_variant("nsgs-proj", "NSGS, one projection on the cone per contact, plain",
                           nsgs_setup(K::Projection, 1.0, false, 0)));
  s.push_back(nsgs_variant("nsgs-ac", "NSGS, local Alart-Curnier Newton only, plain",
                           nsgs_setup(K::AlartCurnierNewton, 1.0, false, 0)));
  s.push_back(nsgs_variant("nsgs-shuffle", "NSGS analytic, order reshuffled every sweep, plain",
                           nsgs_setup(K::Analytic, 1.0, true, 0)));
  s.push_back(nsgs_variant("nsgs-sor", "NSGS analytic, over-relaxed omega = 1.3, plain",
                           nsgs_setup(K::Analytic, 1.3, false, 0)));
  s.push_back(nsgs_variant("nsgs-colour", "NSGS defaults, coloured sweep on --threads threads",
                           nsgs_setup(K::Analytic), true));
  s.push_back(matrix_free_variant("mf-nsgs", "granular path's matrix-free sweep over bodies' arrays (global sphere "
                                  "problems only, --global; --threads threads)", 0));
  s.push_back(matrix_free_variant("mf-anderson", "the same with Anderson acceleration every 2 sweeps, memory 2 (the "
                                  "granular default)", 2, 2));
  s.push_back(factored_variant("fd-nsgs", "NSGS analytic, plain serial sweep on the factored operator (global files, "
                               "--global)",
                               [](const DelassusOperator& op, Vector& r, Vector& u, const Budget& b) {
                                 NsgsParameters prm = with_budget(nsgs_setup(LocalSolverKind::Analytic, 1.0, false, 0), b);
                                 return nsgs(op, r, u, prm);
                               }));
#ifdef TALUS_BENCH_HAVE_APGD
  s.push_back(factored_variant("fd-apgd", "APGD on the factored operator (global files, --global)",
                               [](const DelassusOperator& op, Vector& r, Vector& u, const Budget& b) {
                                 return apgd(op, r, u, with_budget(ApgdParameters{}, b));
                               }));
#endif
#ifdef TALUS_BENCH_HAVE_NEWTON
  s.push_back({"ssn", "global semismooth Newton (Alart-Curnier, UMFPACK)",
               [](const FrictionContactProblem& p, Vector& r, Vector& u, const Budget& b) {
                 SemismoothNewtonParameters prm = with_budget(SemismoothNewtonParameters{}, b);
                 prm.max_iterations = std::min(b.max_iterations, 1000);
                 return semismooth_newton(p, r, u, prm);
               }});
#endif
#ifdef TALUS_BENCH_HAVE_APGD
  s.push_back({"apgd", "accelerated projected gradient with restart",
               [](const FrictionContactProblem& p, Vector& r, Vector& u, const Budget& b) {
                 ApgdParameters prm = with_budget(ApgdParameters{}, b);
                 return apgd(p, r, u, prm);
               }});
#endif
  return s;
}

struct Row {
  std::string problem, family, solver;
  Index contacts = 0;
  bool converged = false;
  int iterations = 0;
  double residual = 0.0, seconds = 0.0;
};

struct Totals {
  KernelCounters counters;
  int runs = 0;
  int claimed_but_failed_check = 0;
};

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string format_seconds(double s) {
  if (!std::isfinite(s)) return "-";
  char buf[32];
  if (s < 1e-3)
    std::snprintf(buf, sizeof buf, "%.0f us", s * 1e6);
  else if (s < 1.0)
    std::snprintf(buf, sizeof buf, "%.2f ms", s * 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.2f s", s);
  return buf;
}

// Runs once; problems solved in under 2 ms are re-run (up to 50 ms in all) and the fastest run is kept, so that
// the reported time of the small problems is not one cold-cache sample.
Row run_one(const Solver& solver, const FrictionContactProblem& p, const GlobalFrictionContactProblem* g,
            const Budget& budget, Totals& totals) {
  Row row;
  Vector r, u;
  auto solve = [&](Vector& r_out, Vector& u_out) {
    return solver.global ? solver.global(*g, r_out, budget) : solver.solve(p, r_out, u_out, budget);
  };
  SolverStats stats = solve(r, u);
  if (stats.status == SolverStatus::InvalidInput && !stats.message.empty())
    std::fprintf(stderr, "\n  %s: %s\n", solver.name.c_str(), stats.message.c_str());
  double best = stats.seconds, spent = stats.seconds;
  while (stats.converged() && best < 2e-3 && spent < 5e-2) {
    Vector r2, u2;
    const SolverStats again = solve(r2, u2);
    best = std::min(best, again.seconds);
    spent += again.seconds;
  }
  const double residual = r.size() == p.q.size() ? friction_residual(p, r) : NAN;
  row.converged = std::isfinite(residual) && residual <= budget.tolerance;
  if (stats.converged() && !row.converged) ++totals.claimed_but_failed_check;
  row.iterations = stats.iterations;
  row.residual = residual;
  row.seconds = best;
  row.contacts = p.contacts();
  auto& c = totals.counters;
  c.sweeps += stats.counters.sweeps;
  c.local_iterations += stats.counters.local_iterations;
  c.linear_solves += stats.counters.linear_solves;
  c.factorizations += stats.counters.factorizations;
  c.local_seconds += stats.counters.local_seconds;
  c.matvec_seconds += stats.counters.matvec_seconds;
  c.linear_seconds += stats.counters.linear_seconds;
  c.colours = std::max(c.colours, stats.counters.colours);
  ++totals.runs;
  return row;
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

fs::path script_path(const std::string& override_path) {
  if (!override_path.empty()) return override_path;
  // build*/bench/fclib -> repository root/scripts
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path candidate = exe.parent_path().parent_path().parent_path() / "scripts" / "performance_profile.py";
    if (fs::exists(candidate)) return candidate;
  }
  return fs::path("scripts") / "performance_profile.py";
}

// Debian's python3-matplotlib is installed for /usr/bin/python3, which a pyenv or venv python3 earlier on the
// PATH would hide; $TALUS_PYTHON overrides.
std::string python_interpreter() {
  if (const char* chosen = std::getenv("TALUS_PYTHON")) return chosen;
  if (fs::exists("/usr/bin/python3")) return "/usr/bin/python3";
  return "python3";
}

// A problem's path as one CSV field: quoted (quotes doubled) when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + '"';
}

int run_folder(const std::string& folder, const Budget& budget, const std::vector<Solver>& solvers,
               const std::string& csv_path, const std::string& png_path, const std::string& script, bool plot,
               bool include_global) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    std::cerr << "fclib: " << folder << ": no such folder (the FCLIB collection is ../shared/fclib beside the "
              << "checkout; give its path, or --lattice N1,N2,... for generated problems)\n";
    return 2;
  }
  std::vector<fs::path> files;
  try {
    for (const auto& entry : fs::recursive_directory_iterator(folder))
      if (entry.is_regular_file() && (entry.path().extension() == ".hdf5" || entry.path().extension() == ".h5"))
        files.push_back(entry.path());
  } catch (const fs::filesystem_error& e) {
    std::cerr << "fclib: cannot list " << folder << ": " << e.code().message() << " (" << e.path1().string() << ")\n";
    return 2;
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::cerr << "fclib: no .hdf5 files under " << folder << "\n";
    return 1;
  }
  int skipped = 0;

  std::vector<Row> rows;
  std::map<std::string, Totals> totals;
  std::vector<std::string> problems;
  std::map<std::string, std::string> family_of;
  for (const auto& file : files) {
    const std::string name = fs::relative(file, folder).string();
    const FclibKind kind = fclib_kind(file.string());
    if (kind == FclibKind::NotFclib) {
      std::cerr << "warning: skipping " << name << ": not an FCLIB problem file\n";
      ++skipped;
      continue;
    }
    if (kind == FclibKind::Global && !include_global) {
      std::cerr << "note: skipping global problem " << name << " (its condensed local twin is benchmarked; "
                << "--global includes it)\n";
      ++skipped;
      continue;
    }
    FrictionContactProblem p;
    GlobalFrictionContactProblem global;
    try {
      p = read_fclib_problem(file.string());
      if (kind == FclibKind::Global) global = read_fclib_global(file.string());
    } catch (const std::exception& e) {
      std::cerr << "warning: skipping " << e.what() << "\n";
      ++skipped;
      continue;
    }
    const fs::path rel = fs::relative(file, folder);
    const std::string family = rel.has_parent_path() ? rel.begin()->string() : std::string("(top)");
    problems.push_back(name);
    family_of[name] = family;
    if (kind == FclibKind::Global) {
      // The two operators' set-up, for the choice between them (docs/friction-solvers.md, "Two operators").
      const auto t0 = std::chrono::steady_clock::now();
      const FrictionContactProblem condensed = condense_to_local(global);
      const auto t1 = std::chrono::steady_clock::now();
      try {
        const FactoredDelassus factored(global);
        const auto t2 = std::chrono::steady_clock::now();
        std::printf("%s: operators: assembled W %ld entries (condensed in %s), factored H + X %ld entries "
                    "(factorised in %s)\n",
                    name.c_str(), static_cast<long>(condensed.W.nonZeros()),
                    format_seconds(std::chrono::duration<double>(t1 - t0).count()).c_str(),
                    static_cast<long>(factored.stored_entries()),
                    format_seconds(std::chrono::duration<double>(t2 - t1).count()).c_str());
      } catch (const std::exception& e) {
        std::cerr << "note: " << name << ": no factored operator (" << e.what() << ")\n";
      }
    }
    std::printf("%-58s %5ld contacts ", name.c_str(), static_cast<long>(p.contacts()));
    std::fflush(stdout);
    Row best;
    best.seconds = std::numeric_limits<double>::infinity();
    best.residual = std::numeric_limits<double>::infinity();
    for (const auto& s : solvers) {
      if (s.global && kind != FclibKind::Global) continue;  // needs the global form: no row (profile: unsolved)
      Row row = run_one(s, p, kind == FclibKind::Global ? &global : nullptr, budget, totals[s.name]);
      row.problem = name;
      row.family = family;
      row.solver = s.name;
      rows.push_back(row);
      std::printf(" %s", row.converged ? "+" : ".");
      std::fflush(stdout);
      const bool better = row.converged ? (!best.converged || row.seconds < best.seconds)
                                        : (!best.converged && row.residual < best.residual);
      if (better) best = row;
    }
    best.solver = "portfolio";
    rows.push_back(best);
    std::printf("  best %s %s\n", best.converged ? format_seconds(best.seconds).c_str() : "unsolved",
                best.converged ? "" : ("(residual " + std::to_string(best.residual) + ")").c_str());
  }

  if (problems.empty()) {
    // A benchmark that ran nothing must not look like a success to a script or CI.
    std::cerr << "fclib: all " << skipped << " files under " << folder << " were skipped; nothing was benchmarked\n";
    return 1;
  }
  if (skipped > 0) std::printf("\n%d of %zu files skipped (see the warnings above)\n", skipped, files.size());

  if (!csv_path.empty()) {
    std::ofstream csv(csv_path);
    if (!csv) {
      std::cerr << "fclib: cannot write " << csv_path << "\n";
      return 1;
    }
    csv << "problem,contacts,solver,converged,iterations,residual,seconds\n";
    csv.precision(6);
    for (const auto& r : rows)
      csv << csv_field(r.problem) << ',' << r.contacts << ',' << r.solver << ',' << (r.converged ? 1 : 0) << ',' << r.iterations
          << ',' << std::scientific << r.residual << ',' << r.seconds << std::defaultfloat << '\n';
  }

  std::vector<std::string> names;
  for (const auto& s : solvers) names.push_back(s.name);
  names.push_back("portfolio");
  std::vector<std::string> families;
  for (const auto& [p, f] : family_of)
    if (std::find(families.begin(), families.end(), f) == families.end()) families.push_back(f);
  std::sort(families.begin(), families.end());

  std::printf("\nSolved at tolerance %.0e (problems solved / problems in the family)\n", budget.tolerance);
  std::printf("%-14s", "family");
  for (const auto& n : names) std::printf(" %16s", n.c_str());
  std::printf("\n");
  auto line = [&](const std::string& label, auto in_scope) {
    std::printf("%-14s", label.c_str());
    for (const auto& n : names) {
      int solved = 0, total = 0;
      for (const auto& r : rows)
        if (r.solver == n && in_scope(r)) {
          ++total;
          solved += r.converged;
        }
      char cell[32];
      std::snprintf(cell, sizeof cell, "%d/%d", solved, total);
      std::printf(" %16s", cell);
    }
    std::printf("\n");
  };
  for (const auto& f : families) line(f, [&](const Row& r) { return r.family == f; });
  line("all", [](const Row&) { return true; });
  std::printf("%-14s", "median time");
  for (const auto& n : names) {
    std::vector<double> t;
    for (const auto& r : rows)
      if (r.solver == n && r.converged) t.push_back(r.seconds);
    std::printf(" %16s", format_seconds(median(t)).c_str());
  }
  std::printf("\n%-14s", "median <=50c");
  for (const auto& n : names) {
    std::vector<double> t;
    for (const auto& r : rows)
      if (r.solver == n && r.converged && r.contacts <= 50) t.push_back(r.seconds);
    std::printf(" %16s", format_seconds(median(t)).c_str());
  }
  std::printf("\n\nUnsolved by each solver:\n");
  for (const auto& n : names) {
    std::printf("  %-16s", n.c_str());
    for (const auto& r : rows)
      if (r.solver == n && !r.converged) std::printf(" %s(%.1e)", fs::path(r.problem).stem().c_str(), r.residual);
    std::printf("\n");
  }

  std::printf("\nKernel counters (summed over all problems)\n");
  std::printf("%-16s %10s %12s %10s %10s %10s %10s %10s %8s\n", "solver", "sweeps", "local its", "local s",
              "matvec s", "linear s", "solves", "factor.", "colours");
  for (const auto& s : solvers) {
    const Totals& t = totals[s.name];
    const auto& c = t.counters;
    std::printf("%-16s %10ld %12ld %10.3f %10.3f %10.3f %10ld %10ld %8ld\n", s.name.c_str(), c.sweeps,
                c.local_iterations, c.local_seconds, c.matvec_seconds, c.linear_seconds, c.linear_solves,
                c.factorizations, c.colours);
    if (t.claimed_but_failed_check > 0)
      std::printf("  !! %s reported convergence %d time(s) that the independent residual rejects\n", s.name.c_str(),
                  t.claimed_but_failed_check);
  }

  if (plot && !csv_path.empty()) {
    const std::string png = png_path.empty() ? fs::path(csv_path).replace_extension(".png").string() : png_path;
    const std::string cmd = python_interpreter() + " '" + script + "' '" + csv_path + "' '" + png + "' --exclude portfolio";
    std::printf("\n%s\n", cmd.c_str());
    std::fflush(stdout);
    if (std::system(cmd.c_str()) != 0) std::cerr << "warning: the performance profile was not drawn\n";
  }
  return 0;
}

double process_cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Cost of one sweep without the set-up (block-CSR copy, colouring): the difference between runs of 10 and 60
// sweeps, best of five. Returns {wall, cpu of all threads} in ns per contact per sweep.
std::pair<double, double> sweep_cost(const FrictionContactProblem& p, int threads, bool coloured) {
  double wall = INFINITY, cpu = INFINITY;
  for (int rep = 0; rep < 5; ++rep) {
    double w[2], c[2];
    const int sweeps[2] = {10, 60};
    for (int k = 0; k < 2; ++k) {
      NsgsParameters prm;
      prm.tolerance = 0.0;
      prm.max_iterations = sweeps[k];
      prm.anderson_memory = 0;
      prm.threads = threads;
      prm.coloured = coloured;
      Vector r, u;
      const double c0 = process_cpu_seconds();
      w[k] = nsgs(p, r, u, prm).seconds;
      c[k] = process_cpu_seconds() - c0;
    }
    const double scale = 1e9 / (50.0 * static_cast<double>(p.contacts()));
    wall = std::min(wall, (w[1] - w[0]) * scale);
    cpu = std::min(cpu, (c[1] - c[0]) * scale);
  }
  return {wall, cpu};
}

int run_lattice(const std::vector<long>& sizes, int layers, double noise, const Budget& budget) {
  const int t2 = std::max(2, budget.threads);
  std::printf("Lattice bead stacks (LatticeStackProblem.hpp): %d layers, pre-impact velocity noise %.3g m/s.\n"
              "Sweep cost = (time of 60 sweeps - time of 10) / (50 x contacts), best of 5, plain Gauss-Seidel;\n"
              "'cpu' is process CPU time (all threads), 'wall' elapsed time. Then solves to %.0e with the defaults,\n"
              "best of 3 (the minimum filters out other processes' interference).\n\n",
              layers, noise, budget.tolerance);
  std::printf("%9s %6s %4s | %8s %8s %8s %8s | %7s | %6s %9s %6s %9s %6s %7s\n", "contacts", "blk/c", "col",
              "serial", "cpu", "col-1T", ("col-" + std::to_string(t2) + "T").c_str(), "speedup", "its-1T",
              "time-1T", ("its-" + std::to_string(t2) + "T").c_str(), ("time-" + std::to_string(t2) + "T").c_str(),
              "its x", "time x");
  for (long target : sizes) {
    LatticeStackParameters lp = lattice_stack_for_contacts(target, layers);
    lp.velocity_noise = noise;
    lp.seed = 7;
    const FrictionContactProblem p = make_lattice_stack_problem(lp);
    const long n = p.contacts();
    const auto serial = sweep_cost(p, 1, false);
    const auto one = sweep_cost(p, 1, true);
    const auto two = sweep_cost(p, t2, true);
    // Best of three solves (identical results every time; the minimum filters out other processes' interference).
    auto solve = [&](int threads) {
      NsgsParameters prm = with_budget(NsgsParameters{}, budget);
      prm.threads = threads;
      SolverStats best;
      for (int rep = 0; rep < 3; ++rep) {
        Vector r, u;
        const SolverStats st = nsgs(p, r, u, prm);
        if (rep == 0 || st.seconds < best.seconds) best = st;
      }
      if (!best.converged())
        std::fprintf(stderr, "  warning: %ld contacts, %d thread(s): %s, residual %.2e after %d sweeps\n", n, threads,
                     to_string(best.status), best.residual, best.iterations);
      return best;
    };
    const SolverStats s1 = solve(1);
    const SolverStats s2 = solve(t2);
    const double blocks = static_cast<double>(make_block_csr(p.W, 3).off_diagonal_blocks()) / static_cast<double>(n);
    std::printf("%9ld %6.2f %4ld | %8.1f %8.1f %8.1f %8.1f | %7.2f | %6d %9s %6d %9s %6.3f %7.2f\n", n, blocks,
                s2.counters.colours, serial.first, serial.second, one.first, two.first, one.first / two.first,
                s1.iterations, format_seconds(s1.seconds).c_str(), s2.iterations, format_seconds(s2.seconds).c_str(),
                static_cast<double>(s2.iterations) / std::max(1, s1.iterations), s1.seconds / s2.seconds);
    std::fflush(stdout);
  }
  std::printf("\nns per contact per sweep: serial (natural order) wall and cpu, coloured on 1 and %d threads (wall);\n"
              "speedup = col-1T / col-%dT per sweep. Solves: serial natural order (1T) vs coloured %d threads; its x = "
              "iteration ratio, time x = time ratio.\n", t2, t2, t2);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Runs the friction solvers on every FCLIB problem of a folder (CSV, per-family summary, "
               "performance profile), or on generated lattice bead stacks (--lattice)."};
  std::string folder, csv, png, solver_list, script, lattice;
  Budget budget;
  bool no_plot = false, include_global = false, list = false;
  int layers = 10;
  double noise = 0.0;
  app.add_option("folder", folder, "folder searched recursively for .hdf5 FCLIB files");
  app.add_option("--tolerance", budget.tolerance, "tolerance on the common residual")->capture_default_str();
  app.add_option("--csv", csv, "CSV output: problem,contacts,solver,converged,iterations,residual,seconds");
  app.add_option("--time-cap", budget.time_cap, "seconds per solve, 0 = none")->capture_default_str();
  app.add_option("--threads", budget.threads, "threads of nsgs-colour and of the lattice parallel runs")
      ->capture_default_str();
  app.add_option("--solvers", solver_list, "comma-separated subset of the solvers (see --list)");
  app.add_option("--max-iterations", budget.max_iterations, "sweeps / iterations per solve")->capture_default_str();
  app.add_option("--profile", png, "performance-profile PNG (default: the CSV path with .png)");
  app.add_option("--profile-script", script, "path of scripts/performance_profile.py");
  app.add_flag("--no-plot", no_plot, "do not draw the performance profile");
  app.add_flag("--global", include_global,
               "also run global FCLIB files: condensed for the local solvers, as they are for mf-nsgs and mf-anderson "
               "(sphere problems, e.g. a granular run's --dump-fclib)");
  app.add_flag("--list", list, "list the solvers and exit");
  app.add_option("--lattice", lattice, "comma-separated contact counts: lattice bead-stack sweep instead of FOLDER");
  app.add_option("--layers", layers, "layers of the lattice stacks")->capture_default_str();
  app.add_option("--noise", noise, "random pre-impact velocity of the lattice spheres, m/s")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  std::vector<Solver> solvers = all_solvers();
  if (list) {
    for (const auto& s : solvers) std::printf("%-18s %s\n", s.name.c_str(), s.what.c_str());
    return 0;
  }
  if (!lattice.empty()) {
    std::vector<long> sizes;
    for (const auto& item : split_list(lattice)) {
      char* end = nullptr;
      const long n = std::strtol(item.c_str(), &end, 10);
      if (item.empty() || *end != '\0' || n <= 0) {
        std::cerr << "fclib: --lattice: '" << item << "' is not a positive contact count\n";
        return 2;
      }
      sizes.push_back(n);
    }
    return run_lattice(sizes, layers, noise, budget);
  }
  if (folder.empty()) {
    std::cerr << "fclib: give a FOLDER of FCLIB files or --lattice N1,N2,...\n" << app.help();
    return 2;
  }
  if (!solver_list.empty()) {
    std::vector<Solver> chosen;
    for (const auto& name : split_list(solver_list)) {
      auto it = std::find_if(solvers.begin(), solvers.end(), [&](const Solver& s) { return s.name == name; });
      if (it == solvers.end()) {
        std::cerr << "fclib: unknown solver '" << name << "' (--list shows them)\n";
        return 2;
      }
      chosen.push_back(*it);
    }
    solvers = chosen;
  } else if (!include_global) {
    // The matrix-free solvers read only global files: without --global they would only add empty columns.
    solvers.erase(std::remove_if(solvers.begin(), solvers.end(), [](const Solver& s) { return bool(s.global); }),
                  solvers.end());
  }
  return run_folder(folder, budget, solvers, csv, png, script_path(script).string(), !no_plot, include_global);
}
