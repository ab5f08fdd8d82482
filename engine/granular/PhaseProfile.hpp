#pragma once
// Time per phase of every granular step (issue 4 item 7; STYLE.md practice 3: a step is a named list of timed
// stages). The stepper stamps each phase; the profile accumulates totals for the summary table and, when asked,
// keeps every stamp to write a Chrome trace-event JSON (chrome://tracing, Perfetto). Event storage is reserved
// in chunks outside the step's hot loops.
#include <array>
#include <chrono>
#include <ostream>
#include <string>
#include <vector>

namespace talus::granular {

enum class Phase { Broad, Narrow, Assembly, Solve, Integration, Output };
constexpr int kPhaseCount = 6;
const char* to_string(Phase p);

using ProfileClock = std::chrono::steady_clock;

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

}  // namespace talus::granular
