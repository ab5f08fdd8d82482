#include "contact/ContactFrame.hpp"

#include <cmath>

namespace talus::contact {

ContactFrame make_frame(const Eigen::Vector3d& n) {
  // Branch-free orthonormal basis of Duff et al. (2017), "Building an Orthonormal Basis, Revisited".
  const double sign = std::copysign(1.0, n.z());
  const double a = -1.0 / (sign + n.z());
  const double b = n.x() * n.y() * a;
  ContactFrame f;
  f.n = n;
  f.t1 = Eigen::Vector3d(1.0 + sign * n.x() * n.x() * a, sign * b, -sign * n.x());
  f.t2 = Eigen::Vector3d(b, sign + n.y() * n.y() * a, -n.y());
  return f;
}

}  // namespace talus::contact
