#pragma once
// A friction-contact problem between spheres as the matrix-free solvers sweep it, read from FCLIB's global form
// (issue 10 item 3: "a granular step can be dumped as an FCLIB global problem and replayed alone"). The global
// form M v = H r + f, u = Hᵀ v + w (solvers/fc/GlobalFrictionContactProblem.hpp) holds a sphere problem when
//   - M is diagonal with six entries per body, (m, m, m, I, I, I): a sphere's isotropic mass and inertia;
//   - each contact's three columns of H (frame rows n, t1, t2) touch one or two bodies, as e on the second body
//     and −e on the first for the velocities, and −r (n × e) on either for the angular velocities (the lever
//     arms ∓r n run along the normal, as between spheres or a sphere and a wall);
//   - w has no tangential part (w = (extra, 0, 0) per contact).
// These are the problems the granular path dumps (engine/granular/AssembledProblem.hpp). Any other problem is
// refused with the first entry that breaks the form; it can still be solved in its condensed local form
// (solvers/fc). A contact with only one body is one with a fixed obstacle (a wall).
//
// The free velocities v* = M⁻¹ f are the bodies' starting velocities, and the contacts are laid out by the same
// block partition and interface colouring as the granular stepper's on one thread with automatic blocks
// (SweepPartition.hpp, default_partitions), so the replay sweeps in that stepper's order when the file's contacts
// come in its order.
#include <string>
#include <vector>

#include "solvers/core/SolverStats.hpp"
#include "solvers/fc/GlobalFrictionContactProblem.hpp"
#include "solvers/matrixfree/BodyArrays.hpp"
#include "solvers/matrixfree/MatrixFreeNsgs.hpp"
#include "solvers/matrixfree/SweepContact.hpp"
#include "solvers/matrixfree/SweepPartition.hpp"

namespace talus::matrixfree {

struct SphereContactProblem {
  std::vector<SweepContact> contacts;  // the problem's contacts in its order, r = 0
  std::vector<Eigen::Vector3d> v_free, w_free;  // v* = M⁻¹ f
  std::vector<double> inv_mass, inv_inertia;
  int bodies() const { return static_cast<int>(inv_mass.size()); }
};

// Throws std::invalid_argument naming the contact or body and the entry that is not of the sphere form above.
SphereContactProblem sphere_problem_from_global(const solvers::GlobalFrictionContactProblem& g);

// Solves the problem with the matrix-free sweep (Anderson acceleration when params.anderson > 0) from r = 0 (or
// from `r` when it has 3 × contacts entries: a warm start). On return r holds the reactions in the problem's
// contact order and frames (normal first), u = Hᵀ v + w the relative velocities; v and w the bodies' velocities.
struct SphereSolveOutput {
  Eigen::VectorXd r, u;
  std::vector<Eigen::Vector3d> v, w;
};
solvers::SolverStats solve_sphere_problem(const SphereContactProblem& problem, const MatrixFreeParameters& params,
                                          SphereSolveOutput& out, MatrixFreeWorkspace& work);

}  // namespace talus::matrixfree
