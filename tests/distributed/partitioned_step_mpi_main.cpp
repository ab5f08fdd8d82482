// Run by ctest under mpirun with 1, 2, 3 and 4 ranks (tests/CMakeLists.txt; issue 15 items 1–3): the partitioned
// model (engine/distributed/BeadDomain.hpp, solvers/distributed/InterfaceNsgs.hpp), each rank holding its own beads
// and ghosts of its neighbours', against the whole model stepped by one process on every rank.
// - A settling lattice (400 beads, 70 steps: the fall, the landing, the first settling), plain sweeps to 1e-9,
//   rebalanced every 10 steps: after every step the beads gathered by id are those of the whole run (the same ids,
//   none lost or doubled), their velocities within 1e-6 m/s of the whole run's (the sweep order differs, so the
//   solutions agree to the tolerance, not to the bit); beads migrate between ranks (R > 1) and every step converges.
// - The same with Anderson acceleration (the granular default), and two runs on the same ranks are the same bits.
// - A touching packing at rest: over each step, Σ m Δv of the beads = −M g h + the walls' vertical impulses, summed
//   over the contacts each rank counts, to round-off (a pair contact whose impulse reached one bead only, or a
//   contact counted twice or missed, breaks it).
// Prints what failed and exits 1; rank 0 prints a summary.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "engine/distributed/BeadDomain.hpp"
#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "solvers/distributed/InterfaceNsgs.hpp"
#include "tests/distributed/MpiTestReport.hpp"

using namespace talus;
using namespace talus::granular;
using namespace talus::mpitest;

namespace {

GranularScene lattice() {
  BeadSpec spec;
  spec.n = 400;
  return bead_stack(spec);
}

GranularScene packing() {
  BeadSpec spec;
  spec.n = 300;
  spec.spacing = 2.0, spec.jitter = 0.0;  // touching and at rest
  return bead_stack(spec);
}

GranularParameters parameters(GranularSolver solver, double tolerance) {
  GranularParameters p;
  p.solver = solver;
  p.tolerance = tolerance;
  p.max_sweeps = 200000;
  return p;
}

std::uint64_t digest(const distributed::GatheredBeads& g) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t i = 0; i < g.id.size(); ++i)
    for (const Eigen::Vector3d* v : {&g.x[i], &g.v[i], &g.w[i]})
      for (int d = 0; d < 3; ++d) {
        std::uint64_t bits;
        std::memcpy(&bits, v->data() + d, sizeof bits);
        h = (h ^ bits) * 1099511628211ull;
      }
  return h;
}

