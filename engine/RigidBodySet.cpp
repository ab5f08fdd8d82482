#include "engine/RigidBodySet.hpp"

#include <numbers>
#include <stdexcept>

namespace talus {

namespace {
template <class M>
void grow(M& m) {
  m.conservativeResize(Eigen::NoChange, m.cols() + 1);
}
}  // namespace

Index RigidBodySet::add(const Eigen::Vector3d& x, const Eigen::Vector4d& quat_wxyz, double m,
                        const Eigen::Vector3d& inertia_diag, double r) {
  if (!(m >= 0.0)) throw std::invalid_argument("rigid body: mass must be >= 0 (0 = fixed)");
  if (quat_wxyz.norm() == 0.0) throw std::invalid_argument("rigid body: orientation quaternion is zero");
  const Index i = size();
  grow(position), grow(orientation), grow(velocity), grow(angular_velocity), grow(inertia), grow(force),
      grow(torque);
  mass.conservativeResize(i + 1);
  inv_mass.conservativeResize(i + 1);
  radius.conservativeResize(i + 1);
  position.col(i) = x;
  orientation.col(i) = quat_wxyz.normalized();
  velocity.col(i).setZero();
  angular_velocity.col(i).setZero();
  mass[i] = m;
  inv_mass[i] = m > 0.0 ? 1.0 / m : 0.0;
  inertia.col(i) = inertia_diag;
  radius[i] = r;
  force.col(i).setZero();
  torque.col(i).setZero();
  return i;
}

Index RigidBodySet::add_sphere(const Eigen::Vector3d& x, double r, double density) {
  if (!(r > 0.0) || !(density > 0.0)) throw std::invalid_argument("sphere: radius and density must be > 0");
  const double m = density * 4.0 / 3.0 * std::numbers::pi * r * r * r;
  const double I = 0.4 * m * r * r;
  return add(x, Eigen::Vector4d(1, 0, 0, 0), m, Eigen::Vector3d::Constant(I), r);
}

}  // namespace talus
