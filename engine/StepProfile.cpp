#include "engine/StepProfile.hpp"

#include <ctime>

#include <cstdio>
#include <fstream>
#include <iomanip>
#include <stdexcept>

namespace talus {

const char* to_string(Phase p) {
  switch (p) {
    case Phase::Broad: return "broad";
    case Phase::Narrow: return "narrow";
    case Phase::Assembly: return "assembly";
    case Phase::Solve: return "solve";
    case Phase::Integration: return "integration";
    case Phase::Output: return "output";
  }
  return "?";
}

double thread_cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

StageTimer::StageTimer(PhaseSeconds& wall, PhaseSeconds& cpu)
    : wall_(wall), cpu_(cpu), start_(ProfileClock::now()), last_(start_), cpu_last_(thread_cpu_seconds()) {
  wall_.fill(0.0);
  cpu_.fill(0.0);
}

ProfileClock::time_point StageTimer::stamp(Phase p) {
  const ProfileClock::time_point now = ProfileClock::now();
  const double cpu = thread_cpu_seconds();
  wall_[static_cast<int>(p)] += std::chrono::duration<double>(now - last_).count();
  cpu_[static_cast<int>(p)] += cpu - cpu_last_;
  last_ = now, cpu_last_ = cpu;
  return now;
}

void PhaseProfile::record_step(ProfileClock::time_point start, const PhaseSeconds& seconds, long step) {
  for (int k = 0; k < kPhaseCount; ++k) {
    if (seconds[k] <= 0.0) continue;
    const auto end = start + std::chrono::duration_cast<ProfileClock::duration>(std::chrono::duration<double>(seconds[k]));
    record(static_cast<Phase>(k), start, end, step);
    start = end;
  }
  count_step();
}

PhaseProfile::PhaseProfile(bool keep_events) : keep_events_(keep_events), origin_(ProfileClock::now()) {}

void PhaseProfile::record(Phase p, ProfileClock::time_point start, ProfileClock::time_point end, long step) {
  const double s = std::chrono::duration<double>(end - start).count();
  totals_[static_cast<int>(p)] += s;
  if (!keep_events_) return;
  if (events_.size() == events_.capacity()) events_.reserve(events_.size() + 65536);
  events_.push_back({p, std::chrono::duration<double>(start - origin_).count(), s, step});
}

double PhaseProfile::total() const {
  double t = 0.0;
  for (double v : totals_) t += v;
  return t;
}

void PhaseProfile::write_chrome_trace(const std::string& path) const {
  std::ofstream f(path);
  if (!f) throw std::runtime_error(path + ": cannot write the trace file");
  f << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  char line[256];
  for (std::size_t i = 0; i < events_.size(); ++i) {
    const PhaseStamp& e = events_[i];
    std::snprintf(line, sizeof line,
                  "{\"name\":\"%s\",\"cat\":\"step\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":%.3f,\"dur\":%.3f,"
                  "\"args\":{\"step\":%ld}}%s\n",
                  to_string(e.phase), e.start_s * 1e6, e.seconds * 1e6, e.step, i + 1 < events_.size() ? "," : "");
    f << line;
  }
  f << "]}\n";
  if (!f) throw std::runtime_error(path + ": write failed");
}

void PhaseProfile::print_summary(std::ostream& out) const {
  const double all = total();
  out << "phase          total [s]   per step [ms]   share\n";
  for (int k = 0; k < kPhaseCount; ++k) {
    char line[128];
    std::snprintf(line, sizeof line, "%-12s %11.3f %15.3f %6.1f %%\n", to_string(static_cast<Phase>(k)), totals_[k],
                  steps_ > 0 ? 1e3 * totals_[k] / steps_ : 0.0, all > 0 ? 100.0 * totals_[k] / all : 0.0);
    out << line;
  }
  char line[128];
  std::snprintf(line, sizeof line, "%-12s %11.3f %15.3f   (%ld steps)\n", "all", all, steps_ > 0 ? 1e3 * all / steps_ : 0.0,
                steps_);
  out << line;
}

}  // namespace talus
