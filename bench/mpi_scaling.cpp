// MPI scaling bench (issue 15 item 6), run under mpirun by bench/mpi_scaling (one mpirun per rank count): the
// reference bead stack as a touching cubic packing at rest (bench/granular's --packed scene), stepped with the
// bead contacts' solve spread over the ranks (solvers/distributed/DistributedNsgs.hpp). Every rank builds and
// steps the whole model (this stage of issue 15 spreads the solve; detection and integration are repeated on
// every rank), so the record splits a step into the spread solve and the repeated phases, and the solve into
// sweeping, halo and colour exchanges, reductions (residual, Anderson's Gram entries) and the gather of the
// solution, with the bytes and messages each rank sent. Strong scaling: --sizes N beads whatever the rank count;
// weak scaling: --per-rank N gives N × ranks beads. Times are per step, wall (MPI_Wtime) and CPU of each rank's
// process; the rank printed is the slowest. A digest of the final velocities shows agreement between rank counts.
// --partitioned steps the partitioned model instead (engine/distributed/BeadDomain.hpp): each rank builds its share
// of the beads (BeadSpec::keep_begin) and then holds its own beads
// and ghosts of its neighbours', so every phase is divided; the domain's column is the ghost refresh and the
// rebalancing (regions, migration), and the digest is over all beads gathered in id order.
#include <CLI/CLI.hpp>
#include <mpi.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <iostream>
#include <string>
#include <vector>

#include "apps/JsonOutput.hpp"
#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "engine/distributed/BeadDomain.hpp"
#include "solvers/distributed/DistributedNsgs.hpp"
#include "solvers/distributed/InterfaceNsgs.hpp"

using namespace talus;
using namespace talus::granular;

namespace {

double process_cpu() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// FNV-1a over the bytes of the beads' velocities: equal digests, equal bits.
std::uint64_t digest(const RigidBodies& b) {
  std::uint64_t h = 1469598103934665603ull;
  auto eat = [&](const void* p, std::size_t n) {
    const auto* c = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ c[i]) * 1099511628211ull;
  };
  for (int i = 0; i < b.spheres(); ++i) eat(b.v[i].data(), 3 * sizeof(double)), eat(b.w[i].data(), 3 * sizeof(double));
  return h;
}

