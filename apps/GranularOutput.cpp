#include "apps/GranularOutput.hpp"

#include <hdf5.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace talus::app {

namespace {

using granular::BodyKind;
using granular::CapsuleBodies;
using granular::GeneralContact;
using granular::GranularModel;
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
Eigen::Vector3d world_force(const GeneralContact& c, double h) { return (c.r[0] * c.n + c.r[1] * c.t1 + c.r[2] * c.t2) / h; }

// Sum of the contact forces on every bead and every capsule (the force acts on b, its opposite on a).
void body_forces(const GranularModel& m, const FrameContacts& fc, double h, std::vector<Eigen::Vector3d>& beads,
                 std::vector<Eigen::Vector3d>& capsules) {
  beads.assign(m.beads.size(), Eigen::Vector3d::Zero());
  capsules.assign(m.capsules.size(), Eigen::Vector3d::Zero());
  for (const SweepContact& c : fc.beads) {
    const Eigen::Vector3d f = world_force(c, h);
    beads[c.b] += f;
    if (c.a >= 0) beads[c.a] -= f;
  }
  auto add = [&](BodyKind kind, int i, const Eigen::Vector3d& f) {
    if (kind == BodyKind::Sphere) beads[i] += f;
    if (kind == BodyKind::Capsule) capsules[i] += f;
  };
  for (const GeneralContact& c : fc.general) {
    const Eigen::Vector3d f = world_force(c, h);
    add(c.kind_b, c.b, f);
    add(c.kind_a, c.a, -f);
  }
}

void piece_header(std::ofstream& o, const char* cells, int points, int count) {
  o << "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n<PolyData>\n"
    << "<Piece NumberOfPoints=\"" << points << "\" " << cells << "=\"" << count << "\">\n";
}

// Connectivity of `count` cells of `per_cell` consecutive points each.
void cells(std::ofstream& o, const char* section, int count, int per_cell) {
  o << "<" << section << ">\n<DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n";
  for (int i = 0; i < per_cell * count; ++i) o << i << '\n';
  o << "</DataArray>\n<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n";
  for (int i = 0; i < count; ++i) o << per_cell * (i + 1) << '\n';
  o << "</DataArray>\n</" << section << ">\n";
}

}  // namespace

void write_beads_vtp(const std::filesystem::path& file, const GranularModel& m, const FrameContacts& fc, double h) {
  const SphereBodies& b = m.beads;
  const int n = b.size();
  std::vector<Eigen::Vector3d> force, capsule_force;
  body_forces(m, fc, h, force, capsule_force);
  std::ofstream o = open_out(file);
  piece_header(o, "NumberOfVerts", n, n);
  o << "<Points>\n";
  data_array(o, "points", 3, n, [&](int i, int c) { return b.x[i][c]; });
  o << "</Points>\n";
  cells(o, "Verts", n, 1);
  o << "<PointData Scalars=\"radius\" Vectors=\"velocity\">\n";
  data_array(o, "radius", 1, n, [&](int i, int) { return b.radius[i]; });
  data_array(o, "velocity", 3, n, [&](int i, int c) { return b.v[i][c]; });
  data_array(o, "angular_velocity", 3, n, [&](int i, int c) { return b.w[i][c]; });
  data_array(o, "contact_force", 3, n, [&](int i, int c) { return force[i][c]; });
  data_array(o, "id", 1, n, [&](int i, int) { return static_cast<double>(b.id[i]); });
  o << "</PointData>\n</Piece>\n</PolyData>\n</VTKFile>\n";
  finish(o, file);
}

