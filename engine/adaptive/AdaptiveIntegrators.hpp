#pragma once
// The adaptive Moreau–Jean scheme and the event-capturing Runge–Kutta scheme under the one integrator contract
// (engine/Integrator.hpp).
//  - adaptive Moreau–Jean: one call = one accepted step (its tries and rejections inside), never past the
//    horizon given at construction; the report's h is the accepted step's size, its stages the sum over the
//    tries' Moreau–Jean steps, and its solver, active set and energy those of its last Moreau–Jean half step.
//  - event-capturing RK: one call = one step of size h (its events located inside). It keeps no stage times of
//    its own: the whole step is reported as integration.
// Both write the model as they try, so RollBack keeps a copy of the model and puts it back on a failure (bit
// for bit, rigid bodies included, which a StateSnapshot's world/body ω round trip is not). Neither can keep a
// failed step: make_integrator refuses FailurePolicy::Keep for them.
#include <limits>
#include <string>

#include "engine/Integrator.hpp"
#include "engine/adaptive/AdaptiveMoreauJean.hpp"
#include "engine/adaptive/EventCapturingRk.hpp"

namespace talus {

class AdaptiveMoreauJeanIntegrator final : public Integrator {
 public:
  // t_end: the horizon no step goes past (infinite: none).
  AdaptiveMoreauJeanIntegrator(Model& model, const AdaptiveMoreauJeanParameters& params, std::string name,
                               double t_end = std::numeric_limits<double>::infinity());
  AdaptiveMoreauJean& scheme() { return scheme_; }

 private:
  const StepReport& advance() override;
  AdaptiveMoreauJean scheme_;
  double t_end_;
  StepReport report_;
};

class EventCapturingIntegrator final : public Integrator {
 public:
  EventCapturingIntegrator(Model& model, const EventCapturingParameters& params, std::string name);
  EventCapturingRk& scheme() { return scheme_; }

 private:
  const StepReport& advance() override;
  EventCapturingRk scheme_;
  StepReport report_;
};

}  // namespace talus
