#pragma once
// Periodic boundaries of the granular path (issue 4 item 1; the chute "periodic in the flow direction"):
// along a periodic axis the domain is the interval [lower, lower + length) repeated, so a body leaving one end
// re-enters at the other and bodies near opposite ends touch across the seam. Three things follow, all here:
// positions are wrapped back into the interval after a step, distances between bodies use the minimum image
// (the nearest periodic copy), and the cell grid wraps its neighbour cells (contact/CellGrid.hpp).
// Contact frames are built from the minimum-image vector, so they are continuous across the seam; cache keys
// are bead ids, which wrapping never changes.
#include <Eigen/Dense>
#include <cmath>

namespace talus::contact {

struct Periodicity {
  bool axis[3] = {false, false, false};
  Eigen::Vector3d lower = Eigen::Vector3d::Zero();
  Eigen::Vector3d length = Eigen::Vector3d::Zero();  // > 0 along periodic axes

  bool any() const { return axis[0] || axis[1] || axis[2]; }

  // The periodic copy of d nearest to zero (d = x_b − x_a gives the vector between nearest images).
  Eigen::Vector3d minimum_image(Eigen::Vector3d d) const {
    for (int a = 0; a < 3; ++a)
      if (axis[a]) d[a] -= length[a] * std::round(d[a] / length[a]);
    return d;
  }

  // Moves x into [lower, lower + length) along the periodic axes.
  void wrap(Eigen::Vector3d& x) const {
    for (int a = 0; a < 3; ++a) {
      if (!axis[a]) continue;
      x[a] -= length[a] * std::floor((x[a] - lower[a]) / length[a]);
      if (x[a] >= lower[a] + length[a]) x[a] = lower[a];  // rounding of a point just below lower
    }
  }
};

}  // namespace talus::contact
