// The granular stepper under the one integrator contract (GranularIntegrator.hpp).
#include "engine/schemes/GranularIntegrator.hpp"

#include <utility>

namespace talus {

GranularIntegrator::GranularIntegrator(Model& model, const granular::GranularParameters& params, std::string name)
    : Integrator(model, std::move(name), params.on_failure), stepper_(model, params, profile_pointer()) {
  stamps_profile_ = true;
  report_.time = model.time;
  report_.step = model.step;
}

const StepReport& GranularIntegrator::advance() {
  report_ = stepper_.step();
  report_.h = stepper_.parameters().h;
  return report_;
}

}  // namespace talus
