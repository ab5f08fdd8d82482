#include "apps/TimeSeries.hpp"

#include "engine/ConstraintAssembly.hpp"
#include "engine/DiscreteEnergy.hpp"

namespace talus::app {

namespace {
void add_state_columns(std::vector<std::string>& cols, const std::string& name, Index nq, Index nv) {
  for (Index i = 0; i < nq; ++i) cols.push_back(name + ".q" + std::to_string(i));
  for (Index i = 0; i < nv; ++i) cols.push_back(name + ".v" + std::to_string(i));
}
}  // namespace

TimeSeries::TimeSeries(const Scene& scene)
    : layout_(make_dof_layout(scene.model)), interactions_(all_interactions(scene.model)) {
  const Model& m = scene.model;
  columns_.push_back("t");
  for (const auto& s : m.lti) add_state_columns(columns_, s.name, s.dofs(), s.dofs());
  for (const auto& s : m.nonlinear) add_state_columns(columns_, s.name, s.dofs(), s.dofs());
  for (Index b = 0; b < m.bodies.size(); ++b) add_state_columns(columns_, scene.body_names[b], 7, 6);
  for (const auto& in : m.interactions) {
    columns_.push_back(in.name + ".gap");
    for (int r = 0; r < law_rows(in.law); ++r) columns_.push_back(in.name + ".P" + std::to_string(r));
  }
  for (const char* c : {"kinetic", "potential", "total", "external_work", "contact_work", "numerical_dissipation",
                        "damping_work", "active", "solver_iterations", "solver_residual", "newton_iterations"})
    columns_.push_back(c);
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
  evaluate_normal_gaps(m, layout_, q_, interactions_, gaps_);
  std::size_t k = 0;
  row_[k++] = m.time;
  const auto put = [&](const auto& x) {
    for (Index i = 0; i < x.size(); ++i) row_[k++] = x[i];
  };
  for (const auto& s : m.lti) put(s.q), put(s.v);
  for (const auto& s : m.nonlinear) put(s.q), put(s.v);
  for (Index b = 0; b < m.bodies.size(); ++b) {
    put(m.bodies.position.col(b)), put(m.bodies.orientation.col(b));
    put(m.bodies.velocity.col(b)), put(m.bodies.angular_velocity.col(b));
  }
  for (std::size_t a = 0; a < m.interactions.size(); ++a) {
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
