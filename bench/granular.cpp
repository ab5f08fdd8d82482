// Granular bench (issue 4 item 8): steps of the reference bead stack (engine/granular/GranularScenes.hpp) for
// several sizes and thread counts, timed per phase. For each N the stack starts from a touching cubic packing
// already at rest (the default, --packed) or, with --lattice, is first settled from the 2.2 r lattice for
// --settle-steps steps (slow: hundreds of sweeps per step while the lattice collapses); with --settle the
// settling itself is timed and reported (its cost per simulated second, sweeps per step). Then each thread
// count runs the same --steps steps from a copy of the settled state. Reported per record: seconds per step,
// per-phase seconds per step, contacts, mean NSGS sweeps, ns per contact per sweep, max interpenetration / r
// and kinetic energy / (N m g r) at the end, the worst residual and the memory per bead.
// Wall time on a shared machine measures the load as much as the code, so the CPU time of the stepping thread
// is reported beside it (with one thread it is the code's whole cost); 2-thread speed-ups need a quiet machine.
// --solver picks the friction-contact solver (assembled: the assembled-W path, for comparison); --scheme
// generalized_alpha steps with the nonsmooth generalized-α scheme (two solves per step: velocity and position).
// Issue 10 (docs/stack-height.md): with --settle, --step-log FILE writes every settling step's sweeps, residuals
// and solve CPU, and --compare-every K with --variant NAME:key=value,... steps a copy of every K-th state once per
// variant from the same warm start (a settling run is chaotic: whole runs compare trajectories as much as
// settings); --seed, --contact-order, --anderson-warm set the scene's seed and the solver options.
#include <CLI/CLI.hpp>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "apps/JsonOutput.hpp"
#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"

using namespace talus;
using namespace talus::granular;

namespace {

struct Record {
  std::string kind;  // "steps" or "settle"
  long n = 0;
  int threads = 0;
  int steps = 0;
  double seconds_per_step = 0, cpu_seconds_per_step = 0;
  std::array<double, kPhaseCount> phase{}, phase_cpu{};
  double contacts = 0, sweeps = 0, checks = 0, worst_sweeps = 0, ns_per_contact_sweep = 0, cpu_ns_per_contact_sweep = 0;
  double penetration = 0, ke_ratio = 0, worst_residual = 0, bytes_per_bead = 0, peak_rss_bytes_per_bead = 0;
  int unconverged = 0;
};

// --variant NAME:key=value,...: solver settings compared on the same states (--compare-every).
struct Variant {
  std::string name;
  GranularParameters p;
  long sweeps = 0, checks = 0, steps = 0, unconverged = 0;
  double solve_cpu = 0;
  double solve_wall = 0;
};

Variant parse_variant(const std::string& text, const GranularParameters& base) {
  Variant v;
  v.p = base;
  const auto colon = text.find(':');
  v.name = text.substr(0, colon);
  std::string rest = colon == std::string::npos ? "" : text.substr(colon + 1);
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string item = rest.substr(0, comma);
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw std::invalid_argument("variant '" + text + "': expected key=value, got '" + item + "'");
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "solver") v.p.solver = granular_solver_from_name(value);
    else if (key == "anderson_memory") v.p.anderson_memory = std::stoi(value);
    else if (key == "anderson_every") v.p.anderson_every = std::stoi(value);
    else if (key == "anderson_restarts") v.p.anderson_restarts = std::stoi(value);
    else if (key == "check_every") v.p.check_every = std::stoi(value);
    else if (key == "anderson_stall") v.p.anderson_stall = std::stod(value);
    else if (key == "layer") v.p.order_layer = std::stod(value);
    else if (key == "anderson_warm") v.p.anderson_warm = std::stod(value);
    else if (key == "partitions") v.p.partitions = std::stoi(value);
    else if (key == "symmetric") v.p.symmetric = value == "1" || value == "true";
    else if (key == "threads") v.p.threads = std::stoi(value);
    else if (key == "order")
      v.p.contact_order = value == "top_down"    ? GranularParameters::ContactOrder::TopDown
                          : value == "bottom_up" ? GranularParameters::ContactOrder::BottomUp
                                                 : GranularParameters::ContactOrder::Detection;
    else throw std::invalid_argument("variant '" + text + "': unknown key '" + key + "'");
  }
  return v;
}

