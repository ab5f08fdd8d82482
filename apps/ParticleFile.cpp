#include "apps/ParticleFile.hpp"

#include <hdf5.h>

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace talus::app {

namespace fs = std::filesystem;

namespace {

std::string trim(std::string s) {
  const auto space = [](unsigned char c) { return std::isspace(c) != 0; };
  while (!s.empty() && space(s.back())) s.pop_back();
  std::size_t b = 0;
  while (b < s.size() && space(s[b])) ++b;
  return s.substr(b);
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) out.push_back(trim(cell));
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

}  // namespace

ParticleSet read_particles_csv(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error(file.string() + ": cannot be read");
  const std::string where = file.string() + ":";
  std::string line;
  long number = 0;
  std::vector<std::string> header;
  while (header.empty() && std::getline(in, line)) {
    ++number;
    const std::string t = trim(line);
    if (!t.empty() && t[0] != '#') header = split(t);
  }
  if (header.empty()) throw std::runtime_error(file.string() + ": no header line (expected x, y, z, radius[, vx, vy, vz])");
  const auto column = [&](const char* name) {
    for (std::size_t k = 0; k < header.size(); ++k)
      if (header[k] == name) return static_cast<int>(k);
    return -1;
  };
  const long header_line = number;
  const std::array<const char*, 4> required{"x", "y", "z", "radius"};
  const std::array<const char*, 3> velocity{"vx", "vy", "vz"};
  std::array<int, 4> rc{};
  for (int k = 0; k < 4; ++k)
    if ((rc[k] = column(required[k])) < 0)
      throw std::runtime_error(where + std::to_string(header_line) + ": no column '" + required[k] +
                               "' (expected a header with x, y, z, radius and optionally vx, vy, vz)");
  std::array<int, 3> vc{};
  int velocities = 0;
  for (int k = 0; k < 3; ++k) velocities += (vc[k] = column(velocity[k])) >= 0;
  if (velocities != 0 && velocities != 3)
    throw std::runtime_error(where + std::to_string(header_line) + ": velocity columns must be all of vx, vy, vz or none");
  ParticleSet set;
  while (std::getline(in, line)) {
    ++number;
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    const std::vector<std::string> cells = split(t);
    const auto value = [&](int col, const char* name) {
      if (col >= static_cast<int>(cells.size()))
        throw std::runtime_error(where + std::to_string(number) + ": column '" + name + "': missing (the line has " +
                                 std::to_string(cells.size()) + " values, the header " + std::to_string(header.size()) + ")");
      const std::string& c = cells[col];
      double x = 0.0;
      const auto [end, ec] = std::from_chars(c.data(), c.data() + c.size(), x);
      if (ec != std::errc() || end != c.data() + c.size() || !std::isfinite(x))
        throw std::runtime_error(where + std::to_string(number) + ": column '" + name + "': '" + c +
                                 "' is not a finite number");
      return x;
    };
    const Eigen::Vector3d x(value(rc[0], "x"), value(rc[1], "y"), value(rc[2], "z"));
    const double r = value(rc[3], "radius");
    if (!(r > 0.0))
      throw std::runtime_error(where + std::to_string(number) + ": column 'radius': " + cells[rc[3]] + " (expected > 0)");
    set.x.push_back(x);
    set.radius.push_back(r);
    if (velocities == 3) set.v.emplace_back(value(vc[0], "vx"), value(vc[1], "vy"), value(vc[2], "vz"));
  }
  if (set.x.empty()) throw std::runtime_error(file.string() + ": no particle after the header");
  return set;
}

namespace {

// Rows × cols doubles of a root dataset (cols 1: rank 1), or nothing with `optional` when it is absent.
std::vector<double> dataset(hid_t f, const fs::path& file, const char* name, hsize_t cols, bool optional, hsize_t& rows) {
  const std::string where = file.string() + ": dataset " + name + ": ";
  if (H5Lexists(f, name, H5P_DEFAULT) <= 0) {
    if (optional) return {};
    throw std::runtime_error(where + "missing (expected x (N × 3), radius (N) and optionally v (N × 3))");
  }
  const hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  if (d < 0) throw std::runtime_error(where + "cannot be opened");
  const hid_t space = H5Dget_space(d);
  hsize_t dims[2] = {0, 0};
  const int rank = H5Sget_simple_extent_ndims(space);
  if (rank == 1 || rank == 2) H5Sget_simple_extent_dims(space, dims, nullptr);
  H5Sclose(space);
  const hsize_t got_cols = rank == 2 ? dims[1] : 1;
  if ((rank != 1 && rank != 2) || got_cols != cols || (cols == 3 && rank != 2)) {
    H5Dclose(d);
    throw std::runtime_error(where + "has the wrong shape (expected " + (cols == 3 ? "N × 3)" : "N)"));
  }
  std::vector<double> out(dims[0] * cols);
  const herr_t ok = out.empty() ? 0 : H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data());
  H5Dclose(d);
  if (ok < 0) throw std::runtime_error(where + "cannot be read as numbers");
  for (std::size_t i = 0; i < out.size(); ++i)
    if (!std::isfinite(out[i]))
      throw std::runtime_error(where + "row " + std::to_string(i / cols) + " is not finite");
  rows = dims[0];
  return out;
}

}  // namespace

ParticleSet read_particles_hdf5(const fs::path& file) {
  if (!fs::is_regular_file(file)) throw std::runtime_error(file.string() + ": no such file");
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // failures are reported by the messages below, not HDF5's stack
  const hid_t f = H5Fopen(file.string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) throw std::runtime_error(file.string() + ": not an HDF5 file");
  ParticleSet set;
  try {
    hsize_t n = 0, nr = 0, nv = 0;
    const std::vector<double> x = dataset(f, file, "x", 3, false, n);
    const std::vector<double> r = dataset(f, file, "radius", 1, false, nr);
    const std::vector<double> v = dataset(f, file, "v", 3, true, nv);
    if (nr != n) throw std::runtime_error(file.string() + ": dataset radius: " + std::to_string(nr) + " rows, x has " + std::to_string(n));
    if (!v.empty() && nv != n) throw std::runtime_error(file.string() + ": dataset v: " + std::to_string(nv) + " rows, x has " + std::to_string(n));
    if (n == 0) throw std::runtime_error(file.string() + ": dataset x: no particle");
    for (hsize_t i = 0; i < n; ++i) {
      if (!(r[i] > 0.0)) throw std::runtime_error(file.string() + ": dataset radius: row " + std::to_string(i) + " is " + std::to_string(r[i]) + " (expected > 0)");
      set.x.emplace_back(x[3 * i], x[3 * i + 1], x[3 * i + 2]);
      set.radius.push_back(r[i]);
      if (!v.empty()) set.v.emplace_back(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
    }
  } catch (...) {
    H5Fclose(f);
    throw;
  }
  H5Fclose(f);
  return set;
}

ParticleSet read_particles(const fs::path& file) {
  std::string ext = file.extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".csv" || ext == ".txt") return read_particles_csv(file);
  if (ext == ".h5" || ext == ".hdf5") return read_particles_hdf5(file);
  throw std::runtime_error(file.string() + ": unknown particle file type '" + ext +
                           "' (expected .csv with a header x, y, z, radius[, vx, vy, vz], or .h5/.hdf5 with datasets "
                           "x, radius[, v])");
}

}  // namespace talus::app
