#pragma once
// An orthonormal contact frame (n, t1, t2) from a unit normal. Deterministic and continuous away from one
// direction, so that tangential reactions stored in this frame can warm-start the next step.
#include <Eigen/Dense>

namespace talus::contact {

struct ContactFrame {
  Eigen::Vector3d n, t1, t2;
};

ContactFrame make_frame(const Eigen::Vector3d& unit_normal);

}  // namespace talus::contact