void write_capsules_vtp(const std::filesystem::path& file, const GranularModel& m, const FrameContacts& fc,
                        double h) {
  const CapsuleBodies& k = m.capsules;
  const int n = k.size();
  std::vector<Eigen::Vector3d> bead_force, force;
  body_forces(m, fc, h, bead_force, force);
  std::ofstream o = open_out(file);
  piece_header(o, "NumberOfVerts", n, n);
  o << "<Points>\n";
  data_array(o, "points", 3, n, [&](int i, int c) { return k.x[i][c]; });
  o << "</Points>\n";
  cells(o, "Verts", n, 1);
  o << "<PointData Scalars=\"radius\" Vectors=\"axis\">\n";
  data_array(o, "radius", 1, n, [&](int i, int) { return k.radius[i]; });
  data_array(o, "half_length", 1, n, [&](int i, int) { return k.half_length[i]; });
  data_array(o, "axis", 3, n, [&](int i, int c) { return k.axis(i)[c]; });
  data_array(o, "orientation", 4, n, [&](int i, int c) { return c == 0 ? k.q[i].w() : k.q[i].vec()[c - 1]; });
  data_array(o, "velocity", 3, n, [&](int i, int c) { return k.v[i][c]; });
  data_array(o, "angular_velocity", 3, n, [&](int i, int c) { return k.w[i][c]; });
  data_array(o, "contact_force", 3, n, [&](int i, int c) { return force[i][c]; });
  data_array(o, "id", 1, n, [&](int i, int) { return static_cast<double>(k.id[i]); });
  o << "</PointData>\n</Piece>\n</PolyData>\n</VTKFile>\n";
  finish(o, file);
}

void write_contacts_vtp(const std::filesystem::path& file, const GranularModel& m, const FrameContacts& fc,
                        double h) {
  const SphereBodies& b = m.beads;
  // Active contacts: bead ones first (k ≥ 0), then general ones (−1 − k).
  std::vector<int> active;
  for (int k = 0; k < static_cast<int>(fc.beads.size()); ++k)
    if (fc.beads[k].r[0] > 0.0) active.push_back(k);
  for (int k = 0; k < static_cast<int>(fc.general.size()); ++k)
    if (fc.general[k].r[0] > 0.0) active.push_back(-1 - k);
  const int n = static_cast<int>(active.size());
  // A line per contact from body a's centre (an obstacle: the contact point) to body b's centre.
  auto centre = [&](BodyKind kind, int i) { return kind == BodyKind::Sphere ? b.x[i] : m.capsules.x[i]; };
  auto end_point = [&](int p) -> Eigen::Vector3d {
    const int k = active[p / 2];
    if (k >= 0) {
      const SweepContact& c = fc.beads[k];
      if (p % 2 == 1) return b.x[c.b];
      return c.a >= 0 ? b.x[c.a] : Eigen::Vector3d(b.x[c.b] - c.rb * c.n);
    }
    const GeneralContact& c = fc.general[-1 - k];
    const Eigen::Vector3d xb = centre(c.kind_b, c.b);
    if (p % 2 == 1) return xb;
    return c.kind_a == BodyKind::Fixed ? Eigen::Vector3d(xb + c.pb) : centre(c.kind_a, c.a);
  };
  auto force = [&](int i) {
    const int k = active[i];
    return k >= 0 ? world_force(fc.beads[k], h) : world_force(fc.general[-1 - k], h);
  };
  std::ofstream o = open_out(file);
  piece_header(o, "NumberOfLines", 2 * n, n);
  o << "<Points>\n";
  data_array(o, "points", 3, 2 * n, [&](int p, int c) { return end_point(p)[c]; });
  o << "</Points>\n";
  cells(o, "Lines", n, 2);
  o << "<CellData Scalars=\"normal_force\">\n";
  data_array(o, "normal_force", 1, n, [&](int i, int) {
    const int k = active[i];
    return (k >= 0 ? fc.beads[k].r[0] : fc.general[-1 - k].r[0]) / h;
  });
  data_array(o, "force", 3, n, [&](int i, int c) { return force(i)[c]; });
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
  const herr_t s = d < 0 ? -1 : rows == 0 ? 0 : H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  if (d >= 0) H5Dclose(d);
  H5Sclose(space);
  check(s, f, name);
}

std::vector<double> read_all(hid_t group, const char* name, hsize_t expect, const std::filesystem::path& f) {
  const hid_t d = H5Dopen2(group, name, H5P_DEFAULT);
  if (d < 0) throw std::runtime_error(f.string() + ": no dataset " + name);
  const hid_t space = H5Dget_space(d);
  const hssize_t count = H5Sget_simple_extent_npoints(space);
  H5Sclose(space);
  std::vector<double> v(count > 0 ? count : 0);
  const herr_t s = static_cast<hsize_t>(count) != expect ? -1
                   : expect == 0                        ? 0
                                                        : H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  H5Dclose(d);
  if (s < 0) throw std::runtime_error(f.string() + ": dataset " + name + " unreadable or not of the expected size");
  return v;
}

