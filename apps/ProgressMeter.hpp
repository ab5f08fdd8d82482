#pragma once
// Progress of a long run on stderr: on a terminal, one line rewritten in place a few times per second; in a
// log (not a TTY), one plain line every few seconds. It shows the simulated time, the step rate, the active
// contacts, the solver iterations and an estimate of the wall time left, so a user sees at once whether a run
// advances, how hard it works and when it will end.
#include <chrono>
#include <functional>
#include <ostream>
#include <string>

#include "engine/StepReport.hpp"

namespace talus::app {

// "42 s", "3 min 05 s", "2 h 07 min"; "?" for a negative or non-finite time.
std::string format_duration(double seconds);
// Wall time left for `remaining` simulated seconds when the last `simulated` ones took `wall` seconds. The
// last interval's rate, not the mean since the start: a step costs more as contacts form (a falling lattice
// that piles up slows down tenfold), and the mean then promised a third of the time actually left. Negative
// when it cannot be told yet.
double time_left(double wall, double simulated, double remaining);

class ProgressMeter {
 public:
  // `enabled` false makes every call a no-op (--quiet).
  ProgressMeter(std::ostream& out, bool tty, bool enabled, double t_end);

  // Call after every step: cheap unless a line is due. `detail`, when given, is called only for a line that is
  // printed and appended to it (the large path: residual and penetration).
  void update(const StepReport& r, const std::function<std::string()>& detail = {});
  void finish();                     // ends the in-place line on a terminal

 private:
  using Clock = std::chrono::steady_clock;
  void print(const StepReport& r, Clock::time_point now, const std::string& detail);

  std::ostream& out_;
  bool tty_, enabled_;
  double t_end_;
  double last_time_ = -1.0;  // simulated time at the last line (or the first update)
  Clock::time_point start_, last_print_;
  long last_step_ = 0;
  int max_iterations_ = 0;  // since the last line
  bool printed_ = false;
};

}  // namespace talus::app
