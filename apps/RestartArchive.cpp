#include "apps/RestartArchive.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <system_error>

#include "apps/GranularOutput.hpp"
#include "apps/ResourceLimits.hpp"
#include "apps/Version.hpp"

namespace talus::app {

namespace fs = std::filesystem;

namespace {

// Bytes per row while an archive is read and the bodies built (the datasets' doubles, twice, and the bodies).
constexpr double kBytesPerRow = 600.0;

std::string prefix(const fs::path& file) { return "restart archive " + file.string(); }

void check(herr_t s, const fs::path& f, const std::string& what) {
  if (s < 0) throw std::runtime_error(prefix(f) + ": HDF5 failed to " + what);
}

void text_attribute(hid_t obj, const char* name, const std::string& value, const fs::path& f, const std::string& where) {
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, value.size() + 1);
  H5Tset_strpad(type, H5T_STR_NULLTERM);
  H5Tset_cset(type, H5T_CSET_UTF8);
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  const herr_t s = a < 0 ? -1 : H5Awrite(a, type, value.c_str());
  if (a >= 0) H5Aclose(a);
  H5Sclose(space);
  H5Tclose(type);
  std::string what = "write the attribute ";  // appended: GCC 12 warns falsely (-Wrestrict) on "…" + string
  what += name;
  what += " of ";
  what += where;
  check(s, f, what);
}

// A list of strings as a dataset (not an attribute: a large scene's column names exceed the 64 KiB an attribute
// holds), with its description.
void text_list_dataset(hid_t obj, const char* name, const std::vector<std::string>& values, const char* description,
                       const fs::path& f) {
  std::vector<const char*> ptrs;
  for (const auto& v : values) ptrs.push_back(v.c_str());
  const hsize_t n = ptrs.size();
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, H5T_VARIABLE);
  H5Tset_cset(type, H5T_CSET_UTF8);
  const hid_t space = H5Screate_simple(1, &n, nullptr);
  const hid_t d = H5Dcreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  const herr_t s = d < 0 ? -1 : n == 0 ? 0 : H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, ptrs.data());
  H5Sclose(space);
  H5Tclose(type);
  std::string where = "/";
  where += name;
  if (s < 0) {
    if (d >= 0) H5Dclose(d);
    check(s, f, "write " + where);
  }
  try {
    text_attribute(d, "units", "1", f, where);
    text_attribute(d, "description", description, f, where);
  } catch (...) {
    H5Dclose(d);
    throw;
  }
  H5Dclose(d);
}

// The strings of an attribute or dataset of `type` over `space`, fixed or variable length: read(memory type,
// buffer) reads them (H5Aread or H5Dread). False when they are not text or cannot be read.
bool read_strings(hid_t type, hid_t space, const std::function<herr_t(hid_t, void*)>& read,
                  std::vector<std::string>& out) {
  if (H5Tget_class(type) != H5T_STRING) return false;
  const auto n = static_cast<std::size_t>(std::max<hssize_t>(H5Sget_simple_extent_npoints(space), 0));
  if (n == 0) return true;
  if (H5Tis_variable_str(type) > 0) {
    std::vector<char*> ptrs(n);
    const hid_t mem = H5Tcopy(H5T_C_S1);
    H5Tset_size(mem, H5T_VARIABLE);
    H5Tset_cset(mem, H5Tget_cset(type));
    const bool ok = read(mem, ptrs.data()) >= 0;
    if (ok) {
      for (char* p : ptrs) out.emplace_back(p ? p : "");
      H5Dvlen_reclaim(mem, space, H5P_DEFAULT, ptrs.data());
    }
    H5Tclose(mem);
    return ok;
  }
  const std::size_t size = H5Tget_size(type);
  std::vector<char> buf(size * n + 1, '\0');
  if (read(type, buf.data()) < 0) return false;
  for (std::size_t i = 0; i < n; ++i) out.emplace_back(buf.data() + size * i, strnlen(buf.data() + size * i, size));
  return true;
}

