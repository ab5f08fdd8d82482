#pragma once
// Time per phase of every step, for every integrator (issue 4 item 7, issue 11 item 3; STYLE.md practice 3: a
// step is a named list of timed stages). An integrator times its stages with a StageTimer into its report
// (StepReport::phase_seconds); the granular stepper also stamps them into a profile as they happen, and the
// single-scene runner records each report (record_step). The profile accumulates totals for the summary table
// and, when asked, keeps every stamp to write a Chrome trace-event JSON (chrome://tracing, Perfetto). Event
// storage is reserved in chunks outside the step's hot loops.
// Phases: broad and narrow = contact detection (candidate pairs; exact contacts, frames, active sets),
// assembly = free velocities, Jacobians and W or its operator, solve = the one-step problem (Newton iterations
// included), integration = the new state and the stored reactions, output = files.
#include <array>
#include <chrono>
#include <ostream>
#include <string>
#include <vector>

namespace talus {

enum class Phase { Broad, Narrow, Assembly, Solve, Integration, Output };
constexpr int kPhaseCount = 6;
const char* to_string(Phase p);

using ProfileClock = std::chrono::steady_clock;
using PhaseSeconds = std::array<double, kPhaseCount>;

// CPU time of the calling thread [s]: a step's whole cost with one thread, and what the wall time of a loaded
// machine cannot tell (time spent descheduled is not counted).
double thread_cpu_seconds();

// Times the consecutive stages of one step: each stamp(p) ends the running stage, adds its wall and CPU time to
// phase p of the two arrays (zeroed by the constructor), and starts the next stage.
class StageTimer {
 public:
  StageTimer(PhaseSeconds& wall, PhaseSeconds& cpu);
  ProfileClock::time_point stamp(Phase p);
  ProfileClock::time_point started() const { return start_; }

 private:
  PhaseSeconds& wall_;
  PhaseSeconds& cpu_;
  ProfileClock::time_point start_, last_;
  double cpu_last_;
};

struct PhaseStamp {
  Phase phase;
  double start_s;     // since the profile's origin
  double seconds;
  long step;
};

class PhaseProfile {
 public:
  explicit PhaseProfile(bool keep_events = false);

  void record(Phase p, ProfileClock::time_point start, ProfileClock::time_point end, long step);
  // A whole step from its report's phase times: the phases laid end to end from `start`, in their order (an
  // integrator that alternates stages, as a Newton loop does, reports each stage's total); counts the step.
  void record_step(ProfileClock::time_point start, const PhaseSeconds& seconds, long step);

  double total(Phase p) const { return totals_[static_cast<int>(p)]; }
  double total() const;
  long steps() const { return steps_; }
  void count_step() { ++steps_; }

  // Writes {"traceEvents": [...]} with one complete event ("ph": "X") per stamp. Throws std::runtime_error.
  void write_chrome_trace(const std::string& path) const;

  // Phase, total seconds, ms per step, share of the total.
  void print_summary(std::ostream& out) const;

 private:
  bool keep_events_;
  ProfileClock::time_point origin_;
  std::array<double, kPhaseCount> totals_{};
  long steps_ = 0;
  std::vector<PhaseStamp> events_;
};

}  // namespace talus