std::uint64_t digest(const distributed::GatheredBeads& g) {
  std::uint64_t h = 1469598103934665603ull;
  auto eat = [&](const void* p, std::size_t n) {
    const auto* c = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ c[i]) * 1099511628211ull;
  };
  for (std::size_t i = 0; i < g.id.size(); ++i) eat(g.v[i].data(), 3 * sizeof(double)), eat(g.w[i].data(), 3 * sizeof(double));
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  CLI::App app{"MPI scaling of the distributed friction-contact solve (run under mpirun; bench/mpi_scaling loops "
               "over rank counts)"};
  long n = 100000, per_rank = 0;
  int steps = 10, threads = 1, partitions = 0;
  std::string solver = "anderson", json;
  bool partitioned = false;
  int rebalance_every = 50;
  app.add_option("--beads", n, "beads in all (strong scaling)")->check(CLI::PositiveNumber);
  app.add_option("--per-rank", per_rank, "beads per rank (weak scaling: overrides --beads)")->check(CLI::NonNegativeNumber);
  app.add_option("--steps", steps, "timed steps, after one untimed step")->check(CLI::PositiveNumber);
  app.add_option("--threads", threads, "OpenMP threads per rank")->check(CLI::PositiveNumber);
  app.add_option("--partitions", partitions, "sweep blocks (0: the default for the bead count, at least one per rank)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--solver", solver, "anderson or matrix_free")->check(CLI::IsMember({"anderson", "matrix_free"}));
  app.add_flag("--partitioned", partitioned,
               "step the partitioned model: each rank holds its own beads and ghosts (engine/distributed/BeadDomain.hpp)");
  app.add_option("--rebalance-every", rebalance_every, "--partitioned: steps between rebalances (regions, migration)")
      ->check(CLI::PositiveNumber);
  app.add_option("--json", json, "append one JSON line with this run's record to FILE (rank 0)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = rank == 0 ? app.exit(e) : 0;
    MPI_Finalize();
    return status;
  }
  if (per_rank > 0) n = per_rank * ranks;

  BeadSpec spec;
  spec.n = n;
  spec.spacing = 2.0, spec.jitter = 0.0;  // touching and at rest: bench/granular --packed
  if (partitioned) {  // each rank builds its share of the beads, as `talus run` does under mpirun
    spec.keep_begin = n * rank / ranks;
    spec.keep_end = n * (rank + 1) / ranks;
  }
  GranularScene scene = bead_stack(spec);
  Model& m = scene.model;
  distributed::DistributedNsgs dist(MPI_COMM_WORLD);
  distributed::InterfaceNsgs part(MPI_COMM_WORLD);
  std::unique_ptr<distributed::BeadDomain> domain;
  GranularParameters p;
  p.threads = threads;
  p.partitions = partitions;
  p.solver = granular_solver_from_name(solver);
  p.on_failure = FailurePolicy::Keep;
  if (partitioned) {
    domain = std::make_unique<distributed::BeadDomain>(m, part, rebalance_every, MPI_COMM_WORLD, true);
    p = domain->stepper_parameters(p);
  } else {
    p.distributed = &dist;
  }
  GranularStepper stepper(m, p);
  auto step = [&]() -> const GranularStepReport& {
    if (domain) domain->prepare_step(stepper);
    return stepper.step();
  };
  step();  // the cache warms up and buffers reach their size outside the timing
  distributed::SolveTimes& times = partitioned ? part.times() : dist.times();
  times = {};
  if (domain) domain->times() = {};

  double solve = 0.0, other = 0.0, sweeps = 0.0, worst_residual = 0.0, ghosts = 0.0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double wall0 = MPI_Wtime(), cpu0 = process_cpu();
  for (int k = 0; k < steps; ++k) {
    const GranularStepReport& r = step();
    for (int q = 0; q < kPhaseCount; ++q)
      (q == static_cast<int>(Phase::Solve) ? solve : other) += r.phase_seconds[q];
    sweeps += r.solver.iterations;
    worst_residual = std::max(worst_residual, r.solver.residual);
    if (domain) ghosts += domain->ghosts();
  }
  const double wall = (MPI_Wtime() - wall0) / steps, cpu = (process_cpu() - cpu0) / steps;
  const distributed::SolveTimes& t = times;
  const double domain_s = domain ? (domain->times().ghosts + domain->times().rebalance) / steps : 0.0;
  const double bytes_sent = static_cast<double>(t.bytes_sent + (domain ? domain->times().bytes_sent : 0));
  constexpr int kFields = 15;
  const double mine[kFields] = {wall,
                                cpu,
                                solve / steps,
                                other / steps,
                                t.sweep / steps,
                                t.exchange / steps,
                                t.reduce / steps,
                                t.gather / steps,
                                t.plan / steps,
                                bytes_sent / steps,
                                static_cast<double>(t.messages) / steps,
                                domain_s,
                                ghosts / steps,
                                static_cast<double>(stepper.memory_bytes()),
                                static_cast<double>(t.contacts) / std::max<std::int64_t>(1, t.solves)};
  std::vector<double> all(kFields * static_cast<std::size_t>(ranks));
  MPI_Gather(mine, kFields, MPI_DOUBLE, all.data(), kFields, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  std::uint64_t dig = 0;
  std::vector<std::uint64_t> digs(ranks);
  if (domain) {
    dig = digest(domain->gather(0));
    std::fill(digs.begin(), digs.end(), dig);
  } else {
    dig = digest(m.bodies);
    MPI_Gather(&dig, 1, MPI_UINT64_T, digs.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  }
  long interface_contacts = t.interface_contacts, counted = t.contacts, sums[2] = {0, 0};
  long local_sums[2] = {interface_contacts, counted};
  MPI_Reduce(local_sums, sums, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    int slow = 0;
    for (int r = 1; r < ranks; ++r)
      if (all[kFields * r] > all[kFields * slow]) slow = r;
    const double* s = &all[kFields * static_cast<std::size_t>(slow)];
    double bytes = 0.0, messages = 0.0, ghost_beads = 0.0, memory = 0.0;
    for (int r = 0; r < ranks; ++r) {
      bytes += all[kFields * r + 9], messages += all[kFields * r + 10];
      ghost_beads = std::max(ghost_beads, all[kFields * r + 12]), memory = std::max(memory, all[kFields * r + 13]);
    }
    bool same = true;
    for (int r = 1; r < ranks; ++r) same &= digs[r] == digs[0];
    // The replicated solve counts every contact on every rank; the partitioned one each contact once.
    const double interface = partitioned ? (sums[1] > 0 ? static_cast<double>(sums[0]) / sums[1] : 0.0)
                                         : (t.contacts > 0 ? static_cast<double>(t.interface_contacts) / t.contacts : 0.0);
    std::printf("%5d %9ld %3d %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f %7.3f %7.1f %9.0f %7.0f %8.0f %8.1f %9.3e %016llx%s\n",
                ranks, n, threads, s[0], s[1], s[2], s[3], s[11], s[4], s[5], s[6], s[7], interface, sweeps / steps,
                bytes / 1e3, messages, ghost_beads, memory / 1e6, worst_residual,
                static_cast<unsigned long long>(digs[0]), same ? "" : " (ranks differ!)");
    if (!json.empty()) {
      nlohmann::ordered_json j;
      j["command"] = app::command_record(argc, argv);
      j["ranks"] = ranks, j["beads"] = n, j["threads"] = threads, j["solver"] = solver, j["steps"] = steps;
      j["partitions"] = partitions, j["partitioned"] = partitioned;
      j["seconds_per_step"] = s[0], j["cpu_seconds_per_step"] = s[1];
      j["solve_seconds"] = s[2], j["other_phases_seconds"] = s[3], j["domain_seconds"] = s[11];
      j["sweep_seconds"] = s[4], j["exchange_seconds"] = s[5], j["reduce_seconds"] = s[6], j["gather_seconds"] = s[7];
      j["plan_seconds"] = s[8];
      j["interface_fraction"] = interface, j["sweeps_per_step"] = sweeps / steps;
      j["kilobytes_sent_per_step"] = bytes / 1e3, j["messages_per_step"] = messages;
      j["ghosts_per_rank"] = ghost_beads, j["stepper_megabytes_per_rank"] = memory / 1e6;
      j["worst_residual"] = worst_residual;
      char hex[17];
      std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(digs[0]));
      j["velocity_digest"] = hex, j["ranks_agree"] = same;
      std::ofstream(json, std::ios::app) << j.dump() << '\n';
    }
  }
  MPI_Finalize();
  return 0;
}