// A dataset of strings (the column names).
std::vector<std::string> read_text_dataset(hid_t obj, const char* name, const fs::path& f) {
  const hid_t d = H5Dopen2(obj, name, H5P_DEFAULT);
  if (d < 0) throw std::runtime_error(prefix(f) + ": dataset /" + name + ": cannot be opened");
  const hid_t type = H5Dget_type(d), space = H5Dget_space(d);
  std::vector<std::string> out;
  const bool ok = read_strings(type, space, [d](hid_t mem, void* buf) {
    return H5Dread(d, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
  }, out);
  H5Sclose(space);
  H5Tclose(type);
  H5Dclose(d);
  if (!ok) throw std::runtime_error(prefix(f) + ": dataset /" + name + ": is not a list of text");
  return out;
}

// A text attribute as a list of strings (fixed or variable length, scalar or 1-D); empty when absent.
std::vector<std::string> read_text(hid_t obj, const char* name, const fs::path& f) {
  if (H5Aexists(obj, name) <= 0) return {};
  const hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  const hid_t type = H5Aget_type(a), space = H5Aget_space(a);
  std::vector<std::string> out;
  const bool ok = read_strings(type, space, [a](hid_t mem, void* buf) { return H5Aread(a, mem, buf); }, out);
  H5Sclose(space);
  H5Tclose(type);
  H5Aclose(a);
  if (!ok) throw std::runtime_error(prefix(f) + ": attribute /@" + name + ": is not text");
  return out;
}

std::string first(const std::vector<std::string>& v) { return v.empty() ? std::string() : v.front(); }

}  // namespace

void write_archive(const fs::path& file, const std::function<void(hid_t)>& body) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const fs::path tmp = temporary_name(file);
  const hid_t f = H5Fcreate(tmp.string().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (f < 0) throw std::runtime_error(prefix(file) + ": cannot be created");
  try {
    body(f);
  } catch (...) {
    H5Fclose(f);
    std::error_code ec;
    fs::remove(tmp, ec);
    throw;
  }
  if (H5Fclose(f) < 0) {
    std::error_code ec;
    fs::remove(tmp, ec);
    throw std::runtime_error(prefix(file) + ": HDF5 failed to close the file");
  }
  commit_file(tmp, file);
}

void read_archive(const fs::path& file, const std::function<void(hid_t)>& body) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  if (!fs::exists(file)) throw std::runtime_error(prefix(file) + ": no such file");
  if (H5Fis_hdf5(file.string().c_str()) <= 0) throw std::runtime_error(prefix(file) + ": is not an HDF5 file");
  const hid_t f = H5Fopen(file.string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) throw std::runtime_error(prefix(file) + ": cannot be opened");
  try {
    body(f);
  } catch (...) {
    H5Fclose(f);
    throw;
  }
  H5Fclose(f);
}

void write_header(hid_t f, const ArchiveHeader& h, const fs::path& file) {
  text_attribute(f, "format", kRestartFormat, file, "/");
  text_attribute(f, "path", h.path, file, "/");
  text_attribute(f, "scene", h.scene, file, "/");
  text_attribute(f, "scheme", h.scheme, file, "/");
  text_attribute(f, "settings", h.settings, file, "/");
  text_attribute(f, "talus_version", version(), file, "/");
  if (!h.columns.empty())
    text_list_dataset(f, "columns", h.columns,
                      "the time series' column names: the fingerprint of the scene's systems and interactions", file);
}

ArchiveHeader read_header(hid_t f, const fs::path& file) {
  ArchiveHeader h;
  h.format = first(read_text(f, "format", file));
  h.scene = first(read_text(f, "scene", file));
  h.scheme = first(read_text(f, "scheme", file));
  h.settings = first(read_text(f, "settings", file));
  h.talus_version = first(read_text(f, "talus_version", file));
  // The column names: a dataset (format 2), an attribute before.
  h.columns = has_link(f, "columns") ? read_text_dataset(f, "columns", file) : read_text(f, "columns", file);
  if (h.format == kRestartFormat) {
    h.path = first(read_text(f, "path", file));
    if (h.path != "small" && h.path != "large")
      throw std::runtime_error(prefix(file) + ": attribute /@path: is '" + h.path + "' (expected small or large)");
  } else if (h.format == kLegacySmallFormat) {
    h.path = "small";
  } else if (h.format == kLegacyLargeFormat || (h.format.empty() && has_link(f, "beads"))) {
    h.format = kLegacyLargeFormat;
    h.path = "large";
  } else {
    throw std::runtime_error(prefix(file) + ": attribute /@format: is '" + h.format + "' (expected " + kRestartFormat +
                             ": an archive written by talus run or talus.Simulation.write_restart)");
  }
  return h;
}

void expect_path(const ArchiveHeader& h, const char* path, const fs::path& file) {
  if (h.path == path) return;
  const auto which = [](const std::string& p) {
    return p == "large" ? std::string("a large-path run (a granular scene, or integrator.path: large)")
                        : std::string("a small-path run (a single scene under the small-system integrators)");
  };
  throw std::runtime_error(prefix(file) + ": attribute /@path: the archive was written by " + which(h.path) +
                           (h.scene.empty() ? std::string() : " of scene '" + h.scene + "'") + "; this scene runs on " +
                           (std::string(path) == "large" ? "the large path" : "the small path") +
                           " (expected an archive of this scene)");
}

