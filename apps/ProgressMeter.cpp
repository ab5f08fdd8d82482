#include "apps/ProgressMeter.hpp"

#include <algorithm>
#include <cstdio>

namespace talus::app {

namespace {
constexpr auto kTerminalPeriod = std::chrono::milliseconds(200);
constexpr auto kLogPeriod = std::chrono::seconds(5);
}  // namespace

ProgressMeter::ProgressMeter(std::ostream& out, bool tty, bool enabled, double t_end)
    : out_(out), tty_(tty), enabled_(enabled), t_end_(t_end), start_(Clock::now()), last_print_(start_) {}

void ProgressMeter::update(const StepReport& r) {
  if (!enabled_) return;
  max_iterations_ = std::max(max_iterations_, r.solver.iterations);
  // Reading the clock every step costs tens of nanoseconds: negligible beside a step.
  const auto now = Clock::now();
  if (now - last_print_ < (tty_ ? kTerminalPeriod : kLogPeriod)) return;
  print(r, now);
}

void ProgressMeter::print(const StepReport& r, Clock::time_point now) {
  const double dt = std::chrono::duration<double>(now - last_print_).count();
  const double rate = dt > 0.0 ? (r.step - last_step_) / dt : 0.0;
  char line[200];
  std::snprintf(line, sizeof line, "t = %.6g / %.6g s (%3.0f%%)  %.0f steps/s  active %d  solver iterations %d",
                r.time, t_end_, 100.0 * r.time / t_end_, rate, r.active, max_iterations_);
  if (tty_)
    out_ << "\r\033[K" << line << std::flush;  // rewrite the line in place
  else
    out_ << line << '\n' << std::flush;
  last_print_ = now;
  last_step_ = r.step;
  max_iterations_ = 0;
  printed_ = true;
}

void ProgressMeter::finish() {
  if (enabled_ && tty_ && printed_) out_ << "\r\033[K" << std::flush;
}

}  // namespace talus::app
