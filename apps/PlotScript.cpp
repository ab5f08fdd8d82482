#include "apps/PlotScript.hpp"

#include "apps/PythonInterpreter.hpp"

#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace talus::app {

const std::vector<std::string>& plot_files() {
  static const std::vector<std::string> files{"positions.png", "velocities.png", "reactions.png", "energy.png"};
  return files;
}

std::filesystem::path plot_script_path() { return std::filesystem::path(TALUS_SOURCE_DIR) / "scripts" / "plot_run.py"; }

bool run_plot_script(const std::filesystem::path& dir, std::ostream& log) {
  const std::filesystem::path script = plot_script_path();
  std::string python = python_interpreter(), script_arg = script.string(), dir_arg = dir.string();
  const std::string later = " (plot later with: " + python + " " + script.string() + " " + dir.string() + ")";
  if (!std::filesystem::exists(script)) {
    log << "talus: plots skipped: " << script.string() << " not found" << '\n';
    return false;
  }
  char* argv[] = {python.data(), script_arg.data(), dir_arg.data(), nullptr};
  pid_t pid = 0;
  // No shell: paths with spaces or quotes need no escaping.
  const int err = posix_spawnp(&pid, python.c_str(), nullptr, nullptr, argv, environ);
  if (err != 0) {
    log << "talus: plots skipped: cannot start " << python << ": " << std::strerror(err) << later << '\n';
    return false;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) {
      log << "talus: plots skipped: lost the " << python << " process" << later << '\n';
      return false;
    }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
  // The script has printed its own reason (e.g. matplotlib is not installed).
  log << "talus: plots skipped: plot_run.py failed" << later << '\n';
  return false;
}

}  // namespace talus::app