double peak_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return 1024.0 * static_cast<double>(u.ru_maxrss);
}

// Runs `steps` steps, accumulating the per-step figures into r; with `log`, one CSV row per step (where the
// sweeps of a settling go: step, contacts, sweeps, residual checks, residual reached, residual of the warm start
// when the stepper records its history, solve CPU seconds).
// With `variants` and compare_every > 0, every compare_every-th step's starting state (the model and the contact
// cache) is also stepped once by a fresh stepper per variant, so that settings are compared on the same states
// (a settling trajectory is chaotic: whole runs with different settings end in different piles).
void run_steps(GranularStepper& s, Model& m, const BeadSpec& spec, int steps, Record& r, std::FILE* log = nullptr,
               std::vector<Variant>* variants = nullptr, int compare_every = 0) {
  double solve_s = 0, solve_cpu = 0, contact_sweeps = 0;
  for (int k = 0; k < steps; ++k) {
    if (variants && compare_every > 0 && k % compare_every == compare_every - 1) {
      for (Variant& v : *variants) {
        Model copy = m;
        GranularStepper vs(copy, v.p);
        vs.contact_cache() = s.contact_cache();
        const GranularStepReport& vr = vs.step();
        v.sweeps += vr.solver.iterations;
        v.checks += vr.residual_checks;
        v.solve_cpu += vr.phase_cpu_seconds[static_cast<int>(Phase::Solve)];
        v.solve_wall += vr.phase_seconds[static_cast<int>(Phase::Solve)];
        v.unconverged += vr.solver.converged() ? 0 : 1;
        ++v.steps;
      }
    }
    const GranularStepReport& rep = s.step();
    if (log) {
      const auto& hist = s.residual_history();
      const double warm = !hist.empty() && hist.front().sweeps == 0 ? hist.front().residual : -1.0;
      std::fprintf(log, "%ld,%d,%d,%d,%.6e,%.6e,%.6e\n", rep.step, rep.contacts, rep.solver.iterations,
                   rep.residual_checks, rep.solver.residual, warm, rep.phase_cpu_seconds[static_cast<int>(Phase::Solve)]);
    }
    for (int q = 0; q < kPhaseCount; ++q) {
      r.phase[q] += rep.phase_seconds[q] / steps;
      r.phase_cpu[q] += rep.phase_cpu_seconds[q] / steps;
    }
    r.contacts += double(rep.contacts) / steps;
    r.sweeps += double(rep.solver.iterations) / steps;
    r.checks += double(rep.residual_checks) / steps;
    r.worst_sweeps = std::max(r.worst_sweeps, double(rep.solver.iterations));
    r.penetration = std::max(r.penetration, rep.max_penetration / spec.radius);
    r.worst_residual = std::max(r.worst_residual, rep.solver.residual);
    r.unconverged += rep.solver.converged() ? 0 : 1;
    solve_s += rep.phase_seconds[static_cast<int>(Phase::Solve)];
    solve_cpu += rep.phase_cpu_seconds[static_cast<int>(Phase::Solve)];
    contact_sweeps += double(rep.contacts) * rep.solver.iterations;
  }
  r.steps = steps;
  for (int q = 0; q < kPhaseCount; ++q) r.seconds_per_step += r.phase[q], r.cpu_seconds_per_step += r.phase_cpu[q];
  r.ns_per_contact_sweep = contact_sweeps > 0 ? 1e9 * solve_s / contact_sweeps : 0.0;
  r.cpu_ns_per_contact_sweep = contact_sweeps > 0 ? 1e9 * solve_cpu / contact_sweeps : 0.0;
  r.ke_ratio = kinetic_energy(m.bodies, talus::ShapeKind::Sphere) / (m.bodies.spheres() * m.bodies.mass[0] * 9.81 * spec.radius);
  r.bytes_per_bead = double(s.memory_bytes()) / m.bodies.spheres();
  r.peak_rss_bytes_per_bead = peak_rss_bytes() / m.bodies.spheres();
}

