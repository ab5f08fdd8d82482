// Brent's zero finder (R. P. Brent, "Algorithms for minimization without derivatives", 1973, ch. 4): inverse
// quadratic interpolation or secant steps, falling back to bisection whenever they would not shrink the
// bracket fast enough. Written for a bracket with a known sign pattern (see RootFinding.hpp).
#include "engine/eventdriven/RootFinding.hpp"

#include <cassert>
#include <cmath>
#include <limits>
#include <utility>

namespace talus::eventdriven {

Root find_first_crossing(const std::function<double(double)>& f, double a, double fa, double b, double fb,
                         double tol) {
  assert(fa > 0.0 && fb <= 0.0);
  Root out;
  if (fb == 0.0) {
    out.x = b;
    return out;
  }
  const double eps = std::numeric_limits<double>::epsilon();
  double c = a, fc = fa, d = b - a, e = d;
  for (int it = 0; it < 200; ++it) {
    if ((fb > 0.0) == (fc > 0.0)) {  // keep the root between b and c
      c = a;
      fc = fa;
      d = e = b - a;
    }
    if (std::abs(fc) < std::abs(fb)) {
      a = b; b = c; c = a;
      fa = fb; fb = fc; fc = fa;
    }
    const double tol1 = 2.0 * eps * std::abs(b) + 0.5 * tol;
    const double xm = 0.5 * (c - b);
    if (std::abs(xm) <= tol1 || fb == 0.0) break;
    if (std::abs(e) >= tol1 && std::abs(fa) > std::abs(fb)) {
      double p, q, r;
      const double s = fb / fa;
      if (a == c) {
        p = 2.0 * xm * s;
        q = 1.0 - s;
      } else {
        q = fa / fc;
        r = fb / fc;
        p = s * (2.0 * xm * q * (q - r) - (b - a) * (r - 1.0));
        q = (q - 1.0) * (r - 1.0) * (s - 1.0);
      }
      if (p > 0.0) q = -q;
      p = std::abs(p);
      if (2.0 * p < std::min(3.0 * xm * q - std::abs(tol1 * q), std::abs(e * q))) {
        e = d;
        d = p / q;
      } else {
        d = xm;
        e = d;
      }
    } else {
      d = xm;
      e = d;
    }
    a = b;
    fa = fb;
    b += std::abs(d) > tol1 ? d : (xm > 0.0 ? tol1 : -tol1);
    fb = f(b);
    ++out.evaluations;
  }
  // b is the best estimate; report the end of the final bracket on the crossed (f <= 0) side.
  out.x = fb <= 0.0 ? b : c;
  return out;
}

}  // namespace talus::eventdriven
