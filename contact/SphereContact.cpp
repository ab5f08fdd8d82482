// Sphere–plane and sphere–sphere gaps and Jacobian rows (see SphereContact.hpp for the conventions).
// A point at lever arm ρ (world) from the centre moves with v + ω_w × ρ, ω_w = R ω_body, so its velocity
// along a direction d is d·v + (ρ × d)·ω_w = d·v + (Rᵀ(ρ × d))·ω_body.
#include "contact/SphereContact.hpp"

#include <stdexcept>

namespace talus::contact {

namespace {

// Fills the three rows of the Jacobian of the velocity of a point at world lever arm rho, in the frame f.
void point_rows(const ContactFrame& f, const Eigen::Vector3d& rho, const Eigen::Matrix3d& R, double sign,
                JacobianBlock& J) {
  const Eigen::Vector3d* d[3] = {&f.n, &f.t1, &f.t2};
  for (int k = 0; k < 3; ++k) {
    J.block<1, 3>(k, 0) = sign * d[k]->transpose();
    J.block<1, 3>(k, 3) = sign * (R.transpose() * rho.cross(*d[k])).transpose();
  }
}

}  // namespace

Eigen::Matrix3d rotation_matrix(const Eigen::Vector4d& q) {
  return Eigen::Quaterniond(q[0], q[1], q[2], q[3]).toRotationMatrix();
}

SpherePlaneContact sphere_plane(const SpherePose& s, const Eigen::Vector3d& n, double offset) {
  SpherePlaneContact c;
  c.gap = n.dot(s.x) - offset - s.radius;
  c.frame = make_frame(n);
  point_rows(c.frame, -s.radius * n, rotation_matrix(s.quat_wxyz), 1.0, c.J);
  return c;
}

SphereSphereContact sphere_sphere(const SpherePose& a, const SpherePose& b) {
  const Eigen::Vector3d d = b.x - a.x;
  const double dist = d.norm();
  if (!(dist > 0.0)) throw std::invalid_argument("sphere-sphere contact: the two centres coincide");
  const Eigen::Vector3d n = d / dist;
  SphereSphereContact c;
  c.gap = dist - a.radius - b.radius;
  c.frame = make_frame(n);
  point_rows(c.frame, a.radius * n, rotation_matrix(a.quat_wxyz), -1.0, c.Ja);
  point_rows(c.frame, -b.radius * n, rotation_matrix(b.quat_wxyz), 1.0, c.Jb);
  return c;
}

}  // namespace talus::contact