void print(const Record& r, double h) {
  if (r.kind == "settle") {
    std::printf("settle %9ld %3d %6d steps: %8.1f s/sim-s (cpu %8.1f), sweeps mean %7.1f worst %6.0f, checks %6.1f, pen/r %8.2e, "
                "KE/Nmgr %8.2e, worst residual %8.2e%s\n",
                r.n, r.threads, r.steps, r.seconds_per_step / h, r.cpu_seconds_per_step / h, r.sweeps, r.worst_sweeps, r.checks,
                r.penetration, r.ke_ratio, r.worst_residual,
                r.unconverged ? ("  (" + std::to_string(r.unconverged) + " steps not converged)").c_str() : "");
  } else {
    std::printf("%9ld %3d %9.4f %9.4f %8.4f %8.4f %8.4f %8.4f %8.4f %9.0f %7.1f %5.1f %6.1f %6.1f %9.2e %9.2e %9.2e %6.0f %6.0f%s\n",
                r.n, r.threads, r.seconds_per_step, r.cpu_seconds_per_step, r.phase_cpu[0], r.phase_cpu[1], r.phase_cpu[2],
                r.phase_cpu[3], r.phase_cpu[4], r.contacts, r.sweeps, r.checks, r.ns_per_contact_sweep, r.cpu_ns_per_contact_sweep,
                r.penetration, r.ke_ratio, r.worst_residual, r.bytes_per_bead, r.peak_rss_bytes_per_bead,
                r.unconverged ? ("  (" + std::to_string(r.unconverged) + " steps not converged)").c_str() : "");
  }
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Granular bench: bead-stack steps per size and thread count (issue 4)."};
  std::vector<long> sizes{1000, 10000, 100000};
  std::vector<int> threads{1, 2};
  int steps = 50, settle_steps = 600;
  bool packed = true, settle_figure = false;
  GranularParameters p;
  p.on_failure = FailurePolicy::Keep;  // a step that misses the tolerance is counted (unconverged), not fatal
  long seed = 1;
  std::string json, step_log, solver = "matrix_free", scheme = "moreau_jean";
  std::vector<std::string> variant_texts;
  int compare_every = 0;
  std::string contact_order = "detection";
  app.add_option("--sizes", sizes, "bead counts (1e6 is opt-in)")->delimiter(',');
  app.add_option("--threads", threads, "thread counts")->delimiter(',');
  app.add_option("--steps", steps, "timed steps per record")->check(CLI::PositiveNumber);
  app.add_option("--settle-steps", settle_steps, "steps settling the lattice before the timed steps");
  app.add_flag("--packed,!--lattice", packed,
               "--packed (default): start from a touching cubic packing at rest; --lattice: settle the 2.2 r lattice "
               "first (--settle-steps steps; hours at N = 1e5)");
  app.add_flag("--settle", settle_figure,
               "time the settling from the lattice too (implies --lattice; with the first thread count) and report it");
  app.add_option("--tolerance", p.tolerance, "friction-contact residual per step");
  app.add_option("--max-sweeps", p.max_sweeps, "sweep budget per step");
  app.add_option("--check-every", p.check_every, "sweeps between residual checks");
  app.add_option("--check-first", p.check_first, "evaluate the warm start's residual before sweeping (0 or 1)");
  app.add_option("--relaxation", p.relaxation, "projected SOR factor in (0, 2)");
  app.add_flag("--symmetric", p.symmetric, "alternate forward and backward sweeps");
  app.add_option("--partitions", p.partitions, "sweep blocks (0 = automatic)");
  app.add_option("--solver", solver, "matrix_free, assembled, multilevel, nncg or anderson")
      ->check(CLI::IsMember(granular_solver_names()));
  app.add_option("--anderson-memory", p.anderson_memory, "anderson: sweeps the extrapolation looks back on (1..8)");
  app.add_option("--seed", seed, "lattice jitter seed (BeadSpec::seed)");
  app.add_option("--order-layer", p.order_layer, "contact order: layer height in bead radii (0: exact sort)");
  app.add_option("--contact-order", contact_order, "detection, top_down or bottom_up (GranularParameters::contact_order)")
      ->check(CLI::IsMember({"detection", "top_down", "bottom_up"}));
  app.add_option("--anderson-every", p.anderson_every, "anderson: sweeps per extrapolation (1..4)");
  app.add_option("--anderson-warm", p.anderson_warm,
                 "anderson: a warm start within this factor of the tolerance is solved by plain sweeps (0: never)");
  app.add_option("--step-log", step_log,
                 "with --settle: write one CSV row per settling step (step, contacts, sweeps, checks, residual, "
                 "warm-start residual, solve CPU s)");
  app.add_option("--variant", variant_texts,
                 "with --settle and --compare-every: NAME:key=value,... (solver, anderson_memory, anderson_every, "
                 "anderson_restarts, anderson_stall, anderson_warm, check_every, partitions, threads, symmetric, order = detection|bottom_up|top_down, "
                 "layer), "
                 "stepped from the same states as the settling run");
  app.add_option("--compare-every", compare_every, "with --settle: every this many settling steps, step each --variant once "
                 "from the run's state and report the sums");
  app.add_option("--scheme", scheme, "moreau_jean or generalized_alpha")
      ->check(CLI::IsMember({"moreau_jean", "generalized_alpha"}));
  app.add_option("--json", json, "write the records (with the command, version and units) as JSON");
  CLI11_PARSE(app, argc, argv);
  if (settle_figure) packed = false;  // the settling figure is the lattice's collapse
  p.solver = granular_solver_from_name(solver);
  p.contact_order = contact_order == "top_down"    ? GranularParameters::ContactOrder::TopDown
                    : contact_order == "bottom_up" ? GranularParameters::ContactOrder::BottomUp
                                                   : GranularParameters::ContactOrder::Detection;
  p.scheme = scheme == "generalized_alpha" ? GranularScheme::GeneralizedAlpha : GranularScheme::MoreauJean;

  std::vector<Record> records;
  std::printf("cpu = CPU time of the stepping thread; phases in cpu s/step; ns/c/s = ns per contact per sweep "
              "(wall, cpu); B/bead = buffers, RSS = peak RSS / N\n");
  std::printf("%9s %3s %9s %9s %8s %8s %8s %8s %8s %9s %7s %5s %6s %6s %9s %9s %9s %6s %6s\n", "N", "thr", "s/step",
              "cpu", "broad", "narrow", "assem", "solve", "integr", "contacts", "sweeps", "chk", "ns/c/s", "cpu", "pen/r",
              "KE/Nmgr", "residual", "B/bead", "RSS");
  for (long n : sizes) {
    BeadSpec spec;
    spec.n = n;
    spec.seed = static_cast<std::uint64_t>(seed);
    if (packed) spec.spacing = 2.0, spec.jitter = 0.0;
    GranularScene base = bead_stack(spec);
    if (!packed && settle_steps > 0) {
      GranularParameters ps = p;
      ps.threads = settle_figure ? threads.front() : *std::max_element(threads.begin(), threads.end());
      std::FILE* log = nullptr;
      if (settle_figure && !step_log.empty()) {
        log = std::fopen(step_log.c_str(), "w");
        if (!log) {
          std::cerr << "granular: cannot write " << step_log << '\n';
          return 1;
        }
        std::fprintf(log, "step,contacts,sweeps,checks,residual,warm_residual,solve_cpu_s\n");
        ps.record_history = true;  // the warm start's residual is the history's first sample
      }
      GranularStepper settle(base.model, ps);
      Record r;
      r.kind = "settle", r.n = n, r.threads = ps.threads;
      std::vector<Variant> variants;
      for (const std::string& t : variant_texts) {
        variants.push_back(parse_variant(t, ps));
        variants.back().p.record_history = false;
      }
      run_steps(settle, base.model, spec, settle_steps, r, log, settle_figure ? &variants : nullptr, compare_every);
      if (log) std::fclose(log);
      for (const Variant& v : variants)
        std::printf("variant %-24s %5ld same-state steps: sweeps %9ld (mean %7.1f), checks %7ld, solve cpu %8.3f s, "
                    "solve wall %8.3f s, unconverged %ld\n",
                    v.name.c_str(), v.steps, v.sweeps, v.steps ? double(v.sweeps) / v.steps : 0.0, v.checks, v.solve_cpu,
                    v.solve_wall, v.unconverged);
      if (settle_figure) {
        records.push_back(r);
        print(r, p.h);
      }
    }
    for (int t : threads) {
      Model m = base.model;
      GranularParameters pt = p;
      pt.threads = t;
      GranularStepper s(m, pt);
      s.step();  // the cache warms up and buffers reach their size outside the timing
      Record r;
      r.kind = "steps", r.n = n, r.threads = t;
      run_steps(s, m, spec, steps, r);
      records.push_back(r);
      print(r, p.h);
    }
  }
  if (!json.empty()) {
    // One object: how it was made (command, version), the units and the records (nlohmann-json, NaN as null).
    nlohmann::ordered_json doc;
    doc["command"] = talus::app::command_record(argc, argv);
    doc["units"] = {{"seconds_per_step", "s (wall)"},
                    {"cpu_seconds_per_step", "s (CPU of the stepping thread)"},
                    {"seconds_per_simulated_second", "s per s"},
                    {"PHASE_seconds", "s per step (wall); PHASE_cpu_seconds: CPU s per step"},
                    {"ns_per_contact_sweep", "ns"},
                    {"max_penetration_over_r", "1 (over the bead radius)"},
                    {"kinetic_energy_over_Nmgr", "1"},
                    {"bytes_per_bead", "B"},
                    {"peak_rss_bytes_per_bead", "B"},
                    {"h", "s"}};
    doc["h"] = p.h;
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const Record& r : records) {
      nlohmann::ordered_json j{{"kind", r.kind},
                               {"n", r.n},
                               {"threads", r.threads},
                               {"solver", solver},
                               {"scheme", scheme},
                               {"packed", packed},
                               {"steps", r.steps},
                               {"relaxation", p.relaxation},
                               {"symmetric", p.symmetric},
                               {"seconds_per_step", r.seconds_per_step},
                               {"cpu_seconds_per_step", r.cpu_seconds_per_step},
                               {"seconds_per_simulated_second", r.seconds_per_step / p.h}};
      for (int q = 0; q < kPhaseCount; ++q) {
        const std::string name = to_string(static_cast<Phase>(q));
        j[name + "_seconds"] = r.phase[q];
        j[name + "_cpu_seconds"] = r.phase_cpu[q];
      }
      j["contacts"] = r.contacts;
      j["iterations"] = r.sweeps;
      j["residual_checks"] = r.checks;
      j["worst_iterations"] = r.worst_sweeps;
      j["ns_per_contact_sweep"] = r.ns_per_contact_sweep;
      j["cpu_ns_per_contact_sweep"] = r.cpu_ns_per_contact_sweep;
      j["max_penetration_over_r"] = r.penetration;
      j["kinetic_energy_over_Nmgr"] = r.ke_ratio;
      j["worst_residual"] = r.worst_residual;
      j["unconverged_steps"] = r.unconverged;
      j["bytes_per_bead"] = r.bytes_per_bead;
      j["peak_rss_bytes_per_bead"] = r.peak_rss_bytes_per_bead;
      list.push_back(std::move(j));
    }
    doc["records"] = std::move(list);
    try {
      talus::app::write_json_file(json, doc);
    } catch (const std::exception& e) {
      std::cerr << "granular: " << e.what() << '\n';
      return 1;
    }
  }
  return 0;
}