ArchiveGroup::ArchiveGroup(hid_t parent, const char* name, bool create, const fs::path& file, const char* where) {
  id = create ? H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : H5Gopen2(parent, name, H5P_DEFAULT);
  if (id < 0)
    throw std::runtime_error(prefix(file) + (create ? ": HDF5 failed to create the group " : ": no group ") + where +
                             name);
}

bool has_link(hid_t parent, const char* name) { return H5Lexists(parent, name, H5P_DEFAULT) > 0; }

void write_text_list(hid_t obj, const char* name, const std::vector<std::string>& values, const char* description,
                     const fs::path& file) {
  text_list_dataset(obj, name, values, description, file);
}

std::vector<std::string> read_text_list(hid_t obj, const char* name, const fs::path& file) {
  return read_text_dataset(obj, name, file);
}

void ArchiveWriter::dataset(const char* name, hid_t file_type, hid_t mem_type, const void* data, hsize_t rows,
                            hsize_t cols, const char* units, const std::string& description) {
  const hsize_t dims[2] = {rows, cols};
  const hid_t space = H5Screate_simple(cols == 1 ? 1 : 2, dims, nullptr);
  const hid_t d = H5Dcreate2(g, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  const herr_t s = d < 0 ? -1 : rows == 0 ? 0 : H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  H5Sclose(space);
  if (s < 0) {
    if (d >= 0) H5Dclose(d);
    check(s, file, "write " + path + name);
  }
  try {
    text_attribute(d, "units", units, file, path + name);
    text_attribute(d, "description", description, file, path + name);
  } catch (...) {
    H5Dclose(d);
    throw;
  }
  H5Dclose(d);
}

void ArchiveWriter::virtual_rows(const char* name, hid_t file_type, const std::vector<std::string>& files,
                                 const std::vector<hsize_t>& rows, hsize_t cols, const char* units,
                                 const std::string& description) {
  hsize_t total = 0;
  for (hsize_t r : rows) total += r;
  const int rank = cols == 1 ? 1 : 2;
  const hsize_t dims[2] = {total, cols};
  const hid_t space = H5Screate_simple(rank, dims, nullptr);
  const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  const std::string source = path + name;
  herr_t s = 0;
  if (H5Tget_class(file_type) == H5T_FLOAT) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    s = H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &nan);
  }
  hsize_t at = 0;
  for (std::size_t k = 0; k < files.size() && s >= 0; ++k) {
    if (rows[k] == 0) continue;  // an empty piece maps nothing
    const hsize_t piece[2] = {rows[k], cols}, start[2] = {at, 0};
    const hid_t src = H5Screate_simple(rank, piece, nullptr);
    s = H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, piece, nullptr);
    if (s >= 0) s = H5Pset_virtual(dcpl, space, files[k].c_str(), source.c_str(), src);
    H5Sclose(src);
    at += rows[k];
  }
  if (s >= 0) s = H5Sselect_all(space);
  const hid_t d = s < 0 ? -1 : H5Dcreate2(g, name, file_type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Pclose(dcpl);
  H5Sclose(space);
  if (d < 0) check(-1, file, "create the virtual dataset " + source);
  try {
    text_attribute(d, "units", units, file, source);
    text_attribute(d, "description", description, file, source);
  } catch (...) {
    H5Dclose(d);
    throw;
  }
  H5Dclose(d);
}

void ArchiveReader::fail(const char* name, const std::string& what) const {
  throw std::runtime_error(prefix(file) + ": dataset " + path + name + ": " + what);
}

namespace {

// The rank of an open dataset and its dimensions (a scalar: rank 0, one value).
int extent(hid_t d, hsize_t dims[2]) {
  const hid_t space = H5Dget_space(d);
  dims[0] = dims[1] = 1;
  const int rank = H5Sget_simple_extent_ndims(space);
  if (rank == 1 || rank == 2) H5Sget_simple_extent_dims(space, dims, nullptr);
  H5Sclose(space);
  return rank;
}

}  // namespace

hsize_t ArchiveReader::rows(const char* name) const {
  const hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
  if (d < 0) fail(name, "missing");
  hsize_t dims[2];
  const int rank = extent(d, dims);
  H5Dclose(d);
  if (rank < 0 || rank > 2) fail(name, "has rank " + std::to_string(rank) + " (expected 1 or 2)");
  // The engine indexes bodies and contacts with int; a larger size is a corrupt archive.
  if (dims[0] > static_cast<hsize_t>(std::numeric_limits<int>::max()))
    fail(name, std::to_string(dims[0]) + " rows (more than the engine indexes)");
  // A chunked dataset may declare rows it never stored: refused before allocating when the machine could not
  // hold what reading it builds.
  const double need = static_cast<double>(dims[0]) * kBytesPerRow;
  if (const auto have = available_memory(); have && need > static_cast<double>(*have))
    fail(name, std::to_string(dims[0]) + " rows would need about " + format_bytes(need) + ", more than the " +
                   format_bytes(static_cast<double>(*have)) + " of memory available");
  return dims[0];
}

