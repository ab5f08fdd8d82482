#pragma once
// A body store and its contacts spread over processes (a partitioned model under MPI,
// engine/distributed/BeadDomain.hpp), as the measurements (GranularMeasures.hpp) see it: this process's own beads
// come first in the sphere group, the beads after them are copies of other processes' beads (ghosts), and of the
// step's contacts (its stepper's, in order) this process reports some, every contact being reported by exactly
// one process. Given one, each measurement sums this process's share and reduces it over the processes, so every
// process gets the whole assembly's figures without any process holding the whole assembly.
#include "engine/analysis/SpreadReductions.hpp"

namespace talus {

class SpreadBodies : public SpreadReductions {
 public:
  virtual int own_spheres() const = 0;             // spheres [0, own) are this process's
  virtual bool reports(int contact) const = 0;     // whether this process reports contact k of the step
  // Collective: each own sphere's value (own_values[0, own)) to its copies on the other processes
  // (copy_values[own, spheres): the values of this process's copies, from their owners).
  virtual void to_copies(const double* own_values, double* copy_values) = 0;
};

}  // namespace talus
