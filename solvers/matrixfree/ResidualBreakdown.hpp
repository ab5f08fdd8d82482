#pragma once
// Where the residual of a bead-contact solve lies (a solve that does not converge is reported with the contact,
// not only the step: engine/granular/GranularFailure.hpp): the common residual's squares (FrictionContactProblem.hpp, natural map with
// De Saxcé's modified velocity) summed by the contacts' state — open (r_N = 0), sticking (r strictly inside its
// cone) and sliding (on its boundary) — the contact with the largest error, and, at the sticking contacts, the
// tangential slip split into the part of the beads' translations, (v_b − v_a)_T, and that of their spins,
// −(r_b ω_b + r_a ω_a) × n (MatrixFreeNsgs.hpp, contact_velocity). Where those two are large and their sum, the
// slip, is small, the beads roll on each other: the pile is moving along a rolling mechanism that the sticking
// contacts hardly resist, the slow mode of a settling pile's solve (docs/stack-height.md, "What a settling pile's
// slow mode is").
#include <array>
#include <functional>
#include <vector>

#include "solvers/matrixfree/BodyArrays.hpp"
#include "solvers/matrixfree/SweepContact.hpp"

namespace talus::matrixfree {

struct ResidualBreakdown {
  struct Share {
    double contacts = 0.0;  // a count, kept as a double so that the breakdown sums over processes as one array
    double squared = 0.0;   // Σ of the contacts' squared natural-map errors
  };
  Share open, sticking, sliding;
  // Over the sticking contacts: Σ ‖(v_b − v_a)_T‖², Σ ‖(r_b ω_b + r_a ω_a) × n‖², and Σ ‖u_T‖² (the slip itself).
  double translation_slip = 0.0, spin_slip = 0.0, slip = 0.0;
  int worst = -1;             // index of the contact with the largest error (−1: none)
  double worst_error = -1.0;  // its error (not squared)

  double squared() const { return open.squared + sticking.squared + sliding.squared; }
  // (translation_slip + spin_slip) / (2 slip): ~1 for independent slips, ≫ 1 where the beads roll.
  double rolling_ratio() const;

  // The sums as one array (for a sum over processes) and back.
  static constexpr int kSums = 9;
  std::array<double, kSums> sums() const;
  void set_sums(const std::array<double, kSums>& s);
};

// A contact's state as the breakdown counts it: 0 open, 1 sticking, 2 sliding. Sliding includes impulses within
// 1e-9 (relative) of the cone's boundary, where the exact local solve puts them.
int contact_state(const SweepContact& c);

// The breakdown of contacts[i] for every i with counted(i) (empty: all), at the bodies' current velocities.
ResidualBreakdown residual_breakdown(const std::vector<SweepContact>& contacts, const BodyArrays& beads,
                                     const std::function<bool(int)>& counted = {});

}  // namespace talus::matrixfree