hsize_t row_count(hid_t group, const char* name, const std::filesystem::path& f) {
  const hid_t d = H5Dopen2(group, name, H5P_DEFAULT);
  if (d < 0) throw std::runtime_error(f.string() + ": no dataset " + name);
  const hid_t space = H5Dget_space(d);
  const hsize_t n = H5Sget_simple_extent_npoints(space);
  H5Sclose(space);
  H5Dclose(d);
  return n;
}

// Writes n rows of `cols` doubles taken from each element by get(element, column).
template <class T, class Get>
void write_rows(hid_t g, const char* name, const std::vector<T>& a, int cols, Get get, std::vector<double>& buf,
                const std::filesystem::path& f) {
  const hsize_t n = a.size();
  buf.resize(cols * n);
  for (hsize_t i = 0; i < n; ++i)
    for (int c = 0; c < cols; ++c) buf[cols * i + c] = get(a[i], c);
  write_matrix(g, name, buf.data(), n, cols, f);
}

Eigen::Vector3d row3(const std::vector<double>& a, hsize_t i) { return {a[3 * i], a[3 * i + 1], a[3 * i + 2]}; }

void write_bead_group(hid_t g, const SphereBodies& b, std::vector<double>& buf, const std::filesystem::path& f) {
  const auto vec = [](const Eigen::Vector3d& v, int c) { return v[c]; };
  const auto scalar = [](double v, int) { return v; };
  write_rows(g, "x", b.x, 3, vec, buf, f);
  write_rows(g, "v", b.v, 3, vec, buf, f);
  write_rows(g, "w", b.w, 3, vec, buf, f);
  write_rows(g, "radius", b.radius, 1, scalar, buf, f);
  write_rows(g, "mass", b.mass, 1, scalar, buf, f);
  write_rows(g, "id", b.id, 1, [](std::uint32_t v, int) { return static_cast<double>(v); }, buf, f);
}

void write_capsule_group(hid_t g, const CapsuleBodies& k, std::vector<double>& buf, const std::filesystem::path& f) {
  const auto vec = [](const Eigen::Vector3d& v, int c) { return v[c]; };
  const auto scalar = [](double v, int) { return v; };
  write_rows(g, "x", k.x, 3, vec, buf, f);
  write_rows(g, "v", k.v, 3, vec, buf, f);
  write_rows(g, "w", k.w, 3, vec, buf, f);
  write_rows(g, "q", k.q, 4, [](const Eigen::Quaterniond& q, int c) { return c == 0 ? q.w() : q.vec()[c - 1]; }, buf, f);
  write_rows(g, "radius", k.radius, 1, scalar, buf, f);
  write_rows(g, "half_length", k.half_length, 1, scalar, buf, f);
  write_rows(g, "mass", k.mass, 1, scalar, buf, f);
  write_rows(g, "inv_mass", k.inv_mass, 1, scalar, buf, f);
  write_rows(g, "inertia", k.inertia, 3, vec, buf, f);
  write_rows(g, "id", k.id, 1, [](std::uint32_t v, int) { return static_cast<double>(v); }, buf, f);
}

// Beads keep the archive's mass (not recomputed from a density) so that the state comes back bitwise.
SphereBodies read_bead_group(hid_t g, const std::filesystem::path& f) {
  const hsize_t n = row_count(g, "radius", f);
  const auto x = read_all(g, "x", 3 * n, f), v = read_all(g, "v", 3 * n, f), w = read_all(g, "w", 3 * n, f);
  const auto r = read_all(g, "radius", n, f), mass = read_all(g, "mass", n, f), id = read_all(g, "id", n, f);
  SphereBodies b;
  b.reserve(static_cast<int>(n));
  for (hsize_t i = 0; i < n; ++i) {
    if (!(mass[i] > 0.0)) throw std::runtime_error(f.string() + ": bead mass not positive");
    b.add(row3(x, i), r[i], 1.0, row3(v, i));
    b.w[i] = row3(w, i);
    b.mass[i] = mass[i];
    b.inv_mass[i] = 1.0 / mass[i];
    b.inv_inertia[i] = 1.0 / (0.4 * mass[i] * r[i] * r[i]);
    b.id[i] = static_cast<std::uint32_t>(id[i]);
  }
  return b;
}

