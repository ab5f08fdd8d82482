#pragma once
// Finite-element beams on the large path (issue 11: "FE bodies on the large path"; a bead pile striking a
// flexible structure at the granular stepper's scale). The beams are the model's linear Euler–Bernoulli
// cantilevers (LTI systems placed by Model::detection.beams, engine/detection/BeamSphereContact.hpp), the beads
// touch them as the small path's detection lets them (sphere–beam contacts through element boxes, the same
// gap, frame and Jacobian), and the granular stepper solves those contacts with the bead contacts in its
// matrix-free sweeps (solvers/matrixfree/FlexibleContactSweep.hpp).
//
// Time stepping: the beads keep the stepper's Moreau–Jean scheme (θ = 1); each beam takes the θ-method of
// seed 000 (eqs 32–41) for an LTI system, whose iteration matrix M̂ = M + hθC + h²θ²K is constant:
//   v_{k+1} = v_free + M̂⁻¹ Jᵀ P,   v_free = v_k + M̂⁻¹ h (F_θ − C v_k − K (q_k + hθ v_k)),
//   q_{k+1} = q_k + h (θ v_{k+1} + (1 − θ) v_k),   F_θ = θ F(t_{k+1}) + (1 − θ) F(t_k).
// The contact impulses P enter through the response M̂⁻¹ Jᵀ of each contact. M̂⁻¹ is formed once (dense: a beam
// has tens to hundreds of unknowns), so a step costs O(contacts × unknowns).
// Why θ = 1 by default (GranularParameters::beam_theta): the contacts' laws act on the velocities v_{k+1}, and
// the beads move with them (x_{k+1} = x_k + h v_{k+1}); a beam moving with θ v_{k+1} + (1 − θ) v_k instead lets
// a closed contact drift into it by h (1 − θ) ΔU_N per step while the beam accelerates. Measured on a bead
// settling on the steel strip (tests/granular/test_beam_contacts.cpp): 7e-4 r left in it at θ = ½, 1.4e-7 r at
// θ = 1. θ = ½ conserves a free beam's energy (seed 000 eq 84), θ = 1 damps its vibration numerically.
// Contact law: the bead-contact laws of the stepper (GranularStepper.hpp): the open target u_N + gap_k/h >= 0,
// Newton's u_N,k+1 + e u_N,k >= 0 once closed, Coulomb's cone with the (μ, e) of the pair (bead material,
// "wall"): a beam is an obstacle of the wall material. Each pair keeps its side of the centreline while it
// persists (BeamSphereContact.hpp); a new pair (and every pair after a restart) takes the side its centre is on.
// Capsules meet a beam as spheres of their radius on their axis (contact/CapsuleMeshContact.hpp's rule) at
// their two ends, at the points where their axis crosses the strip's long edges (the lines |y| = half_width, which
// do not move: the beam bends in its plane only), so that a capsule lying across the strip rests on its width
// whatever its tilt, and at the axis point nearest the beam when it is nearer than all of those (by 1e-3 r) and
// more than a radius from each (a capsule on the beam's crest), found by a golden-section search along the axis.
// Keys: the capsule with features 0, 1 (ends), 2, 3 (edges) and 4 (nearest point). Each is a contact while its
// gap is within the step's reach. The lever arm from the capsule's centre turns it with the contact's friction
// and normal force. Beams do not meet each other, nor a periodic image of a bead.
//
// Generalized-α (seed 004 eqs 40–41; GranularParameters::scheme). The beads take the stepper's two problems, a
// velocity jump W = M⁻¹ Jᵀ Λ and a position correction U = h M⁻¹ Jᵀ ν (ν in the stepper's velocity units), and
// so does each beam, whose smooth part is taken at the corrected state (eq 40d: M ṽ̇ = F − C v_{n+1} − K q_{n+1}).
// For a linear beam that coupling is eliminated exactly: with c = (1 − α_f)/(1 − α_m), a_{n+1} = c ṽ̇_{n+1} + a⁰,
// a⁰ = (α_f ṽ̇_n − α_m a_n)/(1 − α_m) (eq 41e), the predictions without the a_{n+1} terms
//   v* = v_n + h(1 − γ) a_n + hγ a⁰,   q* = q_n + h v_n + h²(½ − β) a_n + h²β a⁰   (eqs 41c, 41a)
// and S = M + hγc C + h²βc K (constant, inverted once), eq 40d reads S ṽ̇ = S ṽ̇_free − C W − K U with
// ṽ̇_free = S⁻¹(F − C v* − K q*). With Z = S⁻¹(C M⁻¹ Jᵀ Λ + h K M⁻¹ Jᵀ ν), ṽ̇ = ṽ̇_free − Z and
//   v_{n+1} = v_free + M⁻¹ Jᵀ Λ − hγc Z,          v_free = v* + hγc ṽ̇_free
//   (q_{n+1} − q_n)/h = V_free + M⁻¹ Jᵀ ν − hβc Z,  V_free = (q* − q_n)/h + hβc ṽ̇_free
// So each problem has its own constant response, M⁻¹ − hγc S⁻¹ C M⁻¹ (`inverse`) and M⁻¹ − h²βc S⁻¹ K M⁻¹
// (`position_inverse`), and each sees the other's impulses through Z: the velocity problem ν through K, the
// position problem Λ through C. The stepper solves the velocity problem with the previous step's ν (the position
// cache's warm start), the position problem with the new Λ, and then each again, warm-started from its own
// impulses, while the other's last solution moves its coupling term by more than the solve's tolerance on the
// beam's contacts (beam_velocity_coupling_change, beam_position_coupling_change). Without damping the position
// problem does not see Λ, and one more velocity solve at most ends it; with damping the rounds are a fixed-point
// iteration, extrapolated (Anderson, on the beams' generalized impulses Jᵀν) because its plain rate tends to 1 on
// the stiff modes.
// Then q_{n+1} = q_n + h V, and ṽ̇_{n+1} = ṽ̇_free − Z, a_{n+1} = a⁰ + c ṽ̇_{n+1}.
// Why not the beam's smooth step alone, with the contacts acting through M⁻¹ Jᵀ: a bead resting on the strip then
// sank with a local dent (152 µm where the static deflection is 64 µm) and slid towards the clamp; the position
// correction has to know the beam's stiffness (S⁻¹ K). Why not the damping on ṽ rather than v_{n+1} (no coupling
// through C, no rounds): a resting bead's ṽ is h g, not 0, so the damping then pushed on the resting beam and the
// static deflection of three beads came out 3.9 % off.
// Activation (eq 40h): Newton's law on a contact whose predicted gap g(q*) is closed, with q* the beads'
// q_k + h v_k + ½h² g and the beam's prediction above; the open law u_N + gap/h >= 0 otherwise, as for beads.
#include <Eigen/Dense>
#include <utility>
#include <vector>

