// Run by ctest under mpirun with 1, 2, 3 and 4 ranks (tests/CMakeLists.txt; issue 15 items 1–3): the partitioned
// model (engine/distributed/BeadDomain.hpp, solvers/distributed/InterfaceNsgs.hpp), each rank holding its own beads
// and ghosts of its neighbours', against the whole model stepped by one process (rank 0, which compares).
// - A settling lattice (400 beads, 70 steps: the fall, the landing, the first settling), plain sweeps to 1e-9,
//   rebalanced every 10 steps: after every step the beads gathered by id are those of the whole run (the same ids,
//   none lost or doubled), their velocities within 1e-6 m/s of the whole run's (the sweep order differs, so the
//   solutions agree to the tolerance, not to the bit); beads migrate between ranks (R > 1) and every step converges.
// - The same with Anderson acceleration (the granular default), and two runs on the same ranks are the same bits.
// - The same with the multilevel solver (its coarsest level gathered over the ranks), twice (the same bits); and a
//   160-bead column cut across by the bisection, solved from zero in one cycle to its exact weights.
// - The same with rolling resistance (μ_r = 0.1 on every pair; InterfaceNsgs.hpp solves the rolling rows, Anderson
//   off) over 45 steps rebalanced every 5, twice (the same bits), and at each rebalance both warm starts, gathered
//   over the ranks, are the same bits before and after it: each entry travels with its bead
//   (BeadDomain::migrate_cache_entries).
// - The same under the generalized-α scheme (anderson; both problems solved across the ranks) over 45 steps
//   rebalanced every 5, twice (the same bits): at each rebalance the velocity problem's and the position problem's
//   warm starts gathered over the ranks are the same bits before and after it.
// - A bed flowing down a periodic chute (periodic along x, cut along it), Anderson: the same agreement, beads
//   crossing the seam, and the ghosts a thin layer (at most 35 % of the beads over the ranks).
// - Beads added during the run: a rain of 300 beads and a dropped ball, whole and partitioned: the same beads
//   poured at every step, the same ids, velocities within 1e-7 m/s until the rain lands and 1e-4 m/s after; each
//   rebalance weighs the beads by 1 + their contacts of the last step, the whole run's count, though the beads
//   poured since moved the indices those contacts name.
// - Beads removed during the run (outflow: a slab of landed beads, three times, just before rebalances): the same
//   beads removed whole and partitioned, the same agreement, and each rebalance after a removal weighs the whole
//   run's remaining contacts.
// - Each rank building its share of the scene holds, once partitioned, the beads it holds when all build the whole,
//   and 40 steps later the two runs are the same bits.
// - A warm start read in shares (a restart archive's rows) reaches the owners of the beads its entries name.
// - A rotating drum's bed (its drum contacts each solved by its bead's owner): the same agreement, and the load on
//   the drum summed over the ranks is the whole run's.
// - A step that does not converge fails on every rank with one message, naming the fastest bead over the ranks.
// - A touching packing at rest: over each step, Σ m Δv of the beads = −M g h + the walls' vertical impulses, summed
//   over the contacts each rank counts, to round-off (a pair contact whose impulse reached one bead only, or a
//   contact counted twice or missed, breaks it).
// - The measurements spread over the ranks (engine/analysis/SpreadBodies.hpp: each rank measures its own beads and
//   the contacts it counts, reduced over the ranks) against the same measurements of the model gathered on rank 0,
//   on the settling lattice every 30 steps: counts equal (bodies, contacts, rattlers removed in waves whose verdicts
//   cross the ranks), the rest to 1e-12 relative (only the order of the sums differs).
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

#include "contact/ContactKey.hpp"
#include "engine/analysis/ContactForces.hpp"
#include "engine/analysis/GranularMeasures.hpp"
#include "engine/distributed/BeadDomain.hpp"
#include "engine/granular/GranularScenes.hpp"
#include "engine/granular/RegionFill.hpp"
#include "engine/granular/GranularStepper.hpp"
#include "solvers/distributed/InterfaceNsgs.hpp"
#include "tests/distributed/MpiTestReport.hpp"

using namespace talus;
using namespace talus::granular;
using namespace talus::mpitest;