void ArchiveReader::read(const char* name, hsize_t n, hsize_t cols, hid_t mem_type, void* out,
                         std::size_t value_bytes, const char* meaning) const {
  const hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
  if (d < 0) fail(name, "missing");
  hsize_t dims[2];
  const int rank = extent(d, dims);
  const bool shape_ok = ((rank == 0 || rank == 1) && cols == 1) || rank == 2;
  if (!shape_ok || dims[0] != n || dims[1] != cols) {
    H5Dclose(d);
    fail(name, "has shape " + std::to_string(dims[0]) + (rank == 2 ? "×" + std::to_string(dims[1]) : std::string()) +
                   " (expected " + std::to_string(n) + (cols > 1 ? "×" + std::to_string(cols) : std::string()) + ": " +
                   (meaning ? std::string(meaning) : "sizes must agree between the datasets of " + path) + ")");
  }
  // A declared size whose data were never written (or were cut off) would be read as fill values. Only a
  // contiguous dataset (as written here) must hold every byte: a chunked one may be compressed.
  const hid_t plist = H5Dget_create_plist(d);
  const bool contiguous = plist >= 0 && H5Pget_layout(plist) == H5D_CONTIGUOUS;
  if (plist >= 0) H5Pclose(plist);
  if (n > 0 && contiguous && H5Dget_storage_size(d) < n * cols * value_bytes) {
    H5Dclose(d);
    fail(name, "holds fewer values than its size says (truncated archive)");
  }
  herr_t s = 0;
  if (window.count == RowWindow::kAll) {
    s = n == 0 ? 0 : H5Dread(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out);
  } else {
    if (window.first + window.count > n) {
      H5Dclose(d);
      fail(name, "rows " + std::to_string(window.first) + " to " + std::to_string(window.first + window.count) +
                     " were asked of " + std::to_string(n));
    }
    if (window.count > 0 && rank == 0) {
      s = H5Dread(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out);  // a scalar: its one row is the window
    } else if (window.count > 0) {
      // The window's rows only: a hyperslab of the file's dataset into as many rows in memory.
      const hid_t file_space = H5Dget_space(d);
      const hsize_t start[2] = {window.first, 0}, count[2] = {window.count, cols};
      const hid_t mem_space = H5Screate_simple(rank, count, nullptr);
      s = H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, nullptr, count, nullptr);
      if (s >= 0) s = H5Dread(d, mem_type, mem_space, file_space, H5P_DEFAULT, out);
      H5Sclose(mem_space);
      H5Sclose(file_space);
    }
  }
  H5Dclose(d);
  if (s < 0) fail(name, "unreadable");
}

std::string ArchiveReader::num(double x) {
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", x);
  return b;
}

std::vector<std::uint32_t> ArchiveReader::ids(const char* name, hsize_t n) const {
  const std::vector<double> a = doubles(name, n, 1);
  each(name, a, 1, [](double x) { return x >= 0.0 && x < 4294967296.0 && x == std::floor(x); },
       "an integer id in [0, 2^32)");
  std::vector<std::uint32_t> out(a.begin(), a.end());
  std::vector<std::uint32_t> sorted = out;
  std::sort(sorted.begin(), sorted.end());
  const auto dup = std::adjacent_find(sorted.begin(), sorted.end());
  if (dup != sorted.end()) fail(name, "id " + std::to_string(*dup) + " appears twice (expected distinct ids)");
  return out;
}

double ArchiveReader::integral(const char* name, double x, double lo, double hi, const char* what) const {
  if (!(std::isfinite(x) && x == std::floor(x) && x >= lo && x <= hi))
    fail(name, std::string(what) + " is " + num(x) + " (expected an integer in [" + num(lo) + ", " + num(hi) + "])");
  return x;
}

void write_clock(hid_t f, const fs::path& file, double time, long step, double h, std::uint32_t next_bead,
                 std::uint32_t next_capsule) {
  ArchiveWriter root{f, "/", file, {}};
  const double clock[4] = {time, static_cast<double>(step), static_cast<double>(next_bead),
                           static_cast<double>(next_capsule)};
  root.matrix("clock", clock, 4, 1, "s, 1, 1, 1",
              "time [s], step (steps taken since t = 0), next bead id, next capsule id");
  root.matrix("step_size", &h, 1, 1, "s", "the step h the steps were taken with");
}

}  // namespace talus::app
