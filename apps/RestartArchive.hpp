#pragma once
// The restart archive, restart.h5, of every run on either path (issue 11 item 5: one format). A run to T and a
// run to T/2 + restart to T end bitwise equal on both paths (tests/apps/test_strict_restart.cpp,
// tests/apps/test_granular_restart.cpp). One layout, in which each part of the model writes its group when the
// model holds it (as the frame writers are chosen, apps/FrameSeries.hpp):
//
//   /                     attributes (text): format "talus-restart-2"; path "small" or "large" (which integrators
//                         wrote it); scene; scheme; settings (what else the steps read, all digits); talus_version
//   /columns              small path: the time series' column names (its fingerprint of the scene's systems and
//                         interactions), variable-length text
//   /clock                float64 [4]: time [s], step (steps since t = 0), next bead id, next capsule id
//   /step_size            float64 [1]: h [s]
//   /beads, /capsules     the store's sphere and capsule groups, world frame (apps/LargePathRestart.hpp)
//   /beams                the FE beams (the model's LTI systems) of a large-path run: dofs, q, v
//   /systems              small path: q, v (DofLayout order; rigid bodies' ω in the body frame, as the small
//                         integrators hold it) and angular_velocity (N×3, world: the store's very bits)
//   /interactions         small path, listed interactions: gap, velocity, impulse (concatenated) and their *_size
//   /contacts             large path: cache, position_cache, rolling_cache (keys, impulses); small path:
//                         detected (each detected contact's bodies, side and last gap, velocity and impulse)
//   /joints               large path: the joints' warm start (impulses, position_impulses)
//   /generalized_alpha    acceleration, smooth_acceleration: a_n and ṽ̇_n (small path: every velocity, DofLayout
//                         order; large path: the beams' unknowns, /beams order)
//   /newmark, /hht, /schatzman_paoli  small path: the vectors those schemes carry from step to step
//                         (apps/SceneRestart.hpp carried_vectors)
//   /energy               small path: the time series' running sums (external, contact, dissipated, damping) [J]
//   /run                  large path: the runner's counters (removed, dropped, discharge, discharge_mass)
// Every dataset carries `units` and `description` attributes. Archives are written under a temporary name and
// renamed when complete (a killed run leaves the previous archive or the new one). Every reading error names the
// archive and the dataset: "restart archive FILE: dataset /beads/x: row 0 column 2 is nan (expected …)".
// Older archives still read: the small path's "talus-scene-restart-1" (datasets time, step, h, q, v, …) and the
// large path's layout before this one (no header; the beams' accelerations in /beams/a and /beams/vdot).
#include <hdf5.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace talus::app {

inline constexpr const char* kRestartFile = "restart.h5";
inline constexpr const char* kRestartFormat = "talus-restart-2";
inline constexpr const char* kLegacySmallFormat = "talus-scene-restart-1";
inline constexpr const char* kLegacyLargeFormat = "talus granular restart archive (apps/GranularOutput.hpp)";

// The root attributes.
struct ArchiveHeader {
  std::string format;  // as read (kRestartFormat or a legacy name); written: always kRestartFormat
  std::string path;    // "small" or "large"
  std::string scene, scheme, settings, talus_version;
  std::vector<std::string> columns;  // small path only (the dataset /columns)
  bool legacy() const { return format != kRestartFormat; }
};

// Writes an archive through its temporary name: `body` fills the open file. On any exception the temporary file
// is removed and an earlier archive is left as it was; the exception goes on.
void write_archive(const std::filesystem::path& file, const std::function<void(hid_t)>& body);
// Opens an archive read-only and hands it to `body`; "restart archive FILE: no such file" / "is not an HDF5 file".
void read_archive(const std::filesystem::path& file, const std::function<void(hid_t)>& body);

void write_header(hid_t f, const ArchiveHeader& header, const std::filesystem::path& file);
// The header, legacy archives recognised by their layout. Refuses (naming the archive) a file that is neither.
ArchiveHeader read_header(hid_t f, const std::filesystem::path& file);
// Refuses an archive written by the other path: "written by a large-path run (…); this scene runs on the small
// path". `path`: "small" or "large".
void expect_path(const ArchiveHeader& header, const char* path, const std::filesystem::path& file);