namespace {

// rolling > 0: every pair (bead–bead and bead–wall) with that rolling resistance μ_r.
GranularScene lattice(double rolling = 0.0) {
  BeadSpec spec;
  spec.n = 400;
  GranularScene sc = bead_stack(spec);
  sc.model.materials.set_rolling(rolling);
  return sc;
}

// A bed flowing down a periodic chute (25°, periodic along x, 0.44 m long, 4 beads across): 400 beads in
// 5 layers of 20 × 4, spread along the whole period, so the bisection cuts along the periodic axis and beads cross
// the seam from the first steps.
GranularScene periodic_bed() {
  BeadSpec spec;
  spec.n = 400;
  GranularScene sc = chute(spec, 25.0, 22.0, true);
  RigidBodies& b = sc.model.bodies;
  const double r = spec.radius, L = sc.model.periodic.length.x();
  for (int i = 0; i < b.spheres(); ++i) {
    const int ix = i % 20, iy = (i / 20) % 4, iz = i / 80;
    b.x[i] = Eigen::Vector3d((ix + 0.5) * L / 20.0 + 0.1 * r * (iz % 2), 1.1 * r + iy * 2.2 * r, 1.1 * r + iz * 2.2 * r);
  }
  return sc;
}

// Both caches gathered by id on rank 0 are the same bits (keys and impulses).
bool same_cache(const contact::ContactCache& a, const contact::ContactCache& b) {
  return a.keys() == b.keys() && a.impulses().size() == b.impulses().size() &&
         (a.impulses().empty() ||  // memcmp of empty vectors would read null pointers
          std::memcmp(a.impulses().data(), b.impulses().data(), a.impulses().size() * sizeof(Eigen::Vector3d)) == 0);
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

// The weight of the domain's last rebalance (1 a bead + its contacts of the last step), summed over the ranks.
double balance_weight_over_ranks(distributed::BeadDomain& domain) {
  double weight = domain.times().balance_weight;
  MPI_Allreduce(MPI_IN_PLACE, &weight, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return weight;
}

// A scene partitioned over the ranks, with its stepper (built in place: the domain holds the scene's model).
struct Partitioned {
  GranularScene scene;
  distributed::InterfaceNsgs solve{MPI_COMM_WORLD};
  distributed::BeadDomain domain;
  GranularStepper stepper;
  Partitioned(GranularScene sc, const GranularParameters& p, int rebalance_every)
      : scene(std::move(sc)), domain(scene.model, solve, rebalance_every),
        stepper(scene.model, domain.stepper_parameters(p)) {}
};

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

// What compare() steps besides the plain lattice under Moreau–Jean.
struct Variant {
  double rolling = 0.0;            // rolling resistance μ_r on every pair
  bool periodic = false;           // the periodic bed instead of the lattice
  bool generalized_alpha = false;  // the generalized-α scheme
};

// Steps the lattice whole (on rank 0, which compares) and partitioned; returns the partitioned run's final digest
// (rank 0). whole = false: the partitioned run alone, for a second run whose digest must match the first's. With rolling
// resistance or generalized-α, each rebalance must carry every warm start with its bead: the contact cache and the
// second one (rolling impulses, or the position problem's impulses) gathered over the ranks are the same bits just
// before and just after it (an entry of a migrated bead left behind would leave its new owner's stale copy of it,
// or none).
// periodic: the periodic bed instead of the lattice; the ghosts must then stay a thin layer at the regions' faces
// and at the seam (a box stretched across the period by a bead that crossed the seam would make every bead a ghost).
std::uint64_t compare(const char* name, GranularSolver solver, int steps, bool whole_too, const Variant& variant = {}) {
  const double rolling = variant.rolling;
  const bool periodic = variant.periodic, ga = variant.generalized_alpha;
  const bool compares = whole_too && rank == 0;
  GranularScene whole = periodic ? periodic_bed() : lattice(rolling);
  GranularParameters pw = parameters(solver, 1e-9);
  if (ga) pw.scheme = GranularScheme::GeneralizedAlpha;
  // With rolling resistance the creep after the landing takes thousands of sweeps a step (1e4 by step 50): the run
  // stops at 45 steps and rebalances every 5, so that several rebalances move beads holding rolling warm starts.
  // Generalized-α's runs do the same, for its position warm start.
  const bool second_cache = rolling > 0.0 || ga;
  const int rebalance_every = second_cache ? 5 : 10;
  Partitioned part(periodic ? periodic_bed() : lattice(rolling), pw, rebalance_every);
  distributed::BeadDomain& domain = part.domain;
  GranularStepper sw(whole.model, pw);
  GranularStepper& sp = part.stepper;
  double worst = 0.0;
  std::string first;  // the first bead found beyond the bound
  bool counts_agree = true;
  long rebalances_checked = 0;  // rebalances that moved beads while the second warm start was not empty
  long crossed = 0, most_ghosts = 0;  // beads that crossed the seam (whole run); ghosts over the ranks
  const double period = whole.model.periodic.length.x();
  for (int k = 0; k < steps; ++k) {
    std::vector<double> x_before;
    if (compares && periodic)
      for (int i = 0; i < whole.model.bodies.spheres(); ++i) x_before.push_back(whole.model.bodies.x[i].x());
    if (compares) sw.step();
    if (compares && periodic)
      for (int i = 0; i < whole.model.bodies.spheres(); ++i)
        crossed += std::abs(whole.model.bodies.x[i].x() - x_before[i]) > 0.5 * period;
    if (second_cache && k > 0 && k % rebalance_every == 0) {
      const contact::ContactCache& second = ga ? sp.position_cache() : sp.rolling_cache();
      contact::ContactCache before[2], after[2];
      domain.gather_cache(sp.contact_cache(), before[0]), domain.gather_cache(second, before[1]);
      const long moved = domain.times().migrated;
      domain.prepare_step(sp);
      long moved_here = domain.times().migrated - moved;
      MPI_Allreduce(MPI_IN_PLACE, &moved_here, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
      domain.gather_cache(sp.contact_cache(), after[0]), domain.gather_cache(second, after[1]);
      if (rank == 0) {
        for (int c = 0; c < 2; ++c)
          if (!same_cache(before[c], after[c]))
            fail(std::string(name) + ": the " + (c ? (ga ? "position" : "rolling") : "contact") +
                 " warm start changed in the rebalance of step " +
                 std::to_string(k) + " (" + std::to_string(before[c].size()) + " entries before, " +
                 std::to_string(after[c].size()) + " after)");
        if (moved_here > 0 && before[1].size() > 0) ++rebalances_checked;
      }
    } else {
      domain.prepare_step(sp);
    }
    if (periodic) {
      long ghosts = domain.ghosts();
      MPI_Allreduce(MPI_IN_PLACE, &ghosts, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
      most_ghosts = std::max(most_ghosts, ghosts);
    }
    const GranularStepReport& r = sp.step();
    if (!r.solver.converged())
      fail(std::string(name) + ": step " + std::to_string(k) + " not converged: " + r.solver.message);
    if (!whole_too) continue;
    const distributed::GatheredBeads g = domain.gather(0);
    if (rank != 0) continue;
    const RigidBodies& b = whole.model.bodies;
    std::map<std::uint32_t, int> at;
    for (int i = 0; i < b.spheres(); ++i) at[b.id[i]] = i;
    if (g.id.size() != at.size()) {  // reported once; rank 0 keeps stepping with the others (gather is collective)
      if (counts_agree)
        fail(std::string(name) + ": step " + std::to_string(k) + ": " + std::to_string(g.id.size()) +
             " beads over the ranks, " + std::to_string(at.size()) + " in the whole model");
      counts_agree = false;
      continue;
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
  if (compares && !(worst <= 1e-6)) fail(std::string(name) + ": velocities differ by " + std::to_string(worst) + " m/s" + first);
  const std::uint64_t d = digest(domain.gather(0));
  if (rolling > 0.0 && !sp.has_rolling_resistance()) fail(std::string(name) + ": the stepper has no rolling resistance");
  if (periodic && compares) {
    if (crossed == 0) fail(std::string(name) + ": no bead crossed the seam (the test does not test it)");
    if (most_ghosts > 0.35 * whole.model.bodies.spheres())
      fail(std::string(name) + ": " + std::to_string(most_ghosts) + " ghosts over the ranks for " +
           std::to_string(whole.model.bodies.spheres()) + " beads");
    std::printf("%s: %ld crossings of the seam; at most %ld ghosts over the ranks\n", name, crossed, most_ghosts);
  }
  if (second_cache && ranks > 1 && rank == 0 && rebalances_checked == 0)
    fail(std::string(name) + ": no rebalance moved beads with " + (ga ? "position" : "rolling") +
         " warm starts (the test does not test the migration)");
  if (compares)
    std::printf("%s: %d steps on %d ranks agree with the whole model (largest velocity difference %.3g m/s); "
                "%ld beads migrated%s\n", name, steps, ranks, worst, all_migrated,
                rebalances_checked > 0
                    ? (", every warm start carried through the " + std::to_string(rebalances_checked) +
                       " rebalances that moved beads holding them").c_str()
                    : "");
  return d;
}

// Beads added during the run (engine/granular/RegionFill.hpp, PourSpread): a rain of 300 beads (radii 8–10 mm) into
// the lattice's box and a steel ball dropped at step 30, stepped whole and partitioned for 90 steps: every step
// pours as many beads on both (most of the 300 in all), each new bead is held by one rank at the bits of the whole
// run's, the gathered beads are the whole run's ids, with velocities within 1e-6 m/s (the lattice test's bound) until
// the rain meets anything (step 38) and 1e-4 m/s after (its landing impacts amplify what the tolerance 1e-9 leaves:
// 7e-7 m/s on one rank, whose sweep order differs only by the bead order, 1e-5 on 2–4 ranks; a stale warm start gave
// 1e-2 in the rolling test).
void pours() {
  GranularScene whole = lattice();
  const GranularParameters pw = parameters(GranularSolver::Anderson, 1e-9);
  Partitioned part(lattice(), pw, 10);
  Eigen::Vector3d lo = Eigen::Vector3d::Constant(INFINITY), hi = -lo;
  const RigidBodies& wb = whole.model.bodies;
  for (int i = 0; i < wb.spheres(); ++i) lo = lo.cwiseMin(wb.x[i]), hi = hi.cwiseMax(wb.x[i]);
  TimedPour rain;
  rain.fill.lower = Eigen::Vector3d(lo.x(), lo.y(), hi.z() + 0.03);
  rain.fill.upper = Eigen::Vector3d(hi.x(), hi.y(), hi.z() + 0.15);
  rain.fill.count = 300;
  rain.fill.sizes.r_min = 0.008, rain.fill.sizes.r_max = 0.01;
  rain.fill.seed = 7;
  rain.rate = 6000.0, rain.start = 0.005;
  TimedPour rain_part = rain;
  const Eigen::Vector3d drop(0.5 * (lo.x() + hi.x()), 0.5 * (lo.y() + hi.y()), hi.z() + 0.25), v0(0.0, 0.0, -1.0);
  GranularStepper sw(whole.model, pw);
  GranularStepper& sp = part.stepper;
  distributed::BeadDomain& domain = part.domain;
  double worst = 0.0, before_landing = 0.0;  // before the rain's beads meet anything (step 38)
  bool placed_exactly = true, counts_agree = true;
  long poured = 0;
  long endpoints = 0;  // rank 0: the beads' ends of the whole run's last contacts (2 a pair, 1 a wall)
  int weights_checked = 0;  // rebalances just after a pour whose weights were checked
  for (int k = 0; k < 90; ++k) {
    // The whole model is stepped on rank 0 only, which compares.
    if (k == 30) {
      const std::uint32_t b = domain.add_sphere(drop, 0.02, 7800.0, v0, kBeadMaterial);
      const std::uint32_t a = rank == 0 ? whole.model.bodies.add_sphere(drop, 0.02, 7800.0, v0) : b;
      if (a != b) fail("pours: the dropped ball has id " + std::to_string(b) + " partitioned, " + std::to_string(a) + " whole");
    }
    const long b = pour_due(part.scene.model, rain_part, &domain), a = rank == 0 ? pour_due(whole.model, rain) : b;
    if (a != b) fail("pours: step " + std::to_string(k) + ": " + std::to_string(b) + " beads poured partitioned, " +
                     std::to_string(a) + " whole");
    poured += a;
    if (b > 0 || k == 30) {  // b: alike on every rank (the gather is collective)
      // The new beads where one process puts them, to the bit: the same beads near the pour over the ranks.
      const distributed::GatheredBeads fresh = domain.gather(0);
      if (rank == 0) {
        std::map<std::uint32_t, int> at;
        for (int i = 0; i < wb.spheres(); ++i) at[wb.id[i]] = i;
        const long added = a + (k == 30);
        long same = 0, fresh_beads = 0;
        for (std::size_t j = 0; j < fresh.id.size(); ++j) {
          const auto it = at.find(fresh.id[j]);
          if (it == at.end() || fresh.id[j] < wb.next_id[0] - added) continue;
          ++fresh_beads;
          same += fresh.x[j] == wb.x[it->second] && fresh.v[j] == wb.v[it->second];
        }
        placed_exactly = placed_exactly && same == fresh_beads && fresh_beads == added;
      }
    }
    if (rank == 0) sw.step();
    domain.prepare_step(sp);
    if (k > 0 && k % 10 == 0) {
      // The rebalance just now weighed each bead by 1 + its contacts of the last step, found through the ids the
      // beads had then (the beads poured since moved the indices: the ghosts' indices are the new beads' now).
      const double weight = balance_weight_over_ranks(domain);
      if (rank == 0) {
        const double expected = static_cast<double>(wb.spheres() + endpoints);
        if (weight != expected)
          fail("pours: the rebalance of step " + std::to_string(k) + " weighed the beads " + std::to_string(weight) +
               " over the ranks, expected " + std::to_string(expected) + " (1 a bead + its contacts of the last step)");
        weights_checked += b > 0;
      }
    }
    if (rank == 0) {
      endpoints = 0;
      for (const matrixfree::SweepContact& c : sw.contacts()) endpoints += c.a >= 0 ? 2 : 1;
    }
    if (!sp.step().solver.converged()) fail("pours: step " + std::to_string(k) + " not converged");
    const distributed::GatheredBeads g = domain.gather(0);
    if (rank != 0) continue;
    std::map<std::uint32_t, int> at;
    for (int i = 0; i < wb.spheres(); ++i) at[wb.id[i]] = i;
    if (g.id.size() != at.size()) {  // reported once; every rank keeps stepping (the gathers are collective)
      if (counts_agree)
        fail("pours: step " + std::to_string(k) + ": " + std::to_string(g.id.size()) + " beads over the ranks, " +
             std::to_string(at.size()) + " whole");
      counts_agree = false;
      continue;
    }
    for (std::size_t j = 0; j < g.id.size(); ++j) {
      const auto it = at.find(g.id[j]);
      if (it == at.end()) {
        if (counts_agree) fail("pours: bead id " + std::to_string(g.id[j]) + " is not in the whole model");
        counts_agree = false;
        break;  // out of this step's beads only
      }
      const double e = std::max((g.v[j] - wb.v[it->second]).norm(), (g.w[j] - wb.w[it->second]).norm());
      worst = std::max(worst, e);
      if (k < 38) before_landing = std::max(before_landing, e);
    }
  }
  // Where the new beads went: each rank's own beads with ids of the rain or the ball.
  long mine = 0, ranks_with = 0;
  for (int i = 0; i < domain.owned(); ++i) mine += part.scene.model.bodies.id[i] >= 400;
  long has = mine > 0;
  MPI_Allreduce(&has, &ranks_with, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank != 0) return;
  if (poured < 250) fail("pours: " + std::to_string(poured) + " beads poured of 300 (expected most of them in 90 steps)");
  if (weights_checked == 0) fail("pours: no rebalance came just after a pour (the weights' test does not test them)");
  if (!placed_exactly) fail("pours: a new bead is not where one process puts it, or not on exactly one rank");
  if (!(before_landing <= 1e-6 && worst <= 1e-4))
    fail("pours: velocities differ by " + std::to_string(before_landing) + " m/s before the rain meets anything, " +
         std::to_string(worst) + " m/s in all");
  std::printf("pours: %ld beads rained and a ball dropped, whole and on %d ranks: each placed where one process "
              "places it, to the bit; velocities within %.3g m/s until the rain meets the lattice, %.3g m/s after; the "
              "new beads on %ld ranks\n", poured, ranks, before_landing, worst, ranks_with);
}

// Beads removed during the run (outflow: BeadDomain::remove_own): the settling lattice loses the landed beads of a
// slab along a wall (5 cm deep and high; three walls) at steps 40, 60 and 75, just before rebalances (every 5
// steps), stepped whole and partitioned for 80 steps: the same beads removed, the gathered beads the whole run's
// ids, velocities within 1e-4 m/s (as in pours: the beads around a removal restart to move and the tolerance 1e-9
// leaves 1e-6–1e-5 after it on 2–3 ranks), and each rebalance after a removal weighs the beads by 1 + their contacts of the last step that
// are still there, the whole run's count, though the removals moved the indices those contacts name.
void outflow() {
  GranularScene whole = lattice();
  const GranularParameters pw = parameters(GranularSolver::Anderson, 1e-9);
  Partitioned part(lattice(), pw, 5);
  auto leaves = [](int k, const Eigen::Vector3d& x) {  // the box is 17.6 cm wide
    return x.z() < 0.05 && ((k == 40 && x.x() < 0.05) || (k == 60 && x.x() > 0.126) || (k == 75 && x.y() < 0.05));
  };
  GranularStepper sw(whole.model, pw);
  GranularStepper& sp = part.stepper;
  distributed::BeadDomain& domain = part.domain;
  RigidBodies& wb = whole.model.bodies;
  std::vector<char> flags;
  std::vector<std::uint32_t> ends;  // rank 0: the beads (ids) at the ends of the whole run's last contacts
  long removed_whole = 0, removed_part = 0, since_rebalance = 0;
  int weights_checked = 0;
  double worst = 0.0;
  bool counts_agree = true;
  for (int k = 0; k < 80; ++k) {
    if (rank == 0) {
      flags.assign(wb.count(), 0);
      long n = 0;
      for (int i = 0; i < wb.spheres(); ++i) n += flags[i] = leaves(k, wb.x[i]);
      if (n > 0) wb.remove(flags);
      removed_whole += n;
    }
    const RigidBodies& pb = part.scene.model.bodies;
    flags.assign(domain.owned(), 0);
    long mine = 0;
    for (int i = 0; i < domain.owned(); ++i) mine += flags[i] = leaves(k, pb.x[i]);
    MPI_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (mine > 0) domain.remove_own(flags);  // the sum is alike on every rank: all call it or none
    removed_part += mine, since_rebalance += mine;
    if (rank == 0) sw.step();
    domain.prepare_step(sp);
    if (k > 0 && k % 5 == 0) {
      const double weight = balance_weight_over_ranks(domain);
      if (rank == 0) {
        std::map<std::uint32_t, int> present;
        for (int i = 0; i < wb.spheres(); ++i) present[wb.id[i]] = i;
        long kept_ends = 0;
        for (const std::uint32_t id : ends) kept_ends += present.count(id);
        const double expected = static_cast<double>(wb.spheres() + kept_ends);
        if (weight != expected)
          fail("outflow: the rebalance of step " + std::to_string(k) + " weighed the beads " + std::to_string(weight) +
               " over the ranks, expected " + std::to_string(expected) +
               " (1 a bead + its contacts of the last step, those of removed beads left out)");
        weights_checked += since_rebalance > 0 && kept_ends > 0;
      }
      since_rebalance = 0;
    }
    if (rank == 0) {
      ends.clear();
      for (const matrixfree::SweepContact& c : sw.contacts()) {
        if (c.a >= 0) ends.push_back(wb.id[c.a]);
        ends.push_back(wb.id[c.b]);
      }
    }
    if (!sp.step().solver.converged()) fail("outflow: step " + std::to_string(k) + " not converged");
    const distributed::GatheredBeads g = domain.gather(0);
    if (rank != 0) continue;
    std::map<std::uint32_t, int> at;
    for (int i = 0; i < wb.spheres(); ++i) at[wb.id[i]] = i;
    bool same = g.id.size() == at.size();
    for (std::size_t j = 0; same && j < g.id.size(); ++j) {
      const auto it = at.find(g.id[j]);
      if (it == at.end()) {
        same = false;
        break;
      }
      worst = std::max({worst, (g.v[j] - wb.v[it->second]).norm(), (g.w[j] - wb.w[it->second]).norm()});
    }
    if (!same && counts_agree)
      fail("outflow: step " + std::to_string(k) + ": " + std::to_string(g.id.size()) + " beads over the ranks, " +
           std::to_string(at.size()) + " whole, or other ids");
    counts_agree = counts_agree && same;
  }
  if (rank != 0) return;
  if (removed_whole != removed_part)
    fail("outflow: " + std::to_string(removed_part) + " beads removed partitioned, " + std::to_string(removed_whole) + " whole");
  if (removed_whole < 20) fail("outflow: " + std::to_string(removed_whole) + " beads removed (expected a slab of them)");
  if (weights_checked < 3) fail("outflow: " + std::to_string(weights_checked) + " rebalances came after a removal with contacts (the weights' test does not test them)");
  if (!(worst <= 1e-4)) fail("outflow: velocities differ by " + std::to_string(worst) + " m/s");
  std::printf("outflow: %ld beads removed, whole and on %d ranks alike; velocities within %.3g m/s; %d rebalances after "
              "removals weighed the whole run's remaining contacts\n", removed_whole, ranks, worst, weights_checked);
}

// Each rank building its share of the scene (BeadSpec::keep_begin, BeadDomain with shares, as `talus run` does under
// mpirun) ends with the beads it holds when every rank builds the whole scene: the same ids, positions and
// velocities on every rank (the regions depend on the beads only), though they arrived by migration; and since the
// domain orders its beads by Morton code with ties in id order, the two runs then step alike, bit for bit (the
// touching packing, 40 steps, rebalanced every 10; with ties in arrival order they differ).
void shares() {
  const GranularParameters p = parameters(GranularSolver::Anderson, 1e-6);
  // The touching packing (spacing 2 r): centres on the Morton cells' edges, so that cells tie.
  Partitioned whole(packing(), p, 10);
  BeadSpec spec;
  spec.n = 300;
  spec.spacing = 2.0, spec.jitter = 0.0;
  spec.keep_begin = spec.n * rank / ranks, spec.keep_end = spec.n * (rank + 1) / ranks;
  GranularScene share_scene = bead_stack(spec);
  distributed::InterfaceNsgs solve{MPI_COMM_WORLD};
  distributed::BeadDomain domain(share_scene.model, solve, 10, MPI_COMM_WORLD, true);
  auto own = [](const RigidBodies& b, int n) {
    std::map<std::uint32_t, std::pair<Eigen::Vector3d, Eigen::Vector3d>> m;
    for (int i = 0; i < n; ++i) m[b.id[i]] = {b.x[i], b.v[i]};
    return m;
  };
  const bool same = own(whole.scene.model.bodies, whole.domain.owned()) == own(share_scene.model.bodies, domain.owned());
  long differ = !same, all = 0, mine = domain.owned(), beads = 0;
  MPI_Allreduce(&differ, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&mine, &beads, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  GranularStepper stepper(share_scene.model, domain.stepper_parameters(p));
  for (int k = 0; k < 40; ++k) {
    whole.domain.prepare_step(whole.stepper);
    whole.stepper.step();
    domain.prepare_step(stepper);
    stepper.step();
  }
  const std::uint64_t a = digest(whole.domain.gather(0)), b = digest(domain.gather(0));
  if (rank != 0) return;
  if (all > 0) fail("shares: " + std::to_string(all) + " ranks hold other beads than when every rank builds the whole scene");
  if (beads != 300) fail("shares: " + std::to_string(beads) + " beads over the ranks, expected 300");
  if (a != b) fail("shares: after 40 steps the run built in shares differs from the run built whole");
  std::printf("shares: each of %d ranks built its share and holds the beads it holds when all build the whole scene; "
              "40 steps later the two runs are the same bits\n", ranks);
}

// A warm start read in shares from a restart archive (each rank any rows of it: here entry k on rank k mod R) and
// routed to the owners of the beads it names (BeadDomain::route_warm_start, as `talus run` does after reading its
// share of an archive under mpirun): every rank ends with exactly the entries naming one of its own beads (a pair
// contact across two ranks on both), keys increasing, impulses the same bits; entries naming a bead no rank holds
// are dropped. Shares that overlap (a bead on two ranks) are refused on every rank.
void route_warm_start() {
  BeadSpec spec;
  spec.n = 300;
  auto build = [&](int extra) {
    BeadSpec s = spec;
    s.keep_begin = spec.n * rank / ranks, s.keep_end = std::min<long>(spec.n, spec.n * (rank + 1) / ranks + extra);
    return bead_stack(s);
  };
  GranularScene sc = build(0);
  distributed::InterfaceNsgs solve{MPI_COMM_WORLD};
  distributed::BeadDomain domain(sc.model, solve, 10, MPI_COMM_WORLD, true);
  // Ids up to 319: ids 300–319 name beads no rank holds (removed since the archive, say).
  const std::uint32_t ids_below = 320;
  std::vector<contact::ContactKey> all;
  for (std::uint32_t i = 0; i + 1 < ids_below; ++i) {
    using contact::KeyBody;
    all.push_back(contact::pair_key(KeyBody::Sphere, i, KeyBody::Sphere, i + 1));
    if (i + 37 < ids_below) all.push_back(contact::pair_key(KeyBody::Sphere, i, KeyBody::Sphere, i + 37));
    all.push_back(contact::obstacle_key(contact::KeyObstacle::Plane, i % 5, 0, KeyBody::Sphere, i));
  }
  // Keys naming an id at or above ids_below (a corrupt archive's): reach the owner of the other bead, or nobody.
  all.push_back(contact::pair_key(contact::KeyBody::Sphere, 5, contact::KeyBody::Sphere, 400));
  all.push_back(contact::obstacle_key(contact::KeyObstacle::Plane, 0, 0, contact::KeyBody::Sphere, 500));
  auto impulse = [](contact::ContactKey key) {
    return Eigen::Vector3d(std::sin(1e-9 * static_cast<double>(key % 1000003)), 1.0 / (1.0 + static_cast<double>(key % 97)),
                           -static_cast<double>(key % 31) * 0.1);
  };
  std::vector<contact::ContactKey> keys;
  std::vector<Eigen::Vector3d> impulses;
  for (std::size_t k = rank; k < all.size(); k += ranks) keys.push_back(all[k]), impulses.push_back(impulse(all[k]));
  domain.route_warm_start(keys, impulses, ids_below);
  std::vector<std::uint32_t> own(sc.model.bodies.id.begin(), sc.model.bodies.id.begin() + domain.owned());
  std::sort(own.begin(), own.end());
  std::vector<contact::ContactKey> expected;
  for (const contact::ContactKey key : all) {
    const auto owns = [&](std::uint32_t id) { return std::binary_search(own.begin(), own.end(), id); };
    const bool pair = !contact::is_obstacle_key(key);
    const std::uint32_t a = pair ? static_cast<std::uint32_t>((key >> 33) & (contact::kKeyBodyIds - 1))
                                 : static_cast<std::uint32_t>(key & ((1u << 30) - 1));
    const std::uint32_t b = pair ? static_cast<std::uint32_t>((key >> 3) & (contact::kKeyBodyIds - 1)) : a;
    if (owns(a) || owns(b)) expected.push_back(key);
  }
  std::sort(expected.begin(), expected.end());
  long wrong = keys != expected;
  for (std::size_t k = 0; k < keys.size() && !wrong; ++k) wrong = !(impulses[k].array() == impulse(keys[k]).array()).all();
  long across = 0, total = 0;  // entries held by two ranks: the pair contacts across them
  long held = static_cast<long>(keys.size());
  MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&held, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  long named = 0;  // entries naming a bead of the model (ids below 300), each once
  for (const contact::ContactKey key : all) {
    const bool pair = !contact::is_obstacle_key(key);
    named += (pair ? static_cast<std::uint32_t>((key >> 33) & (contact::kKeyBodyIds - 1)) : static_cast<std::uint32_t>(key & ((1u << 30) - 1))) < 300;
  }
  across = total - named;
  // Overlapping shares: bead spec.n·(r+1)/R is built by ranks r and r + 1.
  bool refused = ranks == 1;
  if (ranks > 1) {
    GranularScene twice = build(1);
    distributed::InterfaceNsgs solve2{MPI_COMM_WORLD};
    distributed::BeadDomain overlapping(twice.model, solve2, 10, MPI_COMM_WORLD, true);
    std::vector<contact::ContactKey> k2;
    std::vector<Eigen::Vector3d> i2;
    try {
      overlapping.route_warm_start(k2, i2, ids_below);
    } catch (const std::runtime_error& e) {
      refused = std::string(e.what()).find("held by two processes") != std::string::npos;
    }
  }
  long not_refused = !refused;
  MPI_Allreduce(MPI_IN_PLACE, &not_refused, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank != 0) return;
  if (wrong > 0) fail("route_warm_start: " + std::to_string(wrong) + " ranks hold other entries than those naming their own beads");
  if (ranks == 1 && across != 0) fail("route_warm_start: one rank holds " + std::to_string(total) + " entries, expected " + std::to_string(named));
  if (not_refused > 0) fail("route_warm_start: overlapping shares were not refused on " + std::to_string(not_refused) + " ranks");
  std::printf("route_warm_start: %ld entries read in %d shares reached the owners of their beads (%ld held on two ranks); "
              "overlapping shares refused\n", named, ranks, across);
}

// A step that does not converge (Anderson held to 3 sweeps, tolerance 1e-12) fails on every rank with the same
// message, naming the fastest own bead over the ranks (when each rank named its own fastest bead, ghosts included,
// two ranks reported two beads for one failure) and where the residual lies, summed over the ranks' own contacts
// (each rank's own breakdown differs from rank to rank).
void failure_message() {
  GranularParameters p = parameters(GranularSolver::Anderson, 1e-12);
  p.max_sweeps = 3;
  Partitioned part(lattice(), p, 10);
  std::string message;
  int failed_at = -1;
  for (int k = 0; k < 200 && failed_at < 0; ++k) {
    part.domain.prepare_step(part.stepper);
    try {
      part.stepper.step();
    } catch (const StepFailure& e) {
      message = e.what(), failed_at = k;
    }
  }
  // Every rank's message on rank 0.
  int length = static_cast<int>(message.size());
  std::vector<int> lengths(ranks), offsets(ranks, 0);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 1; r < ranks; ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
  std::vector<char> all(rank == 0 ? offsets[ranks - 1] + lengths[ranks - 1] : 0);
  MPI_Gatherv(message.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank != 0) return;
  if (failed_at < 0 || message.find("the fastest body after it: bead id") == std::string::npos ||
      message.find("the largest contact error: bead id") == std::string::npos ||
      message.find("squared residual: sticking") == std::string::npos) {
    fail("failure message: no step failed, or its message names no bead or no residual breakdown (summed over the "
         "ranks): '" + message + "'");
    return;
  }
  for (int r = 1; r < ranks; ++r) {
    const std::string theirs(all.data() + offsets[r], lengths[r]);
    if (theirs != message) fail("failure message: rank " + std::to_string(r) + " says '" + theirs + "', rank 0 '" + message + "'");
  }
  std::printf("failure message: step %d failed on %d ranks with one message: %s\n", failed_at + 1, ranks,
              message.substr(message.find("the fastest")).c_str());
}

// The multilevel solve spread over the ranks (InterfaceNsgs.hpp, solve_multilevel): a column of 160 beads resting
// on a floor, every gap exactly 0, solved from zero impulses in one step. The bisection cuts it across, so the
// weight of each rank's part must reach the floor through the other ranks' parts: the gathered coarsest level
// carries it. Every contact, counted by the rank that owns it, carries the exact weight of the beads above it
// (k m g h for the contact k beads from the top, the floor all 160) after one cycle, as on one process
// (tests/granular/test_multilevel.cpp); plain Gauss–Seidel needs about 25 000 sweeps for this column. Each rank's
// levels must hold its own beads only (an aggregate of one rank's beads and another's ghosts would be moved by both).
void column_multilevel() {
  const int layers = 160;
  BeadSpec spec;
  GranularParameters p = parameters(GranularSolver::Multilevel, 1e-10);
  Partitioned part(bead_column(spec, layers), p, 10);
  part.domain.prepare_step(part.stepper);
  const GranularStepReport& r = part.stepper.step();
  const RigidBodies& b = part.scene.model.bodies;
  const int own = part.solve.ownership().owned;
  const double w = b.mass[0] * 9.81 * p.h;
  if (!r.solver.converged()) fail("column, multilevel: not converged: " + r.solver.message);
  const int one_cycle = p.multilevel.plain_first + p.multilevel.pre_sweeps + p.multilevel.post_sweeps;
  if (r.cycles != 1 || r.solver.counters.sweeps > one_cycle)
    fail("column, multilevel: " + std::to_string(r.cycles) + " cycles, " + std::to_string(r.solver.counters.sweeps) +
         " sweeps (one cycle after " + std::to_string(p.multilevel.plain_first) + " plain sweeps expected)");
  // The column's beads are numbered bottom first (their ids).
  double worst = 0.0;
  long counted = 0;
  const std::vector<SweepContact>& contacts = part.stepper.contacts();
  for (int i = 0; i < static_cast<int>(contacts.size()); ++i) {
    if (!part.solve.counts_contact(i)) continue;
    const SweepContact& c = contacts[i];
    const int below = c.a < 0 ? -1 : static_cast<int>(std::min(b.id[c.a], b.id[c.b]));
    const double expected = (layers - 1 - below) * w;
    worst = std::max(worst, std::abs(c.r[0] - expected) / expected);
    ++counted;
  }
  double fastest = 0.0;
  for (int i = 0; i < own; ++i) fastest = std::max(fastest, b.v[i].norm());
  double all[3] = {worst, fastest, static_cast<double>(counted)}, total[3];
  MPI_Allreduce(all, total, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(all + 2, total + 2, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  int levels = r.levels, fewest = 0;
  MPI_Allreduce(&levels, &fewest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank != 0) return;
  if (static_cast<int>(total[2]) != layers)
    fail("column, multilevel: " + std::to_string(total[2]) + " contacts counted over the ranks, " +
         std::to_string(layers) + " expected");
  if (!(total[0] <= 1e-8)) fail("column, multilevel: the weights are off by " + std::to_string(total[0]) + " relative");
  if (!(total[1] < 1e-9)) fail("column, multilevel: a bead still moves at " + std::to_string(total[1]) + " m/s");
  if (fewest < 2) fail("column, multilevel: a rank built " + std::to_string(fewest) + " levels");
  std::printf("column, multilevel: %d beads on %d ranks carry their exact weights (to %.2g) after %d cycle, %d sweeps\n",
              layers, ranks, total[0], r.cycles, r.solver.counters.sweeps);
}

// A rotating drum (its beads' contacts with the drum are contacts of other shapes, GeneralContactSweep.hpp, each
// solved by its bead's owner): the drum scene's bed (periodic along the axis), 40 steps to 1e-9 with plain sweeps
// (Anderson is off with such contacts, as on one process), rebalanced every 10 steps, whole on rank 0 and
// partitioned. After every step the gathered beads' velocities are within 1e-6 m/s of the whole run's and the load
// on the drum, summed over the ranks' own contacts, is the whole run's to 1e-6 of its size: a drum contact solved
// by two ranks (a ghost's kept) or by none would break either.
void drum_bed() {
  BeadSpec spec;
  GranularParameters p = parameters(GranularSolver::Anderson, 1e-8);
  GranularScene whole = drum(spec);
  Partitioned part(drum(spec), p, 10);
  GranularStepper sw(whole.model, p);
  double worst = 0.0, worst_load = 0.0;
  long drum_contacts = 0;
  std::string first;
  const int steps = 60;
  for (int k = 0; k < steps; ++k) {
    if (rank == 0) sw.step();
    part.domain.prepare_step(part.stepper);
    const GranularStepReport& r = part.stepper.step();
    if (!r.solver.converged()) fail("drum: step " + std::to_string(k) + " not converged: " + r.solver.message);
    const RigidBodies& b = part.scene.model.bodies;
    double load[6] = {0, 0, 0, 0, 0, 0};
    for (int o = 0; o < b.obstacles(); ++o) {
      const int i = b.obstacle_body(o);
      for (int d = 0; d < 3; ++d) load[d] += b.force_of(i)[d], load[3 + d] += b.torque_of(i)[d];
    }
    MPI_Allreduce(MPI_IN_PLACE, load, 6, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    long mine = static_cast<long>(part.stepper.general_contacts().contacts.size()), all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    drum_contacts = std::max(drum_contacts, all);
    const distributed::GatheredBeads g = part.domain.gather(0);
    if (rank != 0) continue;
    const RigidBodies& wb = whole.model.bodies;
    double whole_load[6] = {0, 0, 0, 0, 0, 0};
    for (int o = 0; o < wb.obstacles(); ++o) {
      const int i = wb.obstacle_body(o);
      for (int d = 0; d < 3; ++d) whole_load[d] += wb.force_of(i)[d], whole_load[3 + d] += wb.torque_of(i)[d];
    }
    double size = 0.0, diff = 0.0;
    for (int d = 0; d < 6; ++d)
      size = std::max(size, std::abs(whole_load[d])), diff = std::max(diff, std::abs(load[d] - whole_load[d]));
    if (size > 0.0) worst_load = std::max(worst_load, diff / size);
    std::map<std::uint32_t, int> at;
    for (int i = 0; i < wb.spheres(); ++i) at[wb.id[i]] = i;
    if (g.id.size() != at.size()) {
      fail("drum: step " + std::to_string(k) + ": " + std::to_string(g.id.size()) + " beads over the ranks, " +
           std::to_string(at.size()) + " whole");
      continue;
    }
    for (std::size_t j = 0; j < g.id.size(); ++j) {
      const int i = at.at(g.id[j]);
      const double e = std::max((g.v[j] - wb.v[i]).norm(), wb.radius[i] * (g.w[j] - wb.w[i]).norm());
      if (e > 1e-6 && first.empty()) first = " (first at step " + std::to_string(k) + ", bead " + std::to_string(g.id[j]) + ")";
      worst = std::max(worst, e);
    }
  }
  if (rank != 0) return;
  if (drum_contacts == 0) fail("drum: no bead touched the drum (the test does not test it)");
  if (!(worst <= 1e-6)) fail("drum: velocities differ by " + std::to_string(worst) + " m/s" + first);
  if (!(worst_load <= 1e-6)) fail("drum: the load on the drum differs by " + std::to_string(worst_load) + " of its size");
  std::printf("drum: %d steps on %d ranks agree with the whole model (velocities within %.3g m/s, the drum's load "
              "within %.3g of its size; up to %ld drum contacts over the ranks)\n",
              steps, ranks, worst, worst_load, drum_contacts);
}

void momentum_balance() {
  const GranularParameters p = parameters(GranularSolver::Anderson, 1e-8);
  Partitioned run(packing(), p, 3);
  GranularScene& sc = run.scene;
  distributed::InterfaceNsgs& solve = run.solve;
  distributed::BeadDomain& domain = run.domain;
  GranularStepper& s = run.stepper;
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

void spread_measures() {
  Partitioned run(lattice(), parameters(GranularSolver::Anderson, 1e-8), 10);
  GranularScene& sc = run.scene;
  distributed::BeadDomain& domain = run.domain;
  GranularStepper& s = run.stepper;
  const RigidBodies& b = sc.model.bodies;
  double worst = 0.0;
  long rattlers = 0, contacts = 0;
  std::string bad;
  auto close = [&](const char* what, int step, double spread, double whole) {
    const double e = std::abs(spread - whole) / std::max(std::abs(whole), 1e-300);
    worst = std::max(worst, spread == whole ? 0.0 : e);
    if (!(e <= 1e-12) && bad.empty())
      bad = std::string(what) + " at step " + std::to_string(step) + ": " + std::to_string(spread) + " spread, " +
            std::to_string(whole) + " gathered";
  };
  for (int k = 1; k <= 150; ++k) {
    domain.prepare_step(s);
    s.step();
    if (k % 30 != 0) continue;
    std::vector<ContactForce> forces, whole_forces;
    granular_contact_forces(sc.model, s, forces);
    // A region every rank derives alike: the beads' box over all ranks, 3 radii in.
    Eigen::Vector3d lo = Eigen::Vector3d::Constant(INFINITY), hi = -lo;
    for (int i = 0; i < domain.owned(); ++i) lo = lo.cwiseMin(b.x[i]), hi = hi.cwiseMax(b.x[i]);
    domain.min(lo.data(), 3), domain.max(hi.data(), 3);
    const Region region{lo + Eigen::Vector3d::Constant(0.03), hi - Eigen::Vector3d::Constant(0.03)};
    CoordinationOptions strict;
    strict.rattler_below = 3;  // above the frictional count: many rattlers, removed in several waves
    const Coordination z = coordination(b, forces, {}, &domain), zs = coordination(b, forces, strict, &domain);
    const ForceDistribution f = normal_force_distribution(forces, 20, 5.0, 1e-6, &domain);
    const double phi = packing_fraction(b, region, &domain);
    const Eigen::Matrix3d sigma = love_weber_stress(b, forces, region, &domain);
    const KineticEnergy ke = kinetic_energy_parts(b, &domain);
    std::vector<double> z_own(domain.owned());
    for (int i = 0; i < domain.owned(); ++i) z_own[i] = b.x[i].z();
    const long total = static_cast<long>(domain.total_beads());
    const double z99 = kth_smallest(z_own.data(), domain.owned(), (99 * (total - 1)) / 100, domain);
    Model whole;
    domain.gather_model(whole, &s, &whole_forces, nullptr, nullptr);
    if (rank != 0) continue;
    const RigidBodies& w = whole.bodies;
    const Coordination zw = coordination(w, whole_forces), zsw = coordination(w, whole_forces, strict);
    for (const auto& [a, c] : {std::pair{z, zw}, std::pair{zs, zsw}}) {
      if (a.bodies != c.bodies || a.body_contacts != c.body_contacts || a.obstacle_contacts != c.obstacle_contacts ||
          a.rattlers != c.rattlers)
        fail("coordination at step " + std::to_string(k) + ": spread counts " + std::to_string(a.bodies) + " bodies, " +
             std::to_string(a.body_contacts) + "+" + std::to_string(a.obstacle_contacts) + " contacts, " +
             std::to_string(a.rattlers) + " rattlers; gathered " + std::to_string(c.bodies) + ", " +
             std::to_string(c.body_contacts) + "+" + std::to_string(c.obstacle_contacts) + ", " + std::to_string(c.rattlers));
      close("coordination", k, a.mean, c.mean), close("mechanical coordination", k, a.mechanical, c.mechanical);
      close("geometric coordination", k, a.geometric, c.geometric);
    }
    // Waves that stop short of removing every bead: the verdicts that cross the ranks decide where they stop.
    if (zs.rattlers > 0 && zs.rattlers < zs.bodies) rattlers = std::max(rattlers, zs.rattlers);
    contacts = std::max(contacts, zw.body_contacts);
    const ForceDistribution fw = normal_force_distribution(whole_forces, 20, 5.0, 1e-6);
    if (f.contacts != fw.contacts) fail("force distribution at step " + std::to_string(k) + ": contacts differ");
    close("mean force", k, f.mean, fw.mean), close("largest force", k, f.max, fw.max);
    // The histogram's counts: a force whose ratio to the mean lies on a bin edge (a landing lattice's equal forces
    // sit at exactly 1) may fall on either side when the means differ in their last bit; only those may move.
    long edge = 0, at_mean = 0;
    for (const ContactForce& c : whole_forces) {
      const double ratio = c.normal_force() / fw.mean;
      if (!(c.normal_force() > 1e-6 * fw.mean)) continue;
      edge += std::abs(ratio * 4.0 - std::round(ratio * 4.0)) < 1e-9;
      at_mean += std::abs(ratio - 1.0) < 1e-12;
    }
    const double unit = fw.contacts * 0.25;  // density per contact in a bin of width 5/20
    double moved = 0.0;
    for (std::size_t j = 0; j < f.density.size(); ++j) moved += std::abs(f.density[j] - fw.density[j]) * unit;
    if (moved > 2.0 * edge + 1e-6 || std::abs(f.above_mean - fw.above_mean) * fw.contacts > at_mean + 1e-6)
      fail("force distribution at step " + std::to_string(k) + ": " + std::to_string(moved) + " counts moved between bins, " +
           std::to_string(edge) + " forces on a bin edge");
    close("packing fraction", k, phi, packing_fraction(w, region));
    const Eigen::Matrix3d sw = love_weber_stress(w, whole_forces, region);
    const double scale = std::max(sw.norm(), 1e-300);  // each entry against the tensor's size
    for (int j = 0; j < 9; ++j) close("stress", k, 1.0 + sigma.data()[j] / scale, 1.0 + sw.data()[j] / scale);
    const KineticEnergy kw = kinetic_energy_parts(w);
    close("translational energy", k, ke.translation, kw.translation), close("rotational energy", k, ke.rotation, kw.rotation);
    std::vector<double> zs_all;
    for (int i = 0; i < w.spheres(); ++i) zs_all.push_back(w.x[i].z());
    std::nth_element(zs_all.begin(), zs_all.begin() + (99 * (total - 1)) / 100, zs_all.end());
    close("99th percentile height", k, z99, zs_all[(99 * (total - 1)) / 100]);
  }
  if (rank != 0) return;
  if (!bad.empty()) fail("measurements spread over the ranks: " + bad);
  else if (rattlers == 0) fail("measurements: no step with some beads but not all rattlers (the test does not test the waves)");
  else
    std::printf("measurements: spread over %d ranks they are those of the gathered model (counts equal, the rest within "
                "%.2g relative; up to %ld contacts, %ld rattlers below 3 contacts)\n", ranks, worst, contacts, rattlers);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const double t0 = MPI_Wtime();
  try {
    compare("matrix_free", GranularSolver::MatrixFree, 70, true);
    Variant rolling;
    rolling.rolling = 0.1;
    const std::uint64_t ra = compare("rolling resistance", GranularSolver::Anderson, 45, true, rolling);
    const std::uint64_t rb = compare("rolling resistance again", GranularSolver::Anderson, 45, false, rolling);
    if (rank == 0 && ra != rb) fail("rolling resistance: two runs on the same ranks differ");
    Variant ga;
    ga.generalized_alpha = true;
    const std::uint64_t ga_a = compare("generalized-alpha", GranularSolver::Anderson, 45, true, ga);
    const std::uint64_t ga_b = compare("generalized-alpha again", GranularSolver::Anderson, 45, false, ga);
    if (rank == 0 && ga_a != ga_b) fail("generalized-alpha: two runs on the same ranks differ");
    Variant chute;
    chute.periodic = true;
    compare("periodic chute", GranularSolver::Anderson, 100, true, chute);
    const std::uint64_t ml_a = compare("multilevel", GranularSolver::Multilevel, 70, true);
    const std::uint64_t ml_b = compare("multilevel again", GranularSolver::Multilevel, 70, false);
    if (rank == 0 && ml_a != ml_b) fail("multilevel: two runs on the same ranks differ");
    column_multilevel();
    drum_bed();
    const std::uint64_t a = compare("anderson", GranularSolver::Anderson, 70, true);
    const std::uint64_t b = compare("anderson again", GranularSolver::Anderson, 70, false);
    if (rank == 0 && a != b) fail("anderson: two runs on the same ranks differ");
    else if (rank == 0) std::printf("anderson: two runs on %d ranks are the same bits\n", ranks);
    pours();
    outflow();
    shares();
    route_warm_start();
    failure_message();
    momentum_balance();
    spread_measures();
  } catch (const std::exception& e) {
    fail(std::string("exception: ") + e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("%s on %d ranks in %.1f s\n", total == 0 ? "passed" : "FAILED", ranks, MPI_Wtime() - t0);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