// Steps the lattice whole and partitioned; returns the partitioned run's final digest (rank 0).
std::uint64_t compare(const char* name, GranularSolver solver, int steps, bool report) {
  GranularScene whole = lattice(), part = lattice();
  const GranularParameters pw = parameters(solver, 1e-9);
  distributed::InterfaceNsgs solve(MPI_COMM_WORLD);
  distributed::BeadDomain domain(part.model, solve, 10);
  GranularStepper sw(whole.model, pw), sp(part.model, domain.stepper_parameters(pw));
  double worst = 0.0;
  std::string first;  // the first bead found beyond the bound
  for (int k = 0; k < steps; ++k) {
    sw.step();
    domain.prepare_step(sp);
    const GranularStepReport& r = sp.step();
    if (!r.solver.converged())
      fail(std::string(name) + ": step " + std::to_string(k) + " not converged: " + r.solver.message);
    const distributed::GatheredBeads g = domain.gather(0);
    if (rank != 0) continue;
    const RigidBodies& b = whole.model.bodies;
    std::map<std::uint32_t, int> at;
    for (int i = 0; i < b.spheres(); ++i) at[b.id[i]] = i;
    if (g.id.size() != at.size()) {
      fail(std::string(name) + ": step " + std::to_string(k) + ": " + std::to_string(g.id.size()) +
           " beads over the ranks, " + std::to_string(at.size()) + " in the whole model");
      break;
    }
    for (std::size_t j = 0; j < g.id.size(); ++j) {
      const auto it = at.find(g.id[j]);
      if (it == at.end() || (j > 0 && g.id[j] == g.id[j - 1])) {
        fail(std::string(name) + ": bead id " + std::to_string(g.id[j]) + " is unknown or held twice");
        break;
      }
      const double e = std::max((g.v[j] - b.v[it->second]).norm(), (g.w[j] - b.w[it->second]).norm());
      if (e > 1e-6 && first.empty())
        first = " (first at step " + std::to_string(k) + ", bead " + std::to_string(g.id[j]) + ")";
      worst = std::max(worst, e);
    }
  }
  long migrated = domain.times().migrated, all_migrated = 0;
  MPI_Allreduce(&migrated, &all_migrated, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (ranks > 1 && all_migrated == 0) fail(std::string(name) + ": no bead migrated in " + std::to_string(steps) + " steps");
  if (rank == 0 && !(worst <= 1e-6)) fail(std::string(name) + ": velocities differ by " + std::to_string(worst) + " m/s" + first);
  const std::uint64_t d = digest(domain.gather(0));
  if (rank == 0 && report)
    std::printf("%s: %d steps on %d ranks agree with the whole model (largest velocity difference %.3g m/s); "
                "%ld beads migrated\n", name, steps, ranks, worst, all_migrated);
  return d;
}

void momentum_balance() {
  GranularScene sc = packing();
  const GranularParameters p = parameters(GranularSolver::Anderson, 1e-8);
  distributed::InterfaceNsgs solve(MPI_COMM_WORLD);
  distributed::BeadDomain domain(sc.model, solve, 3);
  GranularStepper s(sc.model, domain.stepper_parameters(p));
  const RigidBodies& b = sc.model.bodies;
  double worst = 0.0, wall = 0.0, weight = 0.0;
  for (int k = 0; k < 8; ++k) {
    domain.prepare_step(s);
    std::vector<Eigen::Vector3d> before(b.v.begin(), b.v.begin() + domain.owned());
    s.step();
    // Over the step: Σ m Δv = −M g h + the walls' impulses (the bead contacts' cancel in pairs, when both beads of
    // a pair contact across two ranks got its impulse and no contact was counted twice or missed).
    double mine[3] = {0.0, 0.0, 0.0};  // walls' vertical impulse, Σ m Δv_z, mass
    for (int i = 0; i < domain.owned(); ++i) mine[1] += b.mass[i] * (b.v[i] - before[i]).z(), mine[2] += b.mass[i];
    const std::vector<matrixfree::SweepContact>& c = s.contacts();
    for (int i = 0; i < static_cast<int>(c.size()); ++i)
      if (c[i].a < 0 && solve.counts(i)) mine[0] += (c[i].r[0] * c[i].n + c[i].r[1] * c[i].t1 + c[i].r[2] * c[i].t2).z();
    double all[3];
    MPI_Allreduce(mine, all, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    weight = all[2] * sc.model.gravity.norm() * p.h, wall = all[0];
    worst = std::max(worst, std::abs(all[0] - weight - all[1]) / weight);
  }
  if (!(worst <= 1e-9))
    fail("packing: the momentum balance misses by " + std::to_string(worst) + " of the weight's impulse");
  else if (rank == 0)
    std::printf("packing: momentum balanced over 8 steps to %.2g of M g h; the walls carry %.9g N s, M g h = %.9g N s\n",
                worst, wall, weight);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  try {
    compare("matrix_free", GranularSolver::MatrixFree, 70, true);
    const std::uint64_t a = compare("anderson", GranularSolver::Anderson, 70, true);
    const std::uint64_t b = compare("anderson again", GranularSolver::Anderson, 70, false);
    if (rank == 0 && a != b) fail("anderson: two runs on the same ranks differ");
    else if (rank == 0) std::printf("anderson: two runs on %d ranks are the same bits\n", ranks);
    momentum_balance();
  } catch (const std::exception& e) {
    fail(std::string("exception: ") + e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("%s on %d ranks\n", total == 0 ? "passed" : "FAILED", ranks);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
