#pragma once
// The general contact kernel of the matrix-free solvers (issue 4 items 1 and 3; issue 10 item 3): contacts whose
// block of W = H M⁻¹ Hᵀ is a full 3×3 matrix, i.e. those touching a body with a tensor inertia (a capsule: lever
// arms not along the normal, anisotropic world inertia). Sphere–sphere and sphere–wall contacts keep the
// closed-form kernel of SweepContact.hpp.
//
// Like the sphere kernel it is matrix-free: the bodies' velocities carry u = W r + q, a contact update reads its
// two bodies, solves its local problem and writes them back. For a body with inverse mass m⁻¹, world inverse
// inertia I⁻¹ and lever arm p, an impulse d moves the contact point by (m⁻¹ 1 − [p]× I⁻¹ [p]×) d, so the
// contact's block is W = F (Σ_bodies m⁻¹ 1 − [p]× I⁻¹ [p]×) Fᵀ (F: rows n, t1, t2), formed once per step
// (prepare_general_contact). The local problem u = W r + b, r ∈ K_μ, û ∈ K*_μ, r ⟂ û is solved by
// solvers/fc/LocalContactSolvers.hpp (analytic cases, Alart–Curnier Newton for coupled sliding), the same local
// solver as the assembled friction solvers.
//
// The contacts are coloured on bodies (BodyColouring.hpp) and stored in colour order; MatrixFreeNsgs sweeps them
// after the sphere contacts in every sweep, colour by colour, and adds their errors to the common residual. All
// functions taking the set run inside the sweep's parallel region (orphaned `omp for`) unless said otherwise, so
// the result is independent of the thread count.
#include <Eigen/Dense>
#include <cstdint>
#include <vector>

#include "solvers/fc/LocalContactSolvers.hpp"
#include "solvers/matrixfree/BodyArrays.hpp"
#include "solvers/matrixfree/BodyColouring.hpp"
#include "solvers/matrixfree/FlexibleContactSweep.hpp"
#include "solvers/matrixfree/RollingResistance.hpp"

namespace talus::matrixfree {

// Which inverse inertia a contact's body uses: none (fixed), the scalar one (a sphere), or the world tensor.
enum class BodyKind : std::int8_t { Fixed, Sphere, Capsule };

struct GeneralContact {
  std::int32_t a = -1, b = -1;  // body indices (a = −1 when fixed); the kinds pick the kernel
  BodyKind kind_a = BodyKind::Fixed, kind_b = BodyKind::Sphere;
  Eigen::Vector3d n, t1, t2;    // frame, n from a to b
  Eigen::Vector3d pa, pb;       // lever arms, world
  double extra = 0.0;           // normal target: u_N + extra >= 0 (gap/h − wall speed, or e u_N,k)
  Eigen::Vector2d extra_t = Eigen::Vector2d::Zero();  // u_T = t·(v_b − v_a) + extra_t: minus a moving surface's
                                                      // tangential velocity (a drum's), so friction drags with it
  solvers::LocalContact<3> local;  // the block of W and what the local solver derives from it (μ inside)
  Eigen::Vector3d r = Eigen::Vector3d::Zero();  // impulse in the frame
  // Rolling resistance (RollingResistance.hpp) of a bead against a fixed or moving obstacle; w = 0: none. A turning
  // obstacle's own rotation, R* (Ω·t1, Ω·t2), is the rolling velocity's zero.
  RollingContact roll;
  Eigen::Vector2d roll_surface = Eigen::Vector2d::Zero();
};

// The general contacts of one solve, in sweep order, and the bodies they act on.
struct GeneralContactSweep {
  std::vector<GeneralContact> contacts;
  ContactColours colours;
  BodyArrays bodies;               // refreshed by the caller before every solve
  std::vector<double> block_sums;  // residual blocks
  // Whether the contacts' rolling rows (GeneralContact::roll with w > 0) are solved and counted in the residual:
  // false for a problem without rolling resistance (generalized-α's position problem).
  bool rolling = false;
  // Contacts of spheres with flexible bodies (FE beams; FlexibleContactSweep.hpp): swept after these, by one
  // thread, in every function below that takes the set.
  FlexibleContactSweep flexible;
  bool empty() const { return contacts.empty() && flexible.empty(); }
};

// Frame (n, t1, t2 given), lever arms, block of W (from the bodies' current inverse inertias) and μ of a contact
// whose a, b and kinds are set.
void prepare_general_contact(GeneralContact& c, const Eigen::Vector3d& n, const Eigen::Vector3d& t1,
                             const Eigen::Vector3d& t2, const Eigen::Vector3d& pa, const Eigen::Vector3d& pb,
                             double mu, const BodyArrays& bodies);

// u = H v + extra of a contact, in its frame (the bodies' current velocities).
Eigen::Vector3d general_contact_velocity(const GeneralContact& c, const BodyArrays& bodies);

// Adds M⁻¹ Hᵀ r of every contact to the bodies' velocities (warm start), and with `rolling` the rolling impulses.
// Inside or outside a parallel region.
void apply_general_impulses(GeneralContactSweep& set);

// One Gauss–Seidel pass over the contacts, colour by colour (inside the sweep's parallel region).
void sweep_general_contacts(GeneralContactSweep& set);

// Per-block squared errors of the contacts (inside the parallel region), and their sum (after a barrier).
void general_residual_blocks(GeneralContactSweep& set);
double general_squared_error(const GeneralContactSweep& set);

// Σ ‖u‖² of the contacts at the current velocities (‖q‖² when called on the free velocities, r = 0).
double general_squared_velocity(const GeneralContactSweep& set);

}  // namespace talus::matrixfree
