#pragma once
// Locating an event inside one step of dense output (seed 000 slides 20–24; seed 003 slide 11 "root-finding
// procedure"): Brent's method on a bracket [a, b] with f(a) > 0 >= f(b), which keeps a bracket at every
// iteration (so it never loses the root, unlike Newton) and converges superlinearly on smooth functions.
#include <functional>

namespace talus::eventdriven {

struct Root {
  double x = 0.0;      // the root (the bracket end where f <= 0 side is reached, within tolerance)
  int evaluations = 0;
};

// f(a) = fa > 0 and f(b) = fb <= 0 are given (so that an analytically known end value such as the limit of a
// deflated function at 0 can be passed). Stops when the bracket is shorter than 2 tol (+ round-off of x).
// The returned x always satisfies f(x) <= 0 or lies within tol of such a point, so an event is never placed
// before the function has actually crossed.
Root find_first_crossing(const std::function<double(double)>& f, double a, double fa, double b, double fb,
                         double tol);

}  // namespace talus::eventdriven
