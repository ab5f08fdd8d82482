#include "contact/Shapes.hpp"

#include <stdexcept>

namespace talus::contact {

std::vector<Wall> box_walls(const Eigen::Vector3d& lo, const Eigen::Vector3d& hi) {
  std::vector<Wall> w(5);
  w[0].normal = Eigen::Vector3d::UnitZ(), w[0].offset = lo.z();
  w[1].normal = Eigen::Vector3d::UnitX(), w[1].offset = lo.x();
  w[2].normal = -Eigen::Vector3d::UnitX(), w[2].offset = -hi.x();
  w[3].normal = Eigen::Vector3d::UnitY(), w[3].offset = lo.y();
  w[4].normal = -Eigen::Vector3d::UnitY(), w[4].offset = -hi.y();
  return w;
}

Box rotated_box(const Eigen::Vector3d& centre, const Eigen::Vector3d& half, const Eigen::Vector3d& axis, double angle) {
  if (!(half.minCoeff() > 0.0)) throw std::invalid_argument("box: half extents must be positive");
  Box b;
  b.centre = centre;
  b.half_extent = half;
  b.axes = Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix();
  return b;
}

}  // namespace talus::contact
