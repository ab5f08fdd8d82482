#pragma once
// A saved copy of everything a Moreau–Jean step reads from and writes to a Model: coordinates, velocities,
// time and the interactions' last gap, relative velocity and impulse (the warm start). The adaptive schemes
// (seed 000 slides 98–107: step doubling, eqs 108–109 and 127) try a step of size h and two of size h/2 from
// the same state, and the event-capturing scheme (slides 108–117) re-integrates from the start of a step
// while it locates an event; both restore this snapshot between the tries. Buffers are reused: once sized,
// saving and restoring allocate nothing.
#include <vector>

#include "engine/DofLayout.hpp"
#include "engine/Model.hpp"

namespace talus {

struct StateSnapshot {
  Vector q, v;
  double time = 0.0;
  std::vector<Vector> gap, velocity, impulse;  // one per interaction

  void save(const Model& model, const DofLayout& layout);
  // The model must have the systems and interactions it had when saved (asserted).
  void restore(Model& model, const DofLayout& layout) const;
};

}  // namespace talus