// A list of strings as a dataset of `obj` (variable-length UTF-8) with its units ("1") and description, and read
// back (refused, naming the archive, when it is not text).
void write_text_list(hid_t obj, const char* name, const std::vector<std::string>& values, const char* description,
                     const std::filesystem::path& file);
std::vector<std::string> read_text_list(hid_t obj, const char* name, const std::filesystem::path& file);

// An HDF5 group created or opened, closed on scope exit. `where`: the parent's path ("/", "/contacts/").
struct ArchiveGroup {
  hid_t id = -1;
  ArchiveGroup(hid_t parent, const char* name, bool create, const std::filesystem::path& file, const char* where = "/");
  ArchiveGroup(const ArchiveGroup&) = delete;
  ArchiveGroup& operator=(const ArchiveGroup&) = delete;
  ~ArchiveGroup() { H5Gclose(id); }
};

bool has_link(hid_t parent, const char* name);

// Datasets of one group, each with its units and what it is.
struct ArchiveWriter {
  hid_t g;
  std::string path;  // "/beads/"
  const std::filesystem::path& file;
  std::vector<double> buf;

  void dataset(const char* name, hid_t file_type, hid_t mem_type, const void* data, hsize_t rows, hsize_t cols,
               const char* units, const std::string& description);
  void matrix(const char* name, const double* data, hsize_t rows, hsize_t cols, const char* units,
              const std::string& description) {
    dataset(name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, data, rows, cols, units, description);
  }
  // A virtual dataset (an archive in pieces, apps/LargePathRestart.hpp): its rows are those of the dataset at the
  // same path (path + name) in each file of `files` (relative to this archive's folder), rows[k] from file k, one
  // after the other. Rows no piece supplies read as NaN (doubles: the readers refuse them) or 0 (integers); a
  // reader checks the pieces first (LargePathRestart.cpp, check_pieces).
  void virtual_rows(const char* name, hid_t file_type, const std::vector<std::string>& files,
                    const std::vector<hsize_t>& rows, hsize_t cols, const char* units, const std::string& description);
  void integers(const char* name, const std::vector<long long>& x, const char* units, const std::string& description) {
    dataset(name, H5T_STD_I64LE, H5T_NATIVE_LLONG, x.data(), x.size(), 1, units, description);
  }
  // n rows of `cols` doubles taken from each element by get(element, column).
  template <class T, class Get>
  void rows(const char* name, const std::vector<T>& a, int cols, Get get, const char* units,
            const std::string& description) {
    const hsize_t n = a.size();
    buf.resize(cols * n);
    for (hsize_t i = 0; i < n; ++i)
      for (int c = 0; c < cols; ++c) buf[cols * i + c] = get(a[i], c);
    matrix(name, buf.data(), n, cols, units, description);
  }
  template <class V>
  void vectors(const char* name, const std::vector<V>& a, const char* units, const std::string& d) {
    rows(name, a, 3, [](const V& v, int c) { return v[c]; }, units, d);
  }
  void scalars(const char* name, const std::vector<double>& a, const char* units, const std::string& d) {
    rows(name, a, 1, [](double v, int) { return v; }, units, d);
  }
  void ids(const char* name, const std::vector<std::uint32_t>& a, const std::string& d) {
    rows(name, a, 1, [](std::uint32_t v, int) { return static_cast<double>(v); }, "1", d);
  }
};

// The rows of a dataset a reader takes: [first, first + count); count = kAll: every row.
struct RowWindow {
  static constexpr hsize_t kAll = ~hsize_t{0};
  hsize_t first = 0, count = kAll;
  // Share k of K equal shares of n rows (a process's rows of an archive read by K processes).
  static RowWindow share(hsize_t n, int k, int K) {
    const hsize_t a = n * static_cast<hsize_t>(k) / static_cast<hsize_t>(K);
    return {a, n * static_cast<hsize_t>(k + 1) / static_cast<hsize_t>(K) - a};
  }
};

