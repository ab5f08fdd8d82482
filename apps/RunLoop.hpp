#pragma once
// The one step loop of `talus run` (issue 11 item 5): every scene, on either path and under every integrator,
// is advanced here. The loop knows nothing of files or scene events; a run hands it what to do around each
// step, chosen by what its model holds (apps/SceneRun.cpp: the small path's time series, and ParaView frames when
// the model holds rigid bodies; apps/LargePathRun.cpp: the large path's events, frames, measures and archives).
//
// It ends when the planned steps are done, when a stop is asked for (SIGINT, SIGTERM, Python's interrupt), or
// when a step fails. A failed step has been rolled back by its integrator (FailurePolicy::RollBack,
// engine/StepReport.hpp), so the model still holds the last good state and the run writes it.
#include <atomic>
#include <exception>
#include <functional>
#include <string>

#include "engine/StepReport.hpp"

namespace talus::app {

enum class RunStatus { Completed, StepFailed, Interrupted };
const char* to_string(RunStatus s);

// How the loop ended.
struct LoopEnd {
  RunStatus status = RunStatus::Completed;
  long steps = 0;             // steps completed by this loop
  long failed_step = 0;       // StepFailed: the step that failed (k + 1) …
  double failed_time = 0.0;   // … and the time it started from
  std::string failure;        // StepFailed: the integrator's message
  // StepFailed by an error that is not a StepFailure (the integrator could not compute the step at all): the
  // error itself, for a caller that does not take such errors as a failed step (rethrow_unless_step_failure).
  std::exception_ptr error;
};

struct LoopHooks {
  std::function<bool()> stop;                            // true: end before the next step (Interrupted)
  std::function<void()> before_step;                     // the scene's events before a step (bodies added)
  std::function<void(const StepReport&)> after_step;     // outputs and events after a completed step
};

// Runs up to `planned` steps of `step` (which advances the model by one step and returns its report), the
// first being step first_step + 1 (a restarted run's first step). `time` reads the model's clock, for the failed
// step's start time.
LoopEnd run_steps(long first_step, long planned, const std::function<const StepReport&()>& step,
                  const std::function<double()>& time, const LoopHooks& hooks);

// A loop that ended on an error other than StepFailure rethrows it (the large path's runner: such an error is
// not a failed step whose state could be written; the small path's runner reports either kind the same way).
void rethrow_unless_step_failure(const LoopEnd& end);

}  // namespace talus::app
