#pragma once
// Values spread over processes (a partitioned model under MPI: engine/distributed/BeadDomain.hpp), and the
// collective reductions that turn each process's partial results into the whole's, the same bits on every process.
// One process holding everything uses WholeReductions, whose reductions are the values themselves; the code that
// calls them is then the one-process code (the measurements, engine/analysis/GranularMeasures.hpp, and the regions'
// bisection, engine/distributed/RecursiveBisection.hpp).
#include <cstdint>

namespace talus {

class SpreadReductions {
 public:
  virtual ~SpreadReductions() = default;
  // Collective, in place: every process calls each with the same n, in the same order.
  virtual void sum(double* values, int n) = 0;
  virtual void min(double* values, int n) = 0;
  void max(double* values, int n) {
    for (int k = 0; k < n; ++k) values[k] = -values[k];
    min(values, n);
    for (int k = 0; k < n; ++k) values[k] = -values[k];
  }
};

class WholeReductions final : public SpreadReductions {
 public:
  void sum(double*, int) override {}
  void min(double*, int) override {}
};

// The doubles in their order as unsigned integers (−∞ < … < −0 < +0 < … < +∞) and back: a bisection over the keys
// halves the doubles between two bounds, so it finds an exact value in at most 64 steps.
std::uint64_t ordered_key(double d);
double ordered_double(std::uint64_t key);

// The k-th smallest (from 0) of the values spread over the processes (n here), exactly; NaN when there are at
// most k values in all. Collective: about 66 reductions of one value, whatever the number of values.
double kth_smallest(const double* values, int n, long k, SpreadReductions& reduce);

}  // namespace talus
