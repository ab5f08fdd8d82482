#pragma once
// Matrix-free nonsmooth Gauss–Seidel for bead contacts (issue 4 item 3; seed 004, Coulomb friction with
// Moreau–Jean): W = H M⁻¹ Hᵀ is never formed. The bodies' velocities carry W r + q: they start from the free
// velocity plus the warm-start impulses, and each contact update Δr moves its two beads by M⁻¹ H_iᵀ Δr, so that
// u_i = H_i v + extra_i is always the current W_i r + q_i. One update costs two bead reads, one local solve
// and two bead writes, whatever the contact's neighbourhood — the layout Chrono and LMGC90 use for spheres.
//
// Local solve: the exact solution of the one-contact problem with the diagonal isotropic block of
// SweepContact.hpp (taking off, sticking, or sliding opposite to the tangential trial velocity) — the isotropic
// case of solvers/fc/LocalContactSolvers.hpp's analytic_solve, in closed form without a matrix inverse.
//
// Parallelism: colours (BodyColouring.hpp) are swept in order, the contacts of one colour in parallel; the
// result is the same for any thread count. Stopping: every `check_every` sweeps the exact common residual of
// solvers/core/FrictionContactProblem.hpp, ‖r − proj_K(r − û)‖ / (1 + ‖q‖), is evaluated from the velocities
// (summed over fixed blocks, so its value does not depend on the thread count either).
#include <vector>

#include "engine/granular/BodyColouring.hpp"
#include "engine/granular/SphereBodies.hpp"
#include "engine/granular/SweepContact.hpp"
#include "solvers/core/SolverStats.hpp"

namespace talus::granular {

struct MatrixFreeParameters {
  double tolerance = 1e-4;  // on the common residual
  int max_sweeps = 10000;
  int check_every = 4;      // sweeps between residual evaluations
  int threads = 1;
};

// Scratch kept between calls (no allocation once the contact count stops growing).
struct MatrixFreeWorkspace {
  std::vector<double> block_sums;
};

// Solves the contacts' problem; q_norm = ‖q‖ of the problem (for the residual's scale). On entry the beads'
// velocities must already include the contacts' current impulses (apply_impulses); on exit they are the
// end-of-step velocities. stats.counters.sweeps = sweeps, colours = colours.
solvers::SolverStats solve_matrix_free(std::vector<SweepContact>& contacts, const ContactColours& colours,
                                       SphereBodies& beads, double q_norm, const MatrixFreeParameters& params,
                                       MatrixFreeWorkspace& work);

// Adds M⁻¹ Hᵀ r of every contact to the beads' velocities (coloured, parallel).
void apply_impulses(const std::vector<SweepContact>& contacts, const ContactColours& colours, SphereBodies& beads,
                    int threads);

// The common residual of the current impulses, with u read from the beads' velocities.
double matrix_free_residual(const std::vector<SweepContact>& contacts, const SphereBodies& beads, double q_norm,
                            int threads, MatrixFreeWorkspace& work);

// The relative velocity u = H v + extra of one contact, in its frame.
inline Eigen::Vector3d contact_velocity(const SweepContact& c, const SphereBodies& beads) {
  Eigen::Vector3d rel = beads.v[c.b] - c.rb * beads.w[c.b].cross(c.n);
  if (c.a >= 0) rel -= beads.v[c.a] + c.ra * beads.w[c.a].cross(c.n);
  return Eigen::Vector3d(c.n.dot(rel) + c.extra, c.t1.dot(rel), c.t2.dot(rel));
}

}  // namespace talus::granular