#include "contact/ContactCache.hpp"
#include "engine/GeneralizedAlphaCoefficients.hpp"
#include "engine/Model.hpp"
#include "solvers/matrixfree/FlexibleContactSweep.hpp"

namespace talus::granular {

struct BeamContacts {
  struct Beam {
    int lti = 0;              // index in Model::lti
    int detection = 0;        // index in Model::detection.beams (the contacts' keys)
    // Moreau–Jean: M̂⁻¹. Generalized-α: the velocity problem's response M⁻¹ − hγc S⁻¹ C M⁻¹ (header).
    Eigen::MatrixXd inverse;
    Vector v_start, force, scratch;
    // Generalized-α (header): the position problem's response, S⁻¹, Z's two parts h S⁻¹ K M⁻¹ (of Jᵀν) and
    // S⁻¹ C M⁻¹ (of Jᵀ Λ; empty without damping), and M⁻¹ (the first ṽ̇).
    Eigen::MatrixXd position_inverse, smooth_inverse, stiffness_coupling, damping_coupling, mass_inverse;
    Vector a, vdot;             // a_n and ṽ̇_n (empty before the first step: then ṽ̇_0 = M⁻¹ f(q_0, v_0) = a_0)
    Vector a0;                  // a⁰ of the step (header)
    Vector smooth_free;         // ṽ̇_free = S⁻¹(F − C v* − K q*)
    Vector v_free, position_free;  // the two problems' free velocities, without their coupling terms
    Vector position;            // (q_{n+1} − q_n)/h: the position problem's velocity
    Vector nu, lambda;          // the Jᵀν and Jᵀ Λ whose coupling terms the two problems were last set with
  };
  std::vector<Beam> beams;
  double h = 0.0, theta = 0.5;
  bool generalized_alpha = false;
  GeneralizedAlphaCoefficients coefficients;
  std::vector<double> low, high;  // element boxes (beam_element_boxes), beam after beam
  std::vector<int> box_begin;
  std::vector<std::pair<contact::ContactKey, double>> sides, next_sides;  // each pair's side, sorted by key
  std::vector<contact::ContactKey> keys;          // the contacts' keys, in the sweep's order
  std::vector<Eigen::Vector3d> world_impulses;    // the contacts' impulses, world frame (beam_world_impulses)
  // Generalized-α: the same contacts with the position problem's responses, targets and warm starts (their
  // bodies point at each beam's `position`). The stepper swaps it with its velocity set while it solves it.
  matrixfree::FlexibleContactSweep position_set;
  bool empty() const { return beams.empty(); }
};

// Takes the model's beams: every LTI system must be one of Model::detection.beams (and every beam one of the
// LTI systems), θ in [0, 1], h > 0; forms each M̂⁻¹, or with `generalized_alpha` the matrices of the header's
// generalized-α (θ unused). Throws std::invalid_argument naming the system otherwise.
void prepare_beam_contacts(BeamContacts& s, const Model& m, double h, double theta,
                           const GeneralizedAlphaCoefficients* generalized_alpha = nullptr);

// The sphere–beam contacts of the step, at the start-of-step state (v_k): detection within margin + h (the
// beam's speed bound), frames, blocks of W, Newton targets, warm starts from `cache` (keyed as
// contact/ContactKey.hpp's Beam obstacles). Fills out (its bodies point at the beams' velocities) and s.keys;
// under generalized-α also s.position_set, warm-started from `position_cache`.
// Returns the largest penetration −gap (0 when none).
double build_beam_contacts(BeamContacts& s, Model& m, double margin, const contact::ContactCache& cache,
                           matrixfree::FlexibleContactSweep& out, const contact::ContactCache* position_cache = nullptr);

// v ← v_free of every beam (header), keeping v_k for integrate_beam_positions and for a rolled-back step.
// Generalized-α: v_free with the coupling term of the position set's warm start, and V_free.
void beam_free_velocities(BeamContacts& s, Model& m);

// Generalized-α's coupling (header), set just before a solve (the solve adds the impulses to these free
// velocities): the velocity problem's v = v_free − hγc h S⁻¹ K M⁻¹ nu, the position problem's
// V = V_free − hβc S⁻¹ C M⁻¹ lambda. set_beam_velocity_problem takes nu from `position`'s impulses (Jᵀν), or
// keeps the beams' `nu` when `position` is null (an extrapolated one); set_beam_position_problem takes lambda
// from `velocity`'s impulses.
void set_beam_velocity_problem(BeamContacts& s, Model& m, const matrixfree::FlexibleContactSweep* position);
void set_beam_position_problem(BeamContacts& s, const matrixfree::FlexibleContactSweep& velocity);

// Jᵀ r of the contacts of `set` on each beam, beam after beam, into one vector (the rounds' unknowns).
void beam_generalized_impulses(const BeamContacts& s, const matrixfree::FlexibleContactSweep& set, Vector& out);
// The Jᵀν each beam's velocity problem was set with, beam after beam in one vector, and back (the coupling
// rounds' unknown, which they may extrapolate).
void beam_nu(const BeamContacts& s, Vector& out);
void set_beam_nu(BeamContacts& s, const Vector& nu);

// How far the last solves are from agreeing: the change of the velocity problem's coupling term since it was set,
// with `position`'s ν now, as contact velocities of `velocity`'s contacts (√Σ‖J δv‖²), and the same for the
// position problem with `velocity`'s Λ (0 without damping).
double beam_velocity_coupling_change(const BeamContacts& s, const matrixfree::FlexibleContactSweep& velocity,
                                     const matrixfree::FlexibleContactSweep& position);
double beam_position_coupling_change(const BeamContacts& s, const matrixfree::FlexibleContactSweep& velocity,
                                     const matrixfree::FlexibleContactSweep& position);

// Generalized-α, once both problems are solved: q_{n+1} = q_n + h V, ṽ̇_{n+1} and a_{n+1} (header).
void finish_beams_generalized_alpha(BeamContacts& s, Model& m);

// q_{k+1} = q_k + h (θ v_{k+1} + (1 − θ) v_k) once the solve has set v_{k+1}.
void integrate_beam_positions(const BeamContacts& s, Model& m);

// A failed step (FailurePolicy::RollBack): the beams' velocities back to v_k.
void restore_beam_velocities(const BeamContacts& s, Model& m);

// s.world_impulses = the contacts' impulses in the world frame (what the contact cache keeps).
void beam_world_impulses(BeamContacts& s, const matrixfree::FlexibleContactSweep& set);

}  // namespace talus::granular
