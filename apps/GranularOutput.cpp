#include "apps/GranularOutput.hpp"

#include <hdf5.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace talus::app {

namespace {

using granular::SphereBodies;
using granular::SweepContact;

std::ofstream open_out(const std::filesystem::path& f) {
  std::ofstream o(f);
  if (!o) throw std::runtime_error(f.string() + ": cannot write");
  o.precision(9);
  return o;
}

void finish(std::ofstream& o, const std::filesystem::path& f) {
  o.close();
  if (!o) throw std::runtime_error(f.string() + ": write failed");
}

template <class F>
void data_array(std::ofstream& o, const char* name, int components, int count, F value) {
  o << "<DataArray type=\"Float64\" Name=\"" << name << "\" NumberOfComponents=\"" << components
    << "\" format=\"ascii\">\n";
  for (int i = 0; i < count; ++i) {
    for (int c = 0; c < components; ++c) o << value(i, c) << ' ';
    o << '\n';
  }
  o << "</DataArray>\n";
}

Eigen::Vector3d world_force(const SweepContact& c, double h) { return (c.r[0] * c.n + c.r[1] * c.t1 + c.r[2] * c.t2) / h; }

}  // namespace

void write_beads_vtp(const std::filesystem::path& file, const SphereBodies& b, const std::vector<SweepContact>& contacts,
                     double h) {
  const int n = b.size();
  std::vector<Eigen::Vector3d> force(n, Eigen::Vector3d::Zero());
  for (const SweepContact& c : contacts) {
    const Eigen::Vector3d f = world_force(c, h);
    force[c.b] += f;
    if (c.a >= 0) force[c.a] -= f;
  }
  std::ofstream o = open_out(file);
  o << "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n<PolyData>\n"
    << "<Piece NumberOfPoints=\"" << n << "\" NumberOfVerts=\"" << n << "\">\n<Points>\n";
  data_array(o, "points", 3, n, [&](int i, int c) { return b.x[i][c]; });
  o << "</Points>\n<Verts>\n<DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n";
  for (int i = 0; i < n; ++i) o << i << '\n';
  o << "</DataArray>\n<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n";
  for (int i = 0; i < n; ++i) o << i + 1 << '\n';
  o << "</DataArray>\n</Verts>\n<PointData Scalars=\"radius\" Vectors=\"velocity\">\n";
  data_array(o, "radius", 1, n, [&](int i, int) { return b.radius[i]; });
  data_array(o, "velocity", 3, n, [&](int i, int c) { return b.v[i][c]; });
  data_array(o, "angular_velocity", 3, n, [&](int i, int c) { return b.w[i][c]; });
  data_array(o, "contact_force", 3, n, [&](int i, int c) { return force[i][c]; });
  data_array(o, "id", 1, n, [&](int i, int) { return static_cast<double>(b.id[i]); });
  o << "</PointData>\n</Piece>\n</PolyData>\n</VTKFile>\n";
  finish(o, file);
}

void write_contacts_vtp(const std::filesystem::path& file, const SphereBodies& b,
                        const std::vector<SweepContact>& contacts, double h) {
  std::vector<int> active;
  for (int k = 0; k < static_cast<int>(contacts.size()); ++k)
    if (contacts[k].r[0] > 0.0) active.push_back(k);
  const int m = static_cast<int>(active.size());
  std::ofstream o = open_out(file);
  o << "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n<PolyData>\n"
    << "<Piece NumberOfPoints=\"" << 2 * m << "\" NumberOfLines=\"" << m << "\">\n<Points>\n";
  data_array(o, "points", 3, 2 * m, [&](int p, int c) {
    const SweepContact& k = contacts[active[p / 2]];
    if (p % 2 == 1) return b.x[k.b][c];
    return k.a >= 0 ? b.x[k.a][c] : b.x[k.b][c] - k.rb * k.n[c];
  });
  o << "</Points>\n<Lines>\n<DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n";
  for (int i = 0; i < 2 * m; ++i) o << i << '\n';
  o << "</DataArray>\n<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n";
  for (int i = 0; i < m; ++i) o << 2 * (i + 1) << '\n';
  o << "</DataArray>\n</Lines>\n<CellData Scalars=\"normal_force\">\n";
  data_array(o, "normal_force", 1, m, [&](int i, int) { return contacts[active[i]].r[0] / h; });
  data_array(o, "force", 3, m, [&](int i, int c) { return world_force(contacts[active[i]], h)[c]; });
  o << "</CellData>\n</Piece>\n</PolyData>\n</VTKFile>\n";
  finish(o, file);
}

void write_pvd(const std::filesystem::path& file, const std::vector<std::pair<double, std::string>>& frames) {
  std::ofstream o = open_out(file);
  o << "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n<Collection>\n";
  for (const auto& [t, name] : frames) o << "<DataSet timestep=\"" << t << "\" file=\"" << name << "\"/>\n";
  o << "</Collection>\n</VTKFile>\n";
  finish(o, file);
}

