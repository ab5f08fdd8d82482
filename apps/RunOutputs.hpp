#pragma once
// The files of one run in its output directory: timeseries.csv, timeseries.h5 and run.json. They are written
// under temporary names (".timeseries.csv.partial", …) and renamed into place when the run ends — completed,
// stopped by a failed step, or interrupted — so a run that dies (killed, out of disk, HDF5 error) never leaves
// a half-written file under a final name and never destroys the previous run's results before replacing them.
//
// A directory that holds an earlier run (its run.json, time series, events, figures, or a granular run's
// files) is refused unless `overwrite` is set; with it, the earlier run's files are removed as one set when
// the new run commits, so the directory never mixes two runs. Temporary files left by a run that was killed
// (SIGKILL, power loss) are removed when the next run into the directory starts; a run ended by a second
// SIGINT/SIGTERM removes its own from the signal handler (remove_partial_files_from_signal_handler).
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "apps/CsvWriter.hpp"
#include "apps/Hdf5Writer.hpp"

namespace talus::app {

inline constexpr const char* kCsvFile = "timeseries.csv";
inline constexpr const char* kHdf5File = "timeseries.h5";
inline constexpr const char* kRunJsonFile = "run.json";
inline constexpr const char* kEventsFile = "events.csv";

// What the time series' columns hold, for the HDF5 attributes.
struct ColumnInfo {
  std::vector<std::string> names, units, descriptions;
};

class RunOutputs {
 public:
  // Checks the directory (creates it if needed; refuses an earlier run without `overwrite`), removes temporary
  // files a killed run left there and opens the new temporary files. Throws std::runtime_error naming the
  // directory and the files when it cannot or must not, before any existing file is touched.
  RunOutputs(const std::filesystem::path& dir, const ColumnInfo& columns,
             const std::vector<std::pair<std::string, std::string>>& hdf5_attributes, bool overwrite = false);
  // Without commit(): removes the temporary files; the directory keeps whatever it held before.
  ~RunOutputs();
  RunOutputs(const RunOutputs&) = delete;
  RunOutputs& operator=(const RunOutputs&) = delete;

  void append(std::span<const double> row);
  void flush();
  // Closes the time series, moves them into place, writes run.json (also through a temporary file) and
  // removes the other files of an earlier run (figures, events, a granular run's series), which no longer
  // describe these results.
  void commit(const std::string& run_json);

  const std::filesystem::path& directory() const { return dir_; }

 private:
  std::filesystem::path temporary(const char* name) const;

  std::filesystem::path dir_;
  std::unique_ptr<CsvWriter> csv_;
  std::unique_ptr<Hdf5Writer> hdf5_;
  bool committed_ = false;
};

// A file that runs of either kind write (time series, run summaries, restart archives, ParaView series,
// figures), by name.
bool is_run_file(const std::string& name);
// A process's piece of a partitioned run's restart archive, restart_sSTEP_pK.h5 (apps/RestartPieces.hpp).
bool is_restart_piece(const std::string& name);
// The files in `dir` that belong to an earlier run (single-scene or granular), by name.
std::vector<std::string> earlier_run_files(const std::filesystem::path& dir);

// Writes `content` to `file` through a temporary file in the same directory and a rename, so `file` is either
// the old one or the whole new one. Throws std::runtime_error naming the file.
void write_file_atomically(const std::filesystem::path& file, const std::string& content);

// Unlinks every temporary file an open RunOutputs holds; async-signal-safe (no allocation, no locks): the CLI
// calls it when a second SIGINT or SIGTERM ends the process at once.
void remove_partial_files_from_signal_handler() noexcept;

}  // namespace talus::app
