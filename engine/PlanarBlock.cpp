#include "engine/PlanarBlock.hpp"

#include <cmath>
#include <stdexcept>

namespace talus {

std::array<Eigen::Vector2d, 4> planar_block_corners(const PlanarBlock& b) {
  const double a = 0.5 * b.width, c = 0.5 * b.height;
  return {Eigen::Vector2d(-a, -c), Eigen::Vector2d(a, -c), Eigen::Vector2d(a, c), Eigen::Vector2d(-a, c)};
}

Index add_planar_block(Model& model, const PlanarBlock& block, const NonsmoothLaw& corner_law) {
  if (!(block.width > 0.0) || !(block.height > 0.0))
    throw std::invalid_argument("planar block '" + block.name + "': width and height must be > 0");
  if (!(block.mass > 0.0)) throw std::invalid_argument("planar block '" + block.name + "': mass must be > 0");
  if (!(block.inertia >= 0.0))
    throw std::invalid_argument("planar block '" + block.name + "': inertia must be > 0 (or 0 for the default)");
  const auto* friction = std::get_if<NewtonImpactFrictionLaw>(&corner_law);
  if (!std::holds_alternative<NewtonImpactLaw>(corner_law) && !(friction && friction->dim == 2))
    throw std::invalid_argument("planar block '" + block.name +
                                "': corner law must be a Newton impact law or Newton impact + 2-D friction");

  const double m = block.mass;
  const double I = block.inertia > 0.0 ? block.inertia
                                       : m * (block.width * block.width + block.height * block.height) / 12.0;
  const Eigen::Vector3d weight(m * block.gravity.x(), m * block.gravity.y(), 0.0);

  LagrangianNonlinear sys;
  sys.name = block.name;
  sys.n = 3;
  sys.mass = [m, I](const Vector&, Matrix& M) {
    M.setZero(3, 3);
    M.diagonal() << m, m, I;
  };
  sys.force = [weight](double, const Vector&, const Vector&, Vector& f) { f = weight; };
  sys.force_jacobian_q = [](double, const Vector&, const Vector&, Matrix& J) { J.setZero(3, 3); };
  sys.force_jacobian_v = [](double, const Vector&, const Vector&, Matrix& J) { J.setZero(3, 3); };
  sys.q = block.q0;
  sys.v = block.v0;
  model.nonlinear.push_back(std::move(sys));
  const Index index = static_cast<Index>(model.nonlinear.size()) - 1;

  const int rows = law_rows(corner_law);
  const double ground = block.ground;
  const auto corners = planar_block_corners(block);
  for (int k = 0; k < 4; ++k) {
    const double a = corners[k].x(), b = corners[k].y();
    // Corner position p = (x, y) + R(θ)(a, b), R(θ) = [[cos θ, −sin θ], [sin θ, cos θ]].
    NonlinearRelation rel;
    rel.rows = rows;
    rel.gap = [a, b, ground, rows](const Vector& q, Vector& g) {
      const double s = std::sin(q[2]), c = std::cos(q[2]);
      g.setZero(rows);
      g[0] = q[1] + s * a + c * b - ground;
    };
    rel.jacobian = [a, b, rows](const Vector& q, Matrix& J) {
      const double s = std::sin(q[2]), c = std::cos(q[2]);
      J.setZero(rows, 3);
      J.row(0) << 0.0, 1.0, c * a - s * b;          // ∂p_y/∂q
      if (rows > 1) J.row(1) << 1.0, 0.0, -s * a - c * b;  // ∂p_x/∂q: sliding velocity along +x
    };
    Interaction in;
    in.name = block.name + ".corner" + std::to_string(k);
    in.systems = {SystemRef{SystemFamily::Nonlinear, index}};
    in.relation = std::move(rel);
    in.law = corner_law;
    model.interactions.push_back(std::move(in));
  }
  return index;
}

}  // namespace talus
