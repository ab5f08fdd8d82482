#pragma once
// Per-contact complementarity functions of the friction-contact problem (seed 004, Coulomb's law and the
// friction cone; Alart & Curnier 1991): the Alart–Curnier function Φ(u, r) with one element of its generalized
// (Clarke/Bouligand) Jacobian, and the De Saxcé natural map that every friction solver stops on.
// They live together, per contact and allocation-free, so that the global semismooth Newton and the local
// solvers of NSGS evaluate exactly the same kernels.
//
// Alart–Curnier, for a contact with friction coefficient μ, normal row N and tangent rows T (dim − 1 of them):
//   Φ_N = r_N − [r_N − ρ_N u_N]_+
//   Φ_T = r_T − proj_{D(R)}(r_T − ρ_T u_T),   D(R) = { x : ‖x‖ ≤ R },
//   R = μ [r_N − ρ_N u_N]_+   (Standard)   or   R = μ [r_N]_+   (JeanMoreau).
// Φ = 0 is Coulomb's law on (u, r) itself — the classical velocities, not De Saxcé's û = u + μ‖u_T‖ n — and its
// zeros are exactly the solutions of the De Saxcé complementarity K* ∋ û ⟂ r ∈ K (docs/semismooth-newton.md
// gives the case-by-case argument). ρ_N, ρ_T > 0 change the conditioning, never the zeros; ρ_T is one scalar
// for all tangent rows because a per-row ρ_T would rotate the sliding direction.
namespace talus::solvers {

enum class AlartCurnierVariant {
  Standard,    // disk radius μ [r_N − ρ_N u_N]_+ (Alart & Curnier 1991)
  JeanMoreau,  // disk radius μ [r_N]_+ (the variant Jean and Moreau used in NSCD)
};

struct AlartCurnierRho {
  double normal = 1.0;   // ρ_N, units of reaction / velocity (1 / W_NN is the natural scale)
  double tangent = 1.0;  // ρ_T, shared by the tangent rows
};

// Evaluates Φ(u, r) for one contact (dim = 2 or 3, normal first) into phi[dim]. When dphi_dr and dphi_du are
// non-null they receive, row-major dim × dim, the blocks A = ∂Φ/∂r and B = ∂Φ/∂u of one element of the
// generalized Jacobian. At the kinks the element is chosen so that A = I on a contact that takes off
// (Φ = r there), which keeps the global Jacobian A + B W invertible for open contacts whatever W is.
void alart_curnier(int dim, double mu, const double* u, const double* r, AlartCurnierRho rho,
                   AlartCurnierVariant variant, double* phi, double* dphi_dr = nullptr,
                   double* dphi_du = nullptr);

// ρ_N = 1 / W_NN and ρ_T = (dim − 1) / trace(W_TT) from the contact's diagonal block of W (row-major
// dim × dim): the step that would exactly solve a decoupled contact. A non-positive diagonal (a contact W
// does not see) falls back to `fallback`, the caller's scale for such contacts.
AlartCurnierRho alart_curnier_rho_from_block(int dim, const double* block, double fallback);

}  // namespace talus::solvers
