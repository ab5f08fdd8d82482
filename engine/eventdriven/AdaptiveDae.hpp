#pragma once
// One adaptive DAE integrator over a MechanicalSystem with a fixed set of active rows: the method chosen at
// run time (RKF45 index 1, HEM5 index 2, generalized-α index 3), the step-size control of seed 002 eq 12, the
// drift guard of its table 1, the work counters of its table 2, and the dense output of each accepted step.
// The event-driven scheme drives it step by step; integrate() runs it over an interval for the benchmarks.
#include <functional>
#include <memory>
#include <string>
#include <variant>

#include "engine/eventdriven/DenseOutput.hpp"
#include "engine/eventdriven/GeneralizedAlphaIndex3.hpp"
#include "engine/eventdriven/Hem5.hpp"
#include "engine/eventdriven/Rkf45.hpp"

namespace talus::eventdriven {

enum class DaeMethod { Rkf45, Hem5, GeneralizedAlpha };
const char* to_string(DaeMethod m);
DaeMethod parse_dae_method(const std::string& name);  // "rkf45", "hem5", "alpha"; throws std::invalid_argument

struct DaeOptions {
  DaeMethod method = DaeMethod::Hem5;
  DaeStepControl control;
  bool rkf45_projection = false;  // RKF45 only: project (q, v) onto the constraints after every step
  GeneralizedAlphaParameters alpha;
};

enum class DaeStepStatus { Accepted, Singular, Failed };

struct DaeStepResult {
  DaeStepStatus status = DaeStepStatus::Accepted;
  std::string message;
  double h = 0.0;  // size of the accepted step
};

class AdaptiveDae {
 public:
  AdaptiveDae(const MechanicalSystem& system, const DaeOptions& options);
  AdaptiveDae(const AdaptiveDae&) = delete;
  AdaptiveDae& operator=(const AdaptiveDae&) = delete;

  void set_active(const std::vector<Index>& rows);
  const std::vector<Index>& active() const { return ev_.active(); }

  // Fills s.a and s.lambda consistently with the active rows (index-1 solve) and resets generalized-α's
  // auxiliary acceleration: a restart after an event or at the initial time.
  SaddleStatus initialize(DaeState& s);

  // One accepted step from s, ending at or before t_limit (rejected attempts are retried with smaller h).
  // On Accepted, s is the new state and seg (if given) its dense output.
  DaeStepResult step(DaeState& s, double t_limit, DenseSegment* seg);

  double proposed_step() const { return h_; }
  void set_proposed_step(double h) { h_ = h; }
  const DaeOptions& options() const { return opt_; }
  const DaeWork& work() const { return work_; }
  ConstrainedEvaluator& evaluator() { return ev_; }
  int order() const;

 private:
  StepAttempt attempt(const DaeState& s0, double h, DaeState& s1);
  double drift(const DaeState& s);

  const MechanicalSystem& sys_;
  DaeOptions opt_;
  DaeWork work_;
  ConstrainedEvaluator ev_;
  std::variant<Rkf45, Hem5, GeneralizedAlphaIndex3> method_;
  double h_ = 0.0;
  DaeState trial_;
  Vector g_, gd_;
  Matrix G_;
};

// Smooth integration over [s.t, t_end] with the given active rows. The observer sees every accepted step.
struct DaeRunSummary {
  DaeWork work;
  long steps = 0;
  double average_step = 0.0;
  double max_gap_drift = 0.0;       // max over steps and active rows of |g(q)|
  double max_velocity_drift = 0.0;  // max of |G v|
  Vector max_gap_drift_rows, max_velocity_drift_rows;  // per active row
};
DaeRunSummary integrate(const MechanicalSystem& system, const std::vector<Index>& active, DaeState& s,
                        double t_end, const DaeOptions& options,
                        const std::function<void(const DaeState&)>& observer = {});

}  // namespace talus::eventdriven