namespace {

void check(herr_t s, const std::filesystem::path& f, const char* what) {
  if (s < 0) throw std::runtime_error(f.string() + ": HDF5 failed to " + what);
}

void write_matrix(hid_t group, const char* name, const double* data, hsize_t rows, hsize_t cols,
                  const std::filesystem::path& f) {
  const hsize_t dims[2] = {rows, cols};
  const hid_t space = H5Screate_simple(cols == 1 ? 1 : 2, dims, nullptr);
  const hid_t d = H5Dcreate2(group, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  const herr_t s = d < 0 ? -1 : H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  if (d >= 0) H5Dclose(d);
  H5Sclose(space);
  check(s, f, name);
}

std::vector<double> read_all(hid_t group, const char* name, hsize_t expect, const std::filesystem::path& f) {
  const hid_t d = H5Dopen2(group, name, H5P_DEFAULT);
  if (d < 0) throw std::runtime_error(f.string() + ": no dataset /beads/" + name);
  const hid_t space = H5Dget_space(d);
  const hssize_t count = H5Sget_simple_extent_npoints(space);
  H5Sclose(space);
  std::vector<double> v(count > 0 ? count : 0);
  const herr_t s = static_cast<hsize_t>(count) == expect
                       ? H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data())
                       : -1;
  H5Dclose(d);
  check(s, f, "read a dataset of the expected size");
  return v;
}

}  // namespace

void write_restart(const std::filesystem::path& file, const granular::GranularModel& m) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const hid_t f = H5Fcreate(file.string().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (f < 0) throw std::runtime_error(file.string() + ": cannot create the restart archive");
  const hid_t g = H5Gcreate2(f, "beads", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  const SphereBodies& b = m.beads;
  const hsize_t n = b.size();
  std::vector<double> buf(3 * n);
  try {
    auto vec3 = [&](const std::vector<Eigen::Vector3d>& a, const char* name) {
      for (hsize_t i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c) buf[3 * i + c] = a[i][c];
      write_matrix(g, name, buf.data(), n, 3, file);
    };
    vec3(b.x, "x");
    vec3(b.v, "v");
    vec3(b.w, "w");
    write_matrix(g, "radius", b.radius.data(), n, 1, file);
    write_matrix(g, "mass", b.mass.data(), n, 1, file);
    for (hsize_t i = 0; i < n; ++i) buf[i] = b.id[i];
    write_matrix(g, "id", buf.data(), n, 1, file);
    const double attrs[3] = {m.time, static_cast<double>(m.step), static_cast<double>(b.next_id)};
    write_matrix(f, "clock", attrs, 3, 1, file);
  } catch (...) {
    H5Gclose(g);
    H5Fclose(f);
    throw;
  }
  H5Gclose(g);
  check(H5Fclose(f), file, "close the file");
}

void read_restart(const std::filesystem::path& file, granular::GranularModel& m) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const hid_t f = H5Fopen(file.string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) throw std::runtime_error(file.string() + ": cannot open the restart archive");
  const hid_t g = H5Gopen2(f, "beads", H5P_DEFAULT);
  if (g < 0) {
    H5Fclose(f);
    throw std::runtime_error(file.string() + ": not a granular restart archive (no /beads)");
  }
  try {
    const hid_t d = H5Dopen2(g, "radius", H5P_DEFAULT);
    if (d < 0) throw std::runtime_error(file.string() + ": no /beads/radius");
    const hid_t space = H5Dget_space(d);
    const hsize_t n = H5Sget_simple_extent_npoints(space);
    H5Sclose(space);
    H5Dclose(d);
    const auto x = read_all(g, "x", 3 * n, file), v = read_all(g, "v", 3 * n, file), w = read_all(g, "w", 3 * n, file);
    const auto r = read_all(g, "radius", n, file), mass = read_all(g, "mass", n, file), id = read_all(g, "id", n, file);
    const auto clock = read_all(f, "clock", 3, file);
    SphereBodies b;
    for (hsize_t i = 0; i < n; ++i) {
      const double rho = mass[i] / (4.0 / 3.0 * M_PI * r[i] * r[i] * r[i]);
      b.add(Eigen::Vector3d(x[3 * i], x[3 * i + 1], x[3 * i + 2]), r[i], rho,
            Eigen::Vector3d(v[3 * i], v[3 * i + 1], v[3 * i + 2]));
      b.w[i] = Eigen::Vector3d(w[3 * i], w[3 * i + 1], w[3 * i + 2]);
      b.id[i] = static_cast<std::uint32_t>(id[i]);
    }
    b.next_id = static_cast<std::uint32_t>(clock[2]);
    m.beads = std::move(b);
    m.time = clock[0];
    m.step = static_cast<long>(clock[1]);
  } catch (...) {
    H5Gclose(g);
    H5Fclose(f);
    throw;
  }
  H5Gclose(g);
  H5Fclose(f);
}

}  // namespace talus::app
