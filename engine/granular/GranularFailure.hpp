#pragma once
// What the granular stepper says about a step it could not complete (issue 11 item 3, one failure policy;
// engine/StepReport.hpp's FailurePolicy): the first non-finite value, naming the body or contact by kind and id
// as the outputs number them, and, for a solve that did not reach its tolerance, the fastest body (where an
// unresolved impact or a runaway most likely is) and where its residual lies (the largest contact error, the
// share of sticking, sliding and open contacts, rolling).
#include <string>
#include <vector>

#include "engine/Model.hpp"
#include "engine/granular/GeneralContacts.hpp"
#include "solvers/matrixfree/PartitionedSolve.hpp"
#include "solvers/matrixfree/SweepContact.hpp"

namespace talus::granular {

// "" when every bead's and capsule's position, velocity, angular velocity (and a capsule's orientation) and the
// clock are finite; else "bead id 3 (index 3): velocity (0, nan, 0)" for the first that is not.
std::string non_finite_body(const Model& model);

// "" when every impulse is finite and so are the bodies' velocities; else which contact or body is not.
std::string non_finite_after_solve(const Model& model, const std::vector<SweepContact>& contacts,
                                   const GeneralContactSet& general);

// "the fastest body after it: bead id 12 at 3.5 m/s" (called on the failed solve's velocities). With `spread` (a
// solve over processes; collective), the fastest of every process's own bodies, the same text on every process.
std::string fastest_body(const Model& model, matrixfree::PartitionedSolve* spread = nullptr);

// Where the failed solve's residual lies (solvers/matrixfree/ResidualBreakdown.hpp), called on its impulses and
// velocities: "the largest contact error: bead id 12 with bead id 40 (7.1e-05); of the bead contacts' squared
// residual: sticking 93 % (16641 contacts), sliding 7 % (6481), open 0 % (1344); at the sticking contacts the
// beads roll on each other: ...". With `spread` (collective) the sums and the largest error are over every
// process's contacts, each counted once, and the text is the same on every process.
std::string residual_report(const Model& model, const std::vector<SweepContact>& contacts,
                            const matrixfree::BodyArrays& beads, matrixfree::PartitionedSolve* spread = nullptr);

}  // namespace talus::granular
