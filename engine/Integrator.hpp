#pragma once
// The one integrator contract (issue 11 item 3; docs/architecture.md): every stepper of the engine — Moreau–Jean,
// Newmark/HHT, generalized-α, Schatzman–Paoli, adaptive Moreau–Jean, the event-capturing Runge–Kutta scheme,
// the event-driven scheme and the granular stepper — is advanced by `step(Model&)`, which returns the engine's
// one report (StepReport.hpp), fails by the one FailurePolicy, and times its named stages into one PhaseProfile
// that runners turn into a profile table and a Chrome trace. engine/schemes/SchemeSelection.hpp builds any of
// them from a name and parameters (make_integrator).
//
// An Integrator is built on one model and steps only that one: the schemes keep per-model state between steps
// (accelerations, the previous coordinates, factorised iteration matrices, warm starts, the DAE history), so a
// step of another model would mix two states; step() refuses it with std::invalid_argument.
//
// The cost of the indirection is one virtual call per step, never per contact or body.
#include <memory>
#include <string>
#include <vector>

#include "engine/DofLayout.hpp"
#include "engine/Model.hpp"
#include "engine/StepProfile.hpp"
#include "engine/StepReport.hpp"

namespace talus {

// ---- the failure policy at a failure site (used by every small-path scheme) --------------------------------

// "<scheme> step <k> (t = <t0> -> <t1>)": how every failure message of a step begins.
std::string step_context(const char* scheme, long step, double t0, double t1);

// A one-step solve did not converge (stats.status) and `message` says which step, which problem and which
// interactions. RollBack: throws StepFailure(message), before the caller writes the model. Keep: the message
// replaces stats.message and the caller goes on with the solver's last iterate.
void solve_failed(FailurePolicy policy, solvers::SolverStats& stats, const std::string& message);

// A step could not be completed after its solves (Newton, a projection, a non-finite state). RollBack: throws
// StepFailure(message), before the caller writes the model. Keep: the report's solver status becomes `status`
// and its message `message` (appended when a solve of the step already failed), and the caller applies the step.
void step_failed(FailurePolicy policy, StepReport& report, solvers::SolverStatus status, const std::string& message);

// "" when q and v are finite; else the first system or body with a NaN or Inf ("rigid body 2 (velocity entry
// 17)"), velocities first. q may hold coordinates (layout.n_coords) or increments in velocity coordinates.
std::string non_finite_dof(const Model& model, const DofLayout& layout, const Vector& q, const Vector& v);

// "3 'ball-floor', 5 'ball-wall'" (at most 8 listed), "none" for an empty list: names the interactions of a
// one-step problem that was not solved.
std::string interaction_names(const Model& model, const std::vector<int>& interactions);
// One interaction as the lists above name it: its index and name, and for a detected contact the body (its index
// and centre) and what it touches.
std::string interaction_label(const Model& model, int interaction);

class Integrator {
 public:
  virtual ~Integrator();
  Integrator(const Integrator&) = delete;
  Integrator& operator=(const Integrator&) = delete;

  // Advances `model` by one step of this integrator (a time step; adaptive: one accepted step; event-driven:
  // to the next time of its grid) and returns its report, valid until the next call. Throws
  // std::invalid_argument when `model` is not the model the integrator was built on, and StepFailure as the
  // failure policy says (StepReport.hpp).
  const StepReport& step(Model& model);

  // "moreau_jean(theta=0.5)", "granular(moreau_jean,matrix_free)", …: the scheme and its parameters.
  const std::string& name() const { return name_; }
  FailurePolicy failure_policy() const { return policy_; }
  const Model& model() const { return model_; }

  // Every step's stages (StepProfile.hpp). keep_trace(true) starts a new profile that keeps every stamp, for
  // PhaseProfile::write_chrome_trace.
  const PhaseProfile& profile() const { return *profile_; }
  void keep_trace(bool keep);

 protected:
  Integrator(Model& model, std::string name, FailurePolicy policy);

  // One step of the wrapped scheme, with the failure policy applied.
  virtual const StepReport& advance() = 0;
  // A stepper that stamps its stages into the profile as they happen (granular) sets this, so that step() does
  // not record them a second time from the report.
  bool stamps_profile_ = false;
  PhaseProfile* profile_pointer() { return profile_.get(); }

  // For steppers that write the model as they go and cannot undo it (the adaptive tries, the event-driven
  // events, the event-capturing sub-intervals): `run` on a copy kept of the model, which is put back bit for bit
  // when StepFailure escapes; the failure's message is then prefixed with step_context(scheme, step, t, t + h).
  // The copy's buffers are reused from step to step.
  template <class Run>
  const StepReport& restoring_on_failure(const char* scheme, long step, double h, Run&& run) {
    saved_ = model_;
    try {
      return run();
    } catch (const StepFailure& failure) {
      model_ = saved_;
      throw StepFailure(step_context(scheme, step, saved_.time, saved_.time + h) + ": " + failure.what());
    }
  }

  Model& model_;

 private:
  std::string name_;
  FailurePolicy policy_;
  // On the heap, so that a stepper may keep its address.
  std::unique_ptr<PhaseProfile> profile_;
  Model saved_;
};

// An Integrator over a scheme class with `const StepReport& step()` built as Scheme(model, params); Params carries
// on_failure, which the scheme applies itself.
template <class Scheme>
class SchemeIntegrator final : public Integrator {
 public:
  template <class Params>
  SchemeIntegrator(Model& model, const Params& params, std::string name)
      : Integrator(model, std::move(name), params.on_failure), scheme_(model, params) {}

  Scheme& scheme() { return scheme_; }
  const Scheme& scheme() const { return scheme_; }

 private:
  const StepReport& advance() override { return scheme_.step(); }
  Scheme scheme_;
};

template <class Scheme, class Params>
std::unique_ptr<SchemeIntegrator<Scheme>> make_scheme_integrator(Model& model, const Params& params,
                                                                std::string name) {
  return std::make_unique<SchemeIntegrator<Scheme>>(model, params, std::move(name));
}

}  // namespace talus
