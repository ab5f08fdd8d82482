#pragma once
// The files of one run in its output directory: timeseries.csv, timeseries.h5 and run.json. They are written
// under temporary names (".timeseries.csv.partial", …) and renamed into place when the run ends — completed,
// stopped by a failed step, or interrupted — so a run that dies (killed, out of disk, HDF5 error) never leaves
// a half-written file under a final name and never destroys the previous run's results before replacing them.
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

class RunOutputs {
 public:
  // Creates `dir` if needed and opens the temporary files. Throws std::runtime_error when it cannot.
  RunOutputs(const std::filesystem::path& dir, const std::vector<std::string>& columns,
             const std::vector<std::pair<std::string, std::string>>& hdf5_attributes);
  // Without commit(): removes the temporary files; the directory keeps whatever it held before.
  ~RunOutputs();
  RunOutputs(const RunOutputs&) = delete;
  RunOutputs& operator=(const RunOutputs&) = delete;

  void append(std::span<const double> row);
  void flush();
  // Closes the time series, moves them into place, writes run.json (also through a temporary file) and
  // removes figures of an earlier run, which no longer describe these results.
  void commit(const std::string& run_json);

  const std::filesystem::path& directory() const { return dir_; }

 private:
  std::filesystem::path temporary(const char* name) const;

  std::filesystem::path dir_;
  std::unique_ptr<CsvWriter> csv_;
  std::unique_ptr<Hdf5Writer> hdf5_;
  bool committed_ = false;
};

}  // namespace talus::app
