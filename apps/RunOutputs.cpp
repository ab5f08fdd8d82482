#include "apps/RunOutputs.hpp"

#include <fstream>
#include <stdexcept>
#include <system_error>

#include "apps/PlotScript.hpp"

namespace talus::app {

namespace fs = std::filesystem;

fs::path RunOutputs::temporary(const char* name) const {
  std::string file = ".";
  file.append(name).append(".partial");
  return dir_ / file;
}

RunOutputs::RunOutputs(const fs::path& dir, const std::vector<std::string>& columns,
                       const std::vector<std::pair<std::string, std::string>>& hdf5_attributes)
    : dir_(dir) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec || !fs::is_directory(dir_))
    throw std::runtime_error("cannot create the output directory " + dir_.string() +
                             (ec ? ": " + ec.message() : std::string()));
  csv_ = std::make_unique<CsvWriter>(temporary(kCsvFile), columns);
  hdf5_ = std::make_unique<Hdf5Writer>(temporary(kHdf5File), columns, hdf5_attributes);
}

RunOutputs::~RunOutputs() {
  if (committed_) return;
  csv_.reset();
  hdf5_.reset();
  std::error_code ec;  // best effort: a leftover temporary file is harmless
  fs::remove(temporary(kCsvFile), ec);
  fs::remove(temporary(kHdf5File), ec);
  fs::remove(temporary(kRunJsonFile), ec);
}

void RunOutputs::append(std::span<const double> row) {
  csv_->append(row);
  hdf5_->append(row);
}

void RunOutputs::flush() {
  csv_->flush();
  hdf5_->flush();
}

void RunOutputs::commit(const std::string& run_json) {
  csv_->close();
  hdf5_->close();
  {
    std::ofstream out(temporary(kRunJsonFile), std::ios::trunc);
    out << run_json;
    out.close();
    if (!out) throw std::runtime_error("cannot write " + temporary(kRunJsonFile).string());
  }
  for (const char* name : {kCsvFile, kHdf5File, kRunJsonFile}) {
    std::error_code ec;
    fs::rename(temporary(name), dir_ / name, ec);
    if (ec) throw std::runtime_error("cannot move " + temporary(name).string() + " into place: " + ec.message());
  }
  committed_ = true;
  for (const std::string& png : plot_files()) {
    std::error_code ec;
    fs::remove(dir_ / png, ec);
  }
}

}  // namespace talus::app
