#pragma once
// Writes the run's time series as CSV: one header line of column names, then one line per output row.
// Numbers are printed in the shortest form that reads back to the same double (std::to_chars), so the CSV and
// the HDF5 file hold bit-identical data and a test can compare them exactly.
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <vector>

namespace talus::app {

class CsvWriter {
 public:
  // Creates (truncates) `file` and writes the header. Throws std::runtime_error when it cannot.
  CsvWriter(const std::filesystem::path& file, const std::vector<std::string>& columns);

  void append(std::span<const double> row);  // row.size() == columns
  void flush();                              // pushes buffered rows to the OS; throws on a write error
  void close();

 private:
  std::filesystem::path path_;
  std::ofstream out_;
  std::size_t columns_;
  std::string line_;  // reused for every row
};

}  // namespace talus::app