CapsuleBodies read_capsule_group(hid_t g, const std::filesystem::path& f) {
  const hsize_t n = row_count(g, "radius", f);
  const auto x = read_all(g, "x", 3 * n, f), v = read_all(g, "v", 3 * n, f), w = read_all(g, "w", 3 * n, f);
  const auto q = read_all(g, "q", 4 * n, f), r = read_all(g, "radius", n, f);
  const auto half = read_all(g, "half_length", n, f), mass = read_all(g, "mass", n, f);
  const auto inv_mass = read_all(g, "inv_mass", n, f), inertia = read_all(g, "inertia", 3 * n, f);
  const auto id = read_all(g, "id", n, f);
  CapsuleBodies k;
  for (hsize_t i = 0; i < n; ++i) {
    k.add(row3(x, i), Eigen::Vector3d::UnitZ(), half[i], r[i], 1.0, row3(v, i));
    k.w[i] = row3(w, i);
    k.q[i] = Eigen::Quaterniond(q[4 * i], q[4 * i + 1], q[4 * i + 2], q[4 * i + 3]);
    k.mass[i] = mass[i];
    k.inv_mass[i] = inv_mass[i];
    k.inertia[i] = row3(inertia, i);
    k.id[i] = static_cast<std::uint32_t>(id[i]);
  }
  refresh_world_inertia(k);
  return k;
}

}  // namespace

void write_restart(const std::filesystem::path& file, const granular::GranularModel& m) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const hid_t f = H5Fcreate(file.string().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (f < 0) throw std::runtime_error(file.string() + ": cannot create the restart archive");
  std::vector<double> buf;
  std::vector<hid_t> groups;
  try {
    groups.push_back(H5Gcreate2(f, "beads", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    if (groups.back() < 0) throw std::runtime_error(file.string() + ": HDF5 failed to create /beads");
    write_bead_group(groups.back(), m.beads, buf, file);
    if (m.capsules.size() > 0) {
      groups.push_back(H5Gcreate2(f, "capsules", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
      if (groups.back() < 0) throw std::runtime_error(file.string() + ": HDF5 failed to create /capsules");
      write_capsule_group(groups.back(), m.capsules, buf, file);
    }
    const double clock[4] = {m.time, static_cast<double>(m.step), static_cast<double>(m.beads.next_id),
                             static_cast<double>(m.capsules.next_id)};
    write_matrix(f, "clock", clock, 4, 1, file);
  } catch (...) {
    for (hid_t g : groups)
      if (g >= 0) H5Gclose(g);
    H5Fclose(f);
    throw;
  }
  for (hid_t g : groups) H5Gclose(g);
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
  const hid_t gc = H5Lexists(f, "capsules", H5P_DEFAULT) > 0 ? H5Gopen2(f, "capsules", H5P_DEFAULT) : -1;
  try {
    SphereBodies b = read_bead_group(g, file);
    CapsuleBodies k = gc >= 0 ? read_capsule_group(gc, file) : CapsuleBodies{};
    // Archives written before capsules existed hold 3 clock entries.
    const hsize_t entries = row_count(f, "clock", file);
    if (entries != 3 && entries != 4) throw std::runtime_error(file.string() + ": /clock has " +
                                                               std::to_string(entries) + " entries (expected 4)");
    const auto clock = read_all(f, "clock", entries, file);
    b.next_id = static_cast<std::uint32_t>(clock[2]);
    k.next_id = entries == 4 ? static_cast<std::uint32_t>(clock[3]) : static_cast<std::uint32_t>(k.size());
    m.beads = std::move(b);
    m.capsules = std::move(k);
    m.time = clock[0];
    m.step = static_cast<long>(clock[1]);
  } catch (...) {
    if (gc >= 0) H5Gclose(gc);
    H5Gclose(g);
    H5Fclose(f);
    throw;
  }
  if (gc >= 0) H5Gclose(gc);
  H5Gclose(g);
  H5Fclose(f);
}

}  // namespace talus::app
