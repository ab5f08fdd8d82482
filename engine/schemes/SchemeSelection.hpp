#pragma once
// One entry point for every time-stepping scheme of the engine, so that a scene file, a benchmark or a test can
// pick the scheme by name and parameters: Moreau–Jean (engine/MoreauJean.hpp), nonsmooth Newmark and HHT
// (NonsmoothNewmark.hpp), nonsmooth generalized-α (NonsmoothGeneralizedAlpha.hpp) and Schatzman–Paoli
// (SchatzmanPaoli.hpp). The type erasure costs one indirect call per STEP, never per contact.
#include <functional>
#include <memory>
#include <string>

#include "engine/Model.hpp"
#include "engine/StepReport.hpp"

namespace talus {

// EventDriven is the event-tracking path of engine/eventdriven (issue 6): not a time-stepping scheme, so
// make_integrator refuses it; apps/SceneRun advances it on the output grid.
enum class SchemeKind { MoreauJean, Newmark, Hht, GeneralizedAlpha, SchatzmanPaoli, EventDriven };

// "moreau_jean", "newmark", "hht", "generalized_alpha", "schatzman_paoli", "event_driven".
const char* to_string(SchemeKind k);
// Throws std::invalid_argument listing the valid names.
SchemeKind parse_scheme_kind(const std::string& name);

// The parameters of every scheme; each scheme reads only its own (defaults are the seeds' usual choices).
struct SchemeChoice {
  SchemeKind kind = SchemeKind::GeneralizedAlpha;
  double h = 1e-3;
  double theta = 0.5;       // Moreau–Jean θ; Schatzman–Paoli stiffness weight is sp_theta
  double gamma = 0.5;       // Newmark γ
  double beta = 0.25;       // Newmark β
  double alpha = 0.1;       // HHT α (γ = ½ + α, β = (1 + α)²/4)
  double rho_infinity = 0.8;  // generalized-α spectral radius at infinity
  double sp_theta = 0.25;   // Schatzman–Paoli θ ∈ [0, ½]
  std::string dae_method = "hem5";  // event_driven: smooth-phase integrator (hem5, rkf45, generalized_alpha)
  double dae_tolerance = 1e-8;      // event_driven: its tolerance (seed 002 eq 12)
};

// "moreau_jean(theta=1)", "generalized_alpha(rho=0.8)", … for tables and legends.
std::string describe(const SchemeChoice& c);

class Integrator {
 public:
  Integrator() = default;
  Integrator(std::function<const StepReport&()> step, std::shared_ptr<void> owner)
      : step_(std::move(step)), owner_(std::move(owner)) {}
  // Advances the model by one step (throws StepFailure like the scheme it wraps).
  const StepReport& step() const { return step_(); }
  explicit operator bool() const { return static_cast<bool>(step_); }

 private:
  std::function<const StepReport&()> step_;
  std::shared_ptr<void> owner_;
};

// An Integrator owning a Scheme built on `model` from `params` (used by make_integrator and by runners that
// build a scheme with settings of their own).
template <class Scheme, class Params>
Integrator wrap_scheme(Model& model, const Params& params) {
  auto scheme = std::make_shared<Scheme>(model, params);
  Scheme* raw = scheme.get();
  return Integrator([raw]() -> const StepReport& { return raw->step(); }, std::move(scheme));
}

// Builds the scheme on `model` (which must outlive the integrator). Throws std::invalid_argument on bad
// parameters or a model the scheme does not support.
Integrator make_integrator(Model& model, const SchemeChoice& choice);

}  // namespace talus