// Reads and validates the datasets of one group; every error names the archive and the dataset.
struct ArchiveReader {
  hid_t g;
  std::string path;  // "/beads/"
  const std::filesystem::path& file;
  // The rows read (read() and what reads through it): a window of each dataset, whose shape is still checked
  // whole; the checks' row numbers are the dataset's.
  RowWindow window{};

  // The rows read of a dataset of n rows.
  hsize_t window_rows(hsize_t n) const { return window.count == RowWindow::kAll ? n : window.count; }

  [[noreturn]] void fail(const char* name, const std::string& what) const;
  bool has(const char* name) const { return has_link(g, name); }
  // The rows of a dataset of rank 0 (one), 1 or 2 (its first dimension); refused when the machine could not
  // hold the bodies it would build.
  hsize_t rows(const char* name) const;
  // rows × cols values (cols == 1: rank 0 or 1, or rank 2 with one column) of type mem_type into out: the
  // dataset must have n rows, of which the window's are read (window_rows(n) × cols values). `meaning`
  // says what the expected size counts ("one per velocity of the scene"); by default, the group's other datasets.
  void read(const char* name, hsize_t n, hsize_t cols, hid_t mem_type, void* out, std::size_t value_bytes,
            const char* meaning = nullptr) const;
  template <class T>
  void read(const char* name, hsize_t n, hsize_t cols, hid_t mem_type, std::vector<T>& out,
            const char* meaning = nullptr) const {
    out.resize(window_rows(n) * cols);
    read(name, n, cols, mem_type, out.data(), sizeof(T), meaning);
  }
  std::vector<double> doubles(const char* name, hsize_t n, hsize_t cols, const char* meaning = nullptr) const {
    std::vector<double> v;
    read(name, n, cols, H5T_NATIVE_DOUBLE, v, meaning);
    return v;
  }
  // The same, every value finite.
  std::vector<double> finite_doubles(const char* name, hsize_t n, hsize_t cols, const char* meaning = nullptr) const {
    std::vector<double> v = doubles(name, n, cols, meaning);
    finite(name, v, cols);
    return v;
  }
  std::vector<long long> integers(const char* name, hsize_t n, const char* meaning = nullptr) const {
    std::vector<long long> v;
    read(name, n, 1, H5T_NATIVE_LLONG, v, meaning);
    return v;
  }

  static std::string num(double x);
  template <class Ok>
  void each(const char* name, const std::vector<double>& a, hsize_t cols, Ok ok, const char* expected) const {
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!ok(a[i]))
        fail(name, "row " + std::to_string(window.first + i / cols) + (cols > 1 ? " column " + std::to_string(i % cols) : std::string()) +
                       " is " + num(a[i]) + " (expected " + expected + ")");
  }
  void finite(const char* name, const std::vector<double>& a, hsize_t cols) const {
    each(name, a, cols, [](double x) { return std::isfinite(x); }, "a finite number");
  }
  void positive(const char* name, const std::vector<double>& a) const {
    each(name, a, 1, [](double x) { return std::isfinite(x) && x > 0.0; }, "a positive finite number");
  }
  void non_negative(const char* name, const std::vector<double>& a, hsize_t cols = 1) const {
    each(name, a, cols, [](double x) { return std::isfinite(x) && x >= 0.0; }, "a finite number >= 0");
  }
  // Ids: integers in [0, 2^32), distinct; returned as uint32.
  std::vector<std::uint32_t> ids(const char* name, hsize_t n) const;
  // An integer archived as a double: finite, integral, in [lo, hi]; `what` names it in the message.
  double integral(const char* name, double x, double lo, double hi, const char* what) const;
};

// Exact integers a double holds (ids, steps and counters are archived as doubles).
inline constexpr double kMaxExactInteger = 9007199254740992.0;  // 2^53

// The clock both paths write: time, step, next bead id, next capsule id.
void write_clock(hid_t f, const std::filesystem::path& file, double time, long step, double h,
                 std::uint32_t next_bead, std::uint32_t next_capsule);

}  // namespace talus::app
