#pragma once
// Progress of a long run on stderr: on a terminal, one line rewritten in place a few times per second; in a
// log (not a TTY), one plain line every few seconds. It shows the simulated time, the step rate, the active
// contacts and the solver iterations, so a user sees at once whether a run advances and how hard it works.
#include <chrono>
#include <ostream>

#include "engine/StepReport.hpp"

namespace talus::app {

class ProgressMeter {
 public:
  // `enabled` false makes every call a no-op (--quiet).
  ProgressMeter(std::ostream& out, bool tty, bool enabled, double t_end);

  void update(const StepReport& r);  // call after every step: cheap unless a line is due
  void finish();                     // ends the in-place line on a terminal

 private:
  using Clock = std::chrono::steady_clock;
  void print(const StepReport& r, Clock::time_point now);

  std::ostream& out_;
  bool tty_, enabled_;
  double t_end_;
  Clock::time_point start_, last_print_;
  long last_step_ = 0;
  int max_iterations_ = 0;  // since the last line
  bool printed_ = false;
};

}  // namespace talus::app
