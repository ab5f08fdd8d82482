// The event-driven scheme on a time grid, under the one integrator contract (EventDrivenIntegrator.hpp).
#include "engine/eventdriven/EventDrivenIntegrator.hpp"

#include <cmath>
#include <stdexcept>
#include <utility>

namespace talus::eventdriven {

EventDrivenIntegrator::EventDrivenIntegrator(Model& model, const EventDrivenParameters& params, double h,
                                             std::string name)
    : Integrator(model, std::move(name), FailurePolicy::RollBack), scheme_(model, params), t0_(model.time), h_(h) {
  if (!(h > 0.0) || !std::isfinite(h)) throw std::invalid_argument("event-driven integrator: h must be > 0 and finite");
  report_.time = model.time;
  scheme_.on_event = [this](const EventRecord& r) {
    events_.push_back(r);
    if (r.kind == EventKind::Impact) report_.energy.contact_work += 0.5 * (r.U_minus + r.U_plus) * r.impulse;
    if (r.kind != EventKind::Impact && r.kind != EventKind::Rest) return;
    Vector& P = model_.interactions[static_cast<size_t>(r.interaction)].impulse;
    if (P.size() > 0) P[0] += r.impulse;
  };
}

const StepReport& EventDrivenIntegrator::advance() {
  const long k = report_.step + 1;
  if (failed_)
    throw StepFailure(step_context("event-driven", k, model_.time, model_.time + h_) +
                      ": a step failed before, and the DAE integrator cannot be put back to the restored model");
  const std::size_t events_before = events_.size();
  try {
    return restoring_on_failure("event-driven", k, h_, [&]() -> const StepReport& {
      StageTimer stages(report_.phase_seconds, report_.phase_cpu_seconds);
      for (Interaction& in : model_.interactions) in.impulse = Vector::Zero(law_rows(in.law));
      report_.energy = {};
      const double t_start = model_.time;
      scheme_.advance_to(t0_ + static_cast<double>(k) * h_);
      report_.time = model_.time;
      report_.step = k;
      report_.h = model_.time - t_start;
      report_.active = static_cast<int>(scheme_.closed_interactions().size());
      report_.solver.status = solvers::SolverStatus::Converged;
      stages.stamp(Phase::Integration);
      return report_;
    });
  } catch (const StepFailure&) {
    failed_ = true;
    events_.resize(events_before);
    throw;
  }
}

}  // namespace talus::eventdriven
