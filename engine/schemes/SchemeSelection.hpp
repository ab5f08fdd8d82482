#pragma once
// One entry point for every stepper of the engine, so that a scene file, a benchmark or a test can pick it by
// name and parameters and step it through the one integrator contract (engine/Integrator.hpp): Moreau–Jean
// (engine/MoreauJean.hpp), nonsmooth Newmark and HHT (NonsmoothNewmark.hpp), nonsmooth generalized-α
// (NonsmoothGeneralizedAlpha.hpp), Schatzman–Paoli (SchatzmanPaoli.hpp), adaptive Moreau–Jean and the
// event-capturing Runge–Kutta scheme (engine/adaptive/AdaptiveIntegrators.hpp), the event-driven scheme
// (engine/eventdriven/EventDrivenIntegrator.hpp) and the granular stepper (GranularIntegrator.hpp).
#include <memory>
#include <string>

#include "engine/Integrator.hpp"
#include "engine/Model.hpp"
#include "engine/StepReport.hpp"

namespace talus {

// Scene files select the first six (apps/SceneLoader.cpp); the last three are reached through make_integrator.
enum class SchemeKind {
  MoreauJean,
  Newmark,
  Hht,
  GeneralizedAlpha,
  SchatzmanPaoli,
  EventDriven,
  AdaptiveMoreauJean,
  EventCapturingRk,
  Granular
};

// "moreau_jean", "newmark", "hht", "generalized_alpha", "schatzman_paoli", "event_driven",
// "adaptive_moreau_jean", "event_capturing_rk", "granular".
const char* to_string(SchemeKind k);
// Throws std::invalid_argument listing the valid names.
SchemeKind parse_scheme_kind(const std::string& name);

// The parameters of every scheme; each scheme reads only its own (defaults are the seeds' usual choices).
struct SchemeChoice {
  SchemeKind kind = SchemeKind::GeneralizedAlpha;
  double h = 1e-3;          // the step; adaptive: the first step tried; event-driven: the grid of its steps
  double theta = 0.5;       // Moreau–Jean θ (also adaptive and event-capturing); Schatzman–Paoli's is sp_theta
  double gamma = 0.5;       // Newmark γ
  double beta = 0.25;       // Newmark β
  double alpha = 0.1;       // HHT α (γ = ½ + α, β = (1 + α)²/4)
  double rho_infinity = 0.8;  // generalized-α spectral radius at infinity
  double sp_theta = 0.25;   // Schatzman–Paoli θ ∈ [0, ½]
  std::string dae_method = "hem5";  // event_driven: smooth-phase integrator (hem5, rkf45, generalized_alpha)
  double dae_tolerance = 1e-8;      // event_driven: its tolerance (seed 002 eq 12)
  double adaptive_atol = 1e-6;      // adaptive_moreau_jean: eq 110's tolerances
  double adaptive_rtol = 1e-6;
  // What a step that cannot be completed does (StepReport.hpp). Keep is refused (std::invalid_argument) by the
  // steppers that cannot apply a failed step: adaptive Moreau–Jean retries it with a smaller step down to h_min,
  // and the event-capturing and event-driven schemes stop inside the step, with no state to keep.
  FailurePolicy on_failure = FailurePolicy::RollBack;
};

// "moreau_jean(theta=1)", "generalized_alpha(rho=0.8)", … for tables and legends.
std::string describe(const SchemeChoice& c);

// Builds the stepper on `model` (which must outlive it); Integrator::name() is describe(choice). The granular
// stepper takes its other settings from granular::GranularParameters' defaults (Moreau–Jean, matrix-free NSGS).
// Throws std::invalid_argument on bad parameters or a model the scheme does not support.
std::unique_ptr<Integrator> make_integrator(Model& model, const SchemeChoice& choice);

}  // namespace talus
