// Granular bench (issue 4 item 8): steps of the reference bead stack (engine/granular/GranularScenes.hpp) for
// several sizes and thread counts, timed per phase. For each N the stack is first settled (untimed, from the
// 2.2 r lattice; or, with --packed, started from a touching cubic packing that is already at rest), then each
// thread count runs the same --steps steps from a copy of that state. Reported per record: seconds per step,
// per-phase seconds per step, contacts, mean NSGS sweeps, ns per contact per sweep, max interpenetration / r and
// kinetic energy / (N m g r) at the end. --solver assembled runs the assembled-W path instead (for comparison).
// The process CPU time per step is reported beside the wall time: on a shared machine the wall time measures
// the load as much as the code (with one thread the CPU time is the code's cost).
#include <CLI/CLI.hpp>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"

using namespace talus::granular;

namespace {

struct Record {
  long n;
  int threads;
  double seconds_per_step;
  double cpu_seconds_per_step;
  std::array<double, kPhaseCount> phase{};
  double contacts, sweeps, ns_per_contact_sweep, penetration, ke_ratio, worst_residual;
  int unconverged;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Granular bench: bead-stack steps per size and thread count (issue 4)."};
  std::vector<long> sizes{1000, 10000, 100000};
  std::vector<int> threads{1, 2};
  int steps = 50, settle_steps = 600;
  bool packed = false;
  double tolerance = 1e-4;
  std::string json, solver = "matrix_free";
  app.add_option("--sizes", sizes, "bead counts (1e6 is opt-in)")->delimiter(',');
  app.add_option("--threads", threads, "thread counts")->delimiter(',');
  app.add_option("--steps", steps, "timed steps per record")->check(CLI::PositiveNumber);
  app.add_option("--settle-steps", settle_steps, "untimed steps before timing (lattice start)");
  app.add_flag("--packed", packed, "start from a touching cubic packing at rest instead of settling the lattice");
  app.add_option("--tolerance", tolerance, "friction-contact residual per step");
  app.add_option("--solver", solver, "matrix_free or assembled")->check(CLI::IsMember({"matrix_free", "assembled"}));
  app.add_option("--json", json, "write the records as a JSON list");
  CLI11_PARSE(app, argc, argv);

  std::vector<Record> records;
  std::printf("%9s %3s %10s %10s %8s %8s %8s %8s %9s %7s %11s %9s %10s\n", "N", "thr", "s/step", "cpu s/step", "broad", "narrow", "assem",
              "solve", "contacts", "sweeps", "ns/c/sweep", "pen/r", "KE/Nmgr");
  for (long n : sizes) {
    BeadSpec spec;
    spec.n = n;
    if (packed) spec.spacing = 2.0, spec.jitter = 0.0;
    GranularScene base = bead_stack(spec);
    GranularParameters p;
    p.tolerance = tolerance;
    p.solver = solver == "assembled" ? GranularSolver::Assembled : GranularSolver::MatrixFree;
    p.threads = *std::max_element(threads.begin(), threads.end());
    if (!packed) {
      GranularStepper settle(base.model, p);
      for (int k = 0; k < settle_steps; ++k) settle.step();
    }
    for (int t : threads) {
      GranularModel m = base.model;
      p.threads = t;
      GranularStepper s(m, p);
      s.step();  // the cache warms up and buffers reach their size outside the timing
      Record r{n, t, 0.0, 0.0, {}, 0, 0, 0, 0, 0, 0, 0};
      timespec c0, c1;
      clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
      double solve_ns = 0, contact_sweeps = 0;
      for (int k = 0; k < steps; ++k) {
        const GranularStepReport& rep = s.step();
        for (int q = 0; q < kPhaseCount; ++q) r.phase[q] += rep.phase_seconds[q] / steps;
        r.contacts += double(rep.contacts) / steps;
        r.sweeps += double(rep.solver.iterations) / steps;
        r.penetration = std::max(r.penetration, rep.max_penetration / spec.radius);
        r.worst_residual = std::max(r.worst_residual, rep.solver.residual);
        r.unconverged += rep.solver.converged() ? 0 : 1;
        solve_ns += 1e9 * rep.phase_seconds[static_cast<int>(Phase::Solve)];
        contact_sweeps += double(rep.contacts) * rep.solver.iterations;
      }
      clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
      r.cpu_seconds_per_step = ((c1.tv_sec - c0.tv_sec) + 1e-9 * (c1.tv_nsec - c0.tv_nsec)) / steps;
      for (double v : r.phase) r.seconds_per_step += v;
      r.ns_per_contact_sweep = contact_sweeps > 0 ? solve_ns / contact_sweeps : 0.0;
      r.ke_ratio = kinetic_energy(m.beads) / (m.beads.size() * m.beads.mass[0] * 9.81 * spec.radius);
      records.push_back(r);
      std::printf("%9ld %3d %10.4f %10.4f %8.4f %8.4f %8.4f %8.4f %9.0f %7.1f %11.1f %9.2e %10.2e%s\n", r.n, r.threads,
                  r.seconds_per_step, r.cpu_seconds_per_step, r.phase[0], r.phase[1], r.phase[2], r.phase[3], r.contacts, r.sweeps,
                  r.ns_per_contact_sweep, r.penetration, r.ke_ratio,
                  r.unconverged ? ("  (" + std::to_string(r.unconverged) + " steps not converged)").c_str() : "");
      std::fflush(stdout);
    }
  }
  if (!json.empty()) {
    std::ofstream f(json);
    f << "[\n";
    for (std::size_t i = 0; i < records.size(); ++i) {
      const Record& r = records[i];
      f << "  {\"n\": " << r.n << ", \"threads\": " << r.threads << ", \"solver\": \"" << solver
        << "\", \"packed\": " << (packed ? "true" : "false") << ", \"seconds_per_step\": " << r.seconds_per_step
        << ", \"cpu_seconds_per_step\": " << r.cpu_seconds_per_step;
      for (int q = 0; q < kPhaseCount; ++q) f << ", \"" << to_string(static_cast<Phase>(q)) << "_seconds\": " << r.phase[q];
      f << ", \"contacts\": " << r.contacts << ", \"iterations\": " << r.sweeps
        << ", \"ns_per_contact_per_sweep\": " << r.ns_per_contact_sweep << ", \"max_penetration_over_r\": "
        << r.penetration << ", \"kinetic_energy_over_Nmgr\": " << r.ke_ratio << ", \"worst_residual\": "
        << r.worst_residual << ", \"unconverged_steps\": " << r.unconverged << "}" << (i + 1 < records.size() ? "," : "")
        << "\n";
    }
    f << "]\n";
    if (!f) {
      std::cerr << "granular: cannot write " << json << '\n';
      return 1;
    }
  }
  return 0;
}
