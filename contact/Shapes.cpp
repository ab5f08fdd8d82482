#include "contact/Shapes.hpp"

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

}  // namespace talus::contact
