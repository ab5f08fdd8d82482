#include "apps/RunOutputs.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <fstream>
#include <regex>
#include <stdexcept>
#include <system_error>

#include "apps/PlotScript.hpp"

namespace talus::app {

namespace fs = std::filesystem;

namespace {

// The files a run of either kind leaves in its directory: the single scene's (this file, plot_run.py's figures)
// and the large path's (apps/LargePathRun.cpp, GranularOutput.hpp); the frame series (FrameSeries.hpp) are
// matched by pattern.
const std::vector<std::string>& run_file_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n{kCsvFile,       kHdf5File,     kRunJsonFile,   kEventsFile,    "granular.json" /* an older large-path run's summary */,
                               "restart.h5",   "beads.pvd",   "contacts.pvd", "capsules.pvd", "bodies.pvd",   "beams.pvd",
                               "meshes.pvd",   "meshes.vtp",  "measures.csv", "discharge.csv", "joints.csv",
                               "snapshot.png", "profile.txt", "trace.json"};
    for (const std::string& png : plot_files()) n.push_back(png);
    return n;
  }();
  return names;
}

bool is_frame(const std::string& name) {
  static const std::regex frame(R"((beads|contacts|capsules|bodies|beams|meshes)_[0-9]+(_p[0-9]+\.vtp|\.vtp|\.pvtp))");
  return std::regex_match(name, frame);
}

// A temporary file of ours: ".NAME.partial" (this class, plot_run.py) or ".NAME.partial-PID" (write_file_atomically).
bool is_partial(const std::string& name) {
  return name.size() > 1 && name[0] == '.' && name.find(".partial") != std::string::npos;
}

// Paths of the open temporary files, for the signal handler: fixed storage, so that reading it needs no
// allocation; a slot is in use when its flag is set (the path is written before the flag).
constexpr std::size_t kSlots = 8, kPathMax = 4096;
struct Slot {
  std::atomic<bool> used{false};
  char path[kPathMax];
};
std::array<Slot, kSlots> g_partials;

void register_partial(const fs::path& p) {
  const std::string s = p.string();
  if (s.size() >= kPathMax) return;  // not removable from the handler; the next run's start removes it
  for (Slot& slot : g_partials) {
    bool expected = false;
    if (slot.used.load()) continue;
    std::memcpy(slot.path, s.c_str(), s.size() + 1);
    if (slot.used.compare_exchange_strong(expected, true)) return;
  }
}

void unregister_partial(const fs::path& p) {
  const std::string s = p.string();
  for (Slot& slot : g_partials)
    if (slot.used.load() && s == slot.path) slot.used.store(false);
}

}  // namespace

void remove_partial_files_from_signal_handler() noexcept {
  for (Slot& slot : g_partials)
    if (slot.used.load()) ::unlink(slot.path);
}

bool is_restart_piece(const std::string& name) {
  static const std::regex piece(R"(restart_s[0-9]+_p[0-9]+\.h5)");
  return std::regex_match(name, piece);
}

bool is_run_file(const std::string& name) {
  const auto& names = run_file_names();
  return std::find(names.begin(), names.end(), name) != names.end() || is_frame(name) || is_restart_piece(name);
}

std::vector<std::string> earlier_run_files(const fs::path& dir) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (is_run_file(name)) found.push_back(name);
  }
  std::sort(found.begin(), found.end());
  return found;
}

void write_file_atomically(const fs::path& file, const std::string& content) {
  const fs::path tmp = file.parent_path() / ("." + file.filename().string() + ".partial");
  register_partial(tmp);
  {
    std::ofstream out(tmp, std::ios::trunc | std::ios::binary);
    out << content;
    out.close();
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      unregister_partial(tmp);
      throw std::runtime_error("cannot write " + tmp.string());
    }
  }
  std::error_code ec;
  fs::rename(tmp, file, ec);
  unregister_partial(tmp);
  if (ec) {
    fs::remove(tmp, ec);
    throw std::runtime_error("cannot move " + tmp.string() + " into place as " + file.string() + ": " + ec.message());
  }
}

fs::path RunOutputs::temporary(const char* name) const {
  std::string file = ".";
  file.append(name).append(".partial");
  return dir_ / file;
}

RunOutputs::RunOutputs(const fs::path& dir, const ColumnInfo& columns,
                       const std::vector<std::pair<std::string, std::string>>& hdf5_attributes, bool overwrite)
    : dir_(dir) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec || !fs::is_directory(dir_))
    throw std::runtime_error("cannot create the output directory " + dir_.string() +
                             (ec ? ": " + ec.message() : std::string()));
  if (!overwrite) {
    const std::vector<std::string> earlier = earlier_run_files(dir_);
    if (!earlier.empty()) {
      std::string list;
      for (std::size_t i = 0; i < earlier.size() && i < 4; ++i) list += (i ? ", " : "") + earlier[i];
      if (earlier.size() > 4) list += ", … (" + std::to_string(earlier.size()) + " files)";
      throw std::runtime_error(dir_.string() + " holds an earlier run (" + list +
                               "): pass --overwrite to replace it, or --out another directory");
    }
  }
  // Temporary files of a run that was killed are never results: remove them before writing new ones.
  for (const fs::directory_entry& e : fs::directory_iterator(dir_, ec))
    if (is_partial(e.path().filename().string())) fs::remove(e.path(), ec);
  register_partial(temporary(kCsvFile));
  register_partial(temporary(kHdf5File));
  register_partial(temporary(kRunJsonFile));
  csv_ = std::make_unique<CsvWriter>(temporary(kCsvFile), columns.names);
  hdf5_ = std::make_unique<Hdf5Writer>(temporary(kHdf5File), columns.names, hdf5_attributes, columns.units,
                                       columns.descriptions);
}

RunOutputs::~RunOutputs() {
  for (const char* name : {kCsvFile, kHdf5File, kRunJsonFile}) unregister_partial(temporary(name));
  if (committed_) return;
  csv_.reset();
  hdf5_.reset();
  std::error_code ec;  // best effort: the next run into the directory removes a leftover
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
  // The earlier run's other files go first: from here on the directory holds this run only.
  for (const std::string& name : earlier_run_files(dir_)) {
    if (name == kCsvFile || name == kHdf5File || name == kRunJsonFile) continue;
    std::error_code ec;
    fs::remove(dir_ / name, ec);
  }
  for (const char* name : {kCsvFile, kHdf5File, kRunJsonFile}) {
    std::error_code ec;
    fs::rename(temporary(name), dir_ / name, ec);
    if (ec) throw std::runtime_error("cannot move " + temporary(name).string() + " into place: " + ec.message());
  }
  committed_ = true;
}

}  // namespace talus::app
