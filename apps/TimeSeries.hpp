#pragma once
// The columns of a run's time series and how one row is filled from the model's state and the last step's
// report. Columns, in order (docs/scene-format.md, "Outputs"):
//   t
//   <system>.q<i>, <system>.v<i>     every coordinate and velocity: LTI systems, planar blocks (x, y, θ),
//                                     rigid bodies (q = x, y, z, qw, qx, qy, qz; v = vx, vy, vz, ωx, ωy, ωz body)
//   <interaction>.gap                normal gap g(q) at the row's time
//   <interaction>.P<r>               impulse of the last step per row of the law (normal, then tangential)
//   kinetic, potential, total        energies at the row's time (engine/DiscreteEnergy.hpp)
//   external_work, contact_work, numerical_dissipation, damping_work
//                                     sums over every step so far of the StepReport terms (seed 000 eq 84):
//                                     total − total(0) − external_work = the other three, up to round-off
//   active, solver_iterations, solver_residual, newton_iterations   of the last step
// Sums are accumulated at every step, not only at output rows, so `output: {every: N}` thins the rows without
// changing their values.
#include <array>
#include <span>
#include <string>
#include <vector>

#include "apps/RunOutputs.hpp"
#include "apps/Scene.hpp"
#include "engine/DofLayout.hpp"
#include "engine/StepReport.hpp"

namespace talus::app {

class TimeSeries {
 public:
  explicit TimeSeries(const Scene& scene);

  const std::vector<std::string>& columns() const { return columns_; }
  // Names, units and one-line descriptions of the columns (the HDF5 file's attributes, docs/scene-format.md).
  const ColumnInfo& column_info() const { return info_; }
  // Adds one step's energy terms to the running sums; call after every step.
  void accumulate(const StepReport& report);
  // The running sums (external_work, contact_work, numerical_dissipation, damping_work), for restart archives.
  std::array<double, 4> sums() const { return {external_work_, contact_work_, numerical_dissipation_, damping_work_}; }
  void set_sums(const std::array<double, 4>& s) {
    external_work_ = s[0], contact_work_ = s[1], numerical_dissipation_ = s[2], damping_work_ = s[3];
  }
  // The row of the model's current state; `last` is the last step's report, or null for the initial state.
  std::span<const double> row(const Model& model, const StepReport* last);

 private:
  std::vector<std::string> columns_;
  ColumnInfo info_;
  DofLayout layout_;
  std::vector<int> interactions_;
  Vector q_, v_, gaps_;   // reused buffers
  std::vector<double> row_;
  double external_work_ = 0.0, contact_work_ = 0.0, numerical_dissipation_ = 0.0, damping_work_ = 0.0;
};

}  // namespace talus::app
