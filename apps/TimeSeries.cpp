#include "apps/TimeSeries.hpp"

#include "engine/ConstraintAssembly.hpp"
#include "engine/DiscreteEnergy.hpp"

namespace talus::app {

namespace {
void add(ColumnInfo& info, std::string name, const char* unit, std::string description) {
  info.names.push_back(std::move(name));
  info.units.push_back(unit);
  info.descriptions.push_back(std::move(description));
}

// LTI and nonlinear systems: generalized coordinates whose units the scene's matrices fix ("SI").
void add_generalized_columns(ColumnInfo& info, const std::string& name, Index n) {
  for (Index i = 0; i < n; ++i)
    add(info, name + ".q" + std::to_string(i), "SI", "generalized coordinate " + std::to_string(i) + " of " + name);
  for (Index i = 0; i < n; ++i)
    add(info, name + ".v" + std::to_string(i), "SI/s", "generalized velocity " + std::to_string(i) + " of " + name);
}

void add_rigid_columns(ColumnInfo& info, const std::string& name) {
  const char* q[] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
  for (int i = 0; i < 7; ++i)
    add(info, name + ".q" + std::to_string(i), i < 3 ? "m" : "1",
        std::string(i < 3 ? "position " : "orientation quaternion ") + q[i] + " of " + name + " (world frame)");
  const char* v[] = {"vx", "vy", "vz", "wx", "wy", "wz"};
  for (int i = 0; i < 6; ++i)
    add(info, name + ".v" + std::to_string(i), i < 3 ? "m/s" : "rad/s",
        std::string(i < 3 ? "velocity " : "angular velocity ") + v[i] + " of " + name +
            (i < 3 ? " (world frame)" : " (body frame)"));
}
}  // namespace

TimeSeries::TimeSeries(const Scene& scene)
    : layout_(make_dof_layout(scene.model)), interactions_(all_interactions(scene.model)) {
  const Model& m = scene.model;
  // Detected contacts (engine/detection) come and go: they have no columns of their own.
  interactions_.resize(m.listed_interactions());
  add(info_, "t", "s", "simulated time");
  for (const auto& s : m.lti) add_generalized_columns(info_, s.name, s.dofs());
  for (const auto& s : m.nonlinear) add_generalized_columns(info_, s.name, s.dofs());
  for (Index b = 0; b < m.bodies.count(); ++b) add_rigid_columns(info_, scene.body_names[b]);
  for (const int a : interactions_) {
    const Interaction& in = m.interactions[a];
    add(info_, in.name + ".gap", "m", "normal gap g(q) of " + in.name + " at the row's time (SI length for linear relations)");
    for (int r = 0; r < law_rows(in.law); ++r)
      add(info_, in.name + ".P" + std::to_string(r), "N s",
          "impulse of the last step on row " + std::to_string(r) + " of " + in.name +
              (r == 0 ? " (normal)" : " (tangential)"));
  }
  add(info_, "kinetic", "J", "kinetic energy");
  add(info_, "potential", "J", "potential energy (gravity, springs)");
  add(info_, "total", "J", "kinetic + potential");
  add(info_, "external_work", "J", "work of the external forces, summed over the steps so far");
  add(info_, "contact_work", "J", "work of the contact impulses, summed over the steps so far");
  add(info_, "numerical_dissipation", "J", "energy the scheme dissipated, summed over the steps so far");
  add(info_, "damping_work", "J", "work of the damping forces, summed over the steps so far");
  add(info_, "active", "1", "number of active interactions at the last step");
  add(info_, "solver_iterations", "1", "iterations of the last step's one-step solver");
  add(info_, "solver_residual", "1", "residual of the last step's one-step solver (its own measure)");
  add(info_, "newton_iterations", "1", "Newton iterations of the last step (nonlinear systems)");
  columns_ = info_.names;
  row_.resize(columns_.size());
}

void TimeSeries::accumulate(const StepReport& r) {
  external_work_ += r.energy.external_work;
  contact_work_ += r.energy.contact_work;
  numerical_dissipation_ += r.energy.numerical_dissipation;
  damping_work_ += r.energy.damping_work;
}

std::span<const double> TimeSeries::row(const Model& m, const StepReport* last) {
  gather_coordinates(m, layout_, q_);
  gather_velocities(m, layout_, v_);
  evaluate_normal_gaps(m, layout_, q_, interactions_, gaps_, m.time);
  std::size_t k = 0;
  row_[k++] = m.time;
  const auto put = [&](const auto& x) {
    for (Index i = 0; i < x.size(); ++i) row_[k++] = x[i];
  };
  for (const auto& s : m.lti) put(s.q), put(s.v);
  for (const auto& s : m.nonlinear) put(s.q), put(s.v);
  // Rigid bodies: the gathered global vectors, i.e. x, quaternion (w, x, y, z), v and the body-frame ω (the
  // columns' meaning, TimeSeries.hpp; the store keeps the world-frame ω, DofLayout.hpp converts).
  for (Index b = 0; b < m.bodies.count(); ++b) {
    put(q_.segment<7>(layout_.rigid_coord_offset + 7 * b));
    put(v_.segment<6>(layout_.rigid_vel_offset + 6 * b));
  }
  for (std::size_t a = 0; a < interactions_.size(); ++a) {
    const Interaction& in = m.interactions[a];
    row_[k++] = gaps_[a];
    const int rows = law_rows(in.law);
    // Before the first step, or for an interaction the integrator left out, the impulse is zero.
    for (int r = 0; r < rows; ++r) row_[k++] = r < in.impulse.size() ? in.impulse[r] : 0.0;
  }
  const double kinetic = kinetic_energy(m, layout_, q_, v_);
  const double potential = potential_energy(m, layout_, q_);
  row_[k++] = kinetic;
  row_[k++] = potential;
  row_[k++] = kinetic + potential;
  row_[k++] = external_work_;
  row_[k++] = contact_work_;
  row_[k++] = numerical_dissipation_;
  row_[k++] = damping_work_;
  row_[k++] = last ? last->active : 0.0;
  row_[k++] = last ? last->solver.iterations : 0.0;
  row_[k++] = last ? last->solver.residual : 0.0;
  row_[k++] = last ? last->newton_iterations : 0.0;
  return row_;
}

}  // namespace talus::app
