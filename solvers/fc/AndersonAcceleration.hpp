#pragma once
// Anderson acceleration (type II; Walker & Ni, SIAM J. Numer. Anal. 49, 2011) of a fixed-point iteration
// x ← G(x), here one NSGS sweep. On singular Delassus matrices (stacks of rigid bodies: more contact rows than
// degrees of freedom) Gauss–Seidel converges linearly at a rate close to 1 along the near-null directions; the
// extrapolation from the last m iterates removes that slow mode (issue 3 robustness target).
//
//   f_k = G(x_k) − x_k,  γ = argmin ‖f_k − ΔF γ‖,  x_{k+1} = G(x_k) − ΔG γ,
//
// with ΔF, ΔG the last m differences of f and G. The small least-squares problem is solved through its
// m × m Gram matrix with a relative Tikhonov shift. All storage is sized once in reset(), and the m × m work has a
// fixed maximum size (m <= kMaxMemory), so a step never allocates.
#include "solvers/core/SparseTypes.hpp"

namespace talus::solvers {

class AndersonAcceleration {
 public:
  static constexpr int kMaxMemory = 16;
  using Small = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor, kMaxMemory, kMaxMemory>;
  using SmallVector = Eigen::Matrix<double, Eigen::Dynamic, 1, Eigen::ColMajor, kMaxMemory, 1>;

  // memory is clamped to [0, kMaxMemory]; 0 disables the acceleration.
  void reset(Index size, int memory);
  // Forget the history (after a rejected extrapolation); the next step only records.
  void restart();
  // previous = x_k, gx = G(x_k) on entry; on return gx holds x_{k+1}. Returns false when it did not
  // extrapolate (no history yet or a degenerate least-squares problem), leaving gx = G(x_k).
  bool step(const Vector& previous, Vector& gx);
  int memory() const { return memory_; }

 private:
  int memory_ = 0;
  int stored_ = 0;  // columns of history in use
  int next_ = 0;    // ring-buffer slot of the next column
  bool has_last_ = false;
  Matrix dF_, dG_;  // size × memory
  Small gram_;      // dF_ᵀ dF_
  Vector f_, last_f_, last_g_;
};

}  // namespace talus::solvers
