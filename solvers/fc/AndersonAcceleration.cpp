// Anderson acceleration of NSGS sweeps (see AndersonAcceleration.hpp).
#include "solvers/fc/AndersonAcceleration.hpp"

#include <Eigen/Cholesky>
#include <algorithm>

namespace talus::solvers {

void AndersonAcceleration::reset(Index size, int memory) {
  memory_ = std::clamp(memory, 0, kMaxMemory);
  dF_.setZero(size, memory_);
  dG_.setZero(size, memory_);
  gram_.setZero(memory_, memory_);
  f_.setZero(size);
  last_f_.setZero(size);
  last_g_.setZero(size);
  restart();
}

void AndersonAcceleration::restart() {
  stored_ = 0;
  next_ = 0;
  has_last_ = false;
}

bool AndersonAcceleration::step(const Vector& previous, Vector& gx) {
  if (memory_ <= 0) return false;
  f_ = gx - previous;
  if (has_last_) {
    const int slot = next_;
    dF_.col(slot) = f_ - last_f_;
    dG_.col(slot) = gx - last_g_;
    next_ = (next_ + 1) % memory_;
    if (stored_ < memory_) ++stored_;
    for (int j = 0; j < stored_; ++j) gram_(slot, j) = gram_(j, slot) = dF_.col(slot).dot(dF_.col(j));
  }
  last_f_ = f_;
  last_g_ = gx;
  has_last_ = true;
  if (stored_ == 0) return false;

  const int m = stored_;
  SmallVector rhs(m);
  for (int j = 0; j < m; ++j) rhs[j] = dF_.col(j).dot(f_);
  Small system = gram_.topLeftCorner(m, m);
  const double shift = 1e-12 * system.trace();
  if (!(shift > 0.0)) return false;
  system.diagonal().array() += shift;
  const Eigen::LDLT<Small> ldlt(system);
  if (ldlt.info() != Eigen::Success) return false;
  const SmallVector gamma = ldlt.solve(rhs);
  if (!gamma.allFinite()) return false;
  gx.noalias() -= dG_.leftCols(m) * gamma;
  return true;
}

}  // namespace talus::solvers
