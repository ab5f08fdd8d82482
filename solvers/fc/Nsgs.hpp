#pragma once
// Nonsmooth block Gauss–Seidel (NSGS) for the friction-contact problem (issue 3 item 3; seed 004, Coulomb
// friction and Moreau–Jean with friction; the problem and its residual are in FrictionContactProblem.hpp).
//
// One sweep visits every contact i, forms b_i = q_i + Σ_{j≠i} W_ij r_j with the newest reactions, solves the
// one-contact problem (LocalContactSolvers.hpp) and relaxes: r_i ← r_i + ω (r_i^local − r_i), projected back on
// the cone when ω > 1. Options: shuffled sweep order (reshuffled each sweep, deterministic per seed), and a
// coloured sweep (ContactColouring.hpp) whose colours are swept in order, each colour in parallel with OpenMP.
// A coloured sweep gives the same reactions for any thread count, so results are deterministic.
//
// Acceleration: where Gauss–Seidel converges slowly (singular W from stacked rigid bodies), phases of Anderson
// acceleration of the sweep map alternate with plain sweeps, each kept while it makes progress.
//
// Stopping: after each sweep a cheap estimate C‖Δr‖/(1+‖q‖) of the common residual is formed from the sweep's
// changes; when it falls under the tolerance the exact residual is computed (one product with W), and C is
// recalibrated upwards if the estimate was optimistic. The returned residual is re-checked with
// friction_residual on the caller's problem, independently of the sweep's bookkeeping.
//
// Problems with equality (bilateral) rows beside the contacts, the one-step problem of a mechanism with
// frictional contacts, have their own serial sweep: MixedNsgs.hpp.
#include "solvers/core/DelassusOperator.hpp"
#include "solvers/core/FrictionContactProblem.hpp"
#include "solvers/core/SolverParameters.hpp"
#include "solvers/core/SolverStats.hpp"
#include "solvers/fc/LocalContactSolvers.hpp"

namespace talus::solvers {

struct NsgsParameters : SolverParameters {
  LocalSolverKind local = LocalSolverKind::Analytic;  // exact by cases, Alart–Curnier Newton where none exists
  double relaxation = 1.0;       // ω in (0, 2); ω > 1 over-relaxes (projected back on the cone)
  bool shuffle = false;          // visit contacts (colours, when coloured) in a fresh random order each sweep
  unsigned seed = 0;             // of the shuffle
  int threads = 1;               // > 1 sweeps colour by colour in parallel
  int min_contacts_per_thread = 1000;  // fewer threads on small problems: a colour barrier costs ~1 µs
  bool coloured = false;         // colour-by-colour order even with one thread (the order threads > 1 use)
  // Anderson acceleration of the sweeps (AndersonAcceleration.hpp), switched on and off by progress: see Nsgs.cpp.
  int anderson_memory = 5;             // past iterates used; 0 = plain Gauss–Seidel
  int anderson_window = 50;            // sweeps between progress checks
  double anderson_slow_progress = 0.5; // a window that shrinks the sweep change by less than this hands over
  int local_max_iterations = 20;      // local Newton iterations per contact and sweep
  double local_tolerance = 1e-14;     // on the local Alart–Curnier function, relative
};

// Solves p by NSGS. r: warm start in (empty = zero), solution out; u = W r + q out. Sizes are checked; an invalid
// problem gives status InvalidInput, a budget spent before the tolerance MaxIterations, NaN/Inf Diverged.
// stats.counters: sweeps, local_iterations, colours (coloured sweeps), and local_seconds / matvec_seconds
// estimated by timing one contact update in 32.
SolverStats nsgs(const FrictionContactProblem& p, Vector& r, Vector& u, const NsgsParameters& params);

// The same on either form of the operator (solvers/core/DelassusOperator.hpp): the assembled form runs the sweep
// above; the factored form (FactoredDelassus.hpp) a plain serial sweep whose velocities carry u, never forming
// W (FactoredNsgs.cpp).
SolverStats nsgs(const DelassusOperator& op, Vector& r, Vector& u, const NsgsParameters& params);

// The start both NSGS entry points check (this one and MixedNsgs.hpp's): r of m unknowns (an empty r becomes
// zero), finite, and ω in (0, 2). Returns false, with stats saying why (InvalidInput), when refused.
bool accept_nsgs_start(Index m, Vector& r, const NsgsParameters& params, SolverStats& stats);

}  // namespace talus::solvers
