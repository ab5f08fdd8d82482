#include "apps/RunLoop.hpp"

namespace talus::app {

const char* to_string(RunStatus s) {
  switch (s) {
    case RunStatus::Completed: return "completed";
    case RunStatus::StepFailed: return "step_failed";
    case RunStatus::Interrupted: return "interrupted";
  }
  return "?";
}

LoopEnd run_steps(long first_step, long planned, const std::function<const StepReport&()>& step,
                  const std::function<double()>& time, const LoopHooks& hooks) {
  LoopEnd end;
  while (end.steps < planned) {
    if (hooks.stop && hooks.stop()) {
      end.status = RunStatus::Interrupted;
      break;
    }
    if (hooks.before_step) hooks.before_step();
    const StepReport* report = nullptr;
    const double t = time();
    try {
      report = &step();
    } catch (const std::exception& e) {
      end.status = RunStatus::StepFailed;
      end.failed_step = first_step + end.steps + 1;
      end.failed_time = t;
      end.failure = e.what();
      if (!dynamic_cast<const StepFailure*>(&e)) end.error = std::current_exception();
      break;
    }
    ++end.steps;
    if (hooks.after_step) hooks.after_step(*report);
  }
  return end;
}

void rethrow_unless_step_failure(const LoopEnd& end) {
  if (end.error) std::rethrow_exception(end.error);
}

}  // namespace talus::app
