#pragma once
// Friction-contact problems of a bead stack for size sweeps (issue 3, speed targets at 10⁴–10⁵ contacts),
// until the granular engine dumps real ones: nx × ny × nz equal spheres on a cubic lattice, each touching its
// lattice neighbours, the bottom layer resting on a floor. Every contact is a 3 × 3 block (normal, two
// tangents); the one-step Moreau–Jean problem (seed 004, Moreau–Jean with friction) is
//
//   M v⁺ = M v_free + H r,   u = Hᵀ v⁺,   v_free = v⁻ + h g,
//
// with H built from real sphere kinematics (translation and rotation: the contact point velocity is
// v + ω × (x_contact − x_centre)), M = diag(m I, (2/5) m R² I) per sphere, so W = Hᵀ M⁻¹ H and q = Hᵀ v_free.
// Optional random pre-impact velocities make a mix of sticking, sliding and separating contacts.
#include "solvers/core/FrictionContactProblem.hpp"
#include "solvers/fc/GlobalFrictionContactProblem.hpp"

namespace talus::solvers {

struct LatticeStackParameters {
  int nx = 10, ny = 10, nz = 10;  // spheres along each axis (z is up)
  double radius = 0.01;           // m
  double density = 2500.0;        // kg/m³
  double mu = 0.5;                // friction coefficient of every contact
  double time_step = 1e-3;        // s
  double gravity = 9.81;          // m/s², along −z
  double velocity_noise = 0.0;    // m/s: pre-impact velocities uniform in [−a, a]³, spins in [−a/R, a/R]³
  unsigned seed = 0;              // of the velocity noise
};

// Contacts: floor (nx·ny) + vertical (nx·ny·(nz−1)) + along x ((nx−1)·ny·nz) + along y (nx·(ny−1)·nz),
// numbered sphere by sphere from the bottom layer up (each sphere's contacts with its lower, −x and −y
// neighbours), which is the order in which a Gauss–Seidel sweep carries the weight up the columns.
Index lattice_stack_contacts(const LatticeStackParameters& params);

// A roughly square stack of `layers` layers with about `contacts` contacts.
LatticeStackParameters lattice_stack_for_contacts(Index contacts, int layers = 4);

// The global form (M, H, f = M v_free, w = 0, μ).
GlobalFrictionContactProblem make_lattice_stack_global(const LatticeStackParameters& params);

// The local form, W = Hᵀ M⁻¹ H and q = Hᵀ v_free, computed with the diagonal M directly.
FrictionContactProblem make_lattice_stack_problem(const LatticeStackParameters& params);

}  // namespace talus::solvers
