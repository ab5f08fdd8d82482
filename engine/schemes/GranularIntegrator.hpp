#pragma once
// The granular stepper (engine/granular/GranularStepper.hpp: beads and capsules with detected contacts, the
// matrix-free solvers) under the one integrator contract (engine/Integrator.hpp). The stepper stamps its stages
// into the integrator's profile as they happen (its Chrome trace then shows them where they fell), applies the
// failure policy itself (GranularParameters::on_failure: RollBack restores the velocities, the only state a step
// changes before its solves succeed) and numbers its steps by Model::step.
//
// It lives in talus_schemes, beside make_integrator, because talus_granular builds on talus_engine, where the
// contract is declared, and the factory must see every stepper.
#include <string>

#include "engine/Integrator.hpp"
#include "engine/granular/GranularStepper.hpp"

namespace talus {

class GranularIntegrator final : public Integrator {
 public:
  // Throws std::invalid_argument as GranularStepper's constructor does.
  GranularIntegrator(Model& model, const granular::GranularParameters& params, std::string name);
  granular::GranularStepper& stepper() { return stepper_; }
  // The last step's report with what only the granular path measures (contacts, colours, penetration, …).
  const granular::GranularStepReport& last_report() const { return report_; }

 private:
  const StepReport& advance() override;
  granular::GranularStepper stepper_;
  // The stepper's report with h filled in, which GranularStepReport does not set (copied per step: its
  // buffers are reused, and a granular step costs far more).
  granular::GranularStepReport report_;
};

}  // namespace talus
