// The adaptive and event-capturing schemes under the one integrator contract (AdaptiveIntegrators.hpp).
#include "engine/adaptive/AdaptiveIntegrators.hpp"

#include <utility>

namespace talus {

AdaptiveMoreauJeanIntegrator::AdaptiveMoreauJeanIntegrator(Model& model, const AdaptiveMoreauJeanParameters& params,
                                                           std::string name, double t_end)
    : Integrator(model, std::move(name), FailurePolicy::RollBack), scheme_(model, params), t_end_(t_end) {
  report_.time = model.time;
}

const StepReport& AdaptiveMoreauJeanIntegrator::advance() {
  const long k = report_.step + 1;
  return restoring_on_failure("adaptive Moreau-Jean", k, scheme_.next_step_size(), [&]() -> const StepReport& {
    const double h = scheme_.step(t_end_);
    const StepReport& last = scheme_.last_scheme_report();
    report_.time = model_.time;
    report_.step = k;
    report_.h = h;
    report_.active = last.active;
    report_.solver = last.solver;
    report_.newton_iterations = last.newton_iterations;
    report_.energy = last.energy;
    report_.phase_seconds = scheme_.phase_seconds();
    report_.phase_cpu_seconds = scheme_.phase_cpu_seconds();
    return report_;
  });
}

EventCapturingIntegrator::EventCapturingIntegrator(Model& model, const EventCapturingParameters& params,
                                                   std::string name)
    : Integrator(model, std::move(name), FailurePolicy::RollBack), scheme_(model, params) {
  report_.time = model.time;
}

const StepReport& EventCapturingIntegrator::advance() {
  const long k = report_.step + 1;
  const double h = scheme_.parameters().h;
  return restoring_on_failure("event-capturing RK", k, h, [&]() -> const StepReport& {
    StageTimer stages(report_.phase_seconds, report_.phase_cpu_seconds);
    scheme_.step();
    report_.time = model_.time;
    report_.step = k;
    report_.h = h;
    report_.solver.status = solvers::SolverStatus::Converged;
    stages.stamp(Phase::Integration);
    return report_;
  });
}

}  // namespace talus
