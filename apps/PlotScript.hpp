#pragma once
// Turns a finished run into PNG figures by calling scripts/plot_run.py (python3 + matplotlib) from the source
// tree this binary was built from. Plotting is a convenience: when python3, matplotlib or the script is
// missing, the run's results stand and the user is told how to plot them later.
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

namespace talus::app {

// The figures the script writes into a run's directory.
const std::vector<std::string>& plot_files();

// TALUS_SOURCE_DIR/scripts/plot_run.py
std::filesystem::path plot_script_path();

// Runs `python3 plot_run.py DIR`. Returns true when the figures were written; otherwise prints one line
// saying why to `log` and returns false.
bool run_plot_script(const std::filesystem::path& dir, std::ostream& log);

}  // namespace talus::app
