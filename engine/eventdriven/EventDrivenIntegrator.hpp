#pragma once
// The event-driven scheme (EventDriven.hpp, issue 6) under the one integrator contract (engine/Integrator.hpp).
// One call advances to the next time of a grid t₀ + k h (t₀ the model's time at construction), not to the next
// event: a grid gives runners and tests rows at the times the time-stepping schemes give them, and a step that
// always ends, however many events an accumulation packs into it. The events inside the interval are located
// and handled exactly; the interactions' impulses after a step are the impulses of its impacts and rests (zero
// for an interaction that had none), the report's contact work is the impacts' ½ (U⁻ + U⁺) P (seed 000 eq 81)
// and its active set the closed contacts at the end. The smooth phases are integrated to the DAE tolerance and
// report no discrete supply (external and damping work are 0). The whole step is timed as integration.
//
// EventDriven writes the model at every event, so RollBack keeps a copy of the model and puts it back when a
// step fails. Its DAE integrator cannot be put back: after a failed step the integrator refuses further steps.
// Keep is not offered (make_integrator refuses it).
#include <string>
#include <vector>

#include "engine/Integrator.hpp"
#include "engine/eventdriven/EventDriven.hpp"

namespace talus::eventdriven {

class EventDrivenIntegrator final : public Integrator {
 public:
  // Throws std::invalid_argument for h <= 0 and as EventDriven's constructor does.
  EventDrivenIntegrator(Model& model, const EventDrivenParameters& params, double h, std::string name);
  EventDriven& scheme() { return scheme_; }
  // Every event since construction, in time order.
  const std::vector<EventRecord>& events() const { return events_; }

 private:
  const StepReport& advance() override;
  EventDriven scheme_;
  double t0_, h_;
  bool failed_ = false;
  StepReport report_;
  std::vector<EventRecord> events_;
};

}  // namespace talus::eventdriven
