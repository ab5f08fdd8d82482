#pragma once
// Writes the run's time series as HDF5 (C API) so that analysis tools read it without parsing text:
//   /timeseries   float64 dataset, rows × columns, extendible along rows, chunked
//     attribute `columns`: the column names (variable-length UTF-8 strings), same order as the CSV header
//     attribute `units`: one unit per column ("s", "m", "N s", "J", "1" for counts, "SI" for a generalized
//                coordinate whose unit the scene's matrices fix)
//     attribute `descriptions`: one sentence per column saying what it holds
//     attribute `row`: what a row is (the state at one output time)
//   /             the caller's string attributes (scene, scene file, overrides, talus_version, clock)
// Rows are buffered and written in blocks; flush() also asks HDF5 to flush the file, so what was written
// survives a failed step or an interrupted run.
#include <hdf5.h>

#include <filesystem>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace talus::app {

class Hdf5Writer {
 public:
  // Creates (truncates) `file`. Throws std::runtime_error when HDF5 refuses.
  // `units` and `descriptions` are empty or one per column.
  Hdf5Writer(const std::filesystem::path& file, const std::vector<std::string>& columns,
             const std::vector<std::pair<std::string, std::string>>& file_attributes,
             const std::vector<std::string>& units = {}, const std::vector<std::string>& descriptions = {});
  ~Hdf5Writer();
  Hdf5Writer(const Hdf5Writer&) = delete;
  Hdf5Writer& operator=(const Hdf5Writer&) = delete;

  void append(std::span<const double> row);
  void flush();
  void close();

 private:
  void write_buffer();

  std::filesystem::path path_;
  hid_t file_ = -1, dataset_ = -1;
  hsize_t columns_ = 0, rows_ = 0;
  std::size_t block_rows_ = 0;
  std::vector<double> buffer_;  // up to block_rows_ rows, row-major
};

}  // namespace talus::app
