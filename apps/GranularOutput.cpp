#include "apps/GranularOutput.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <stdexcept>

#include "apps/ResourceLimits.hpp"
#include "engine/detection/BeamSphereContact.hpp"
#include "engine/granular/MovingMeshContacts.hpp"

namespace talus::app {

namespace {

using granular::BodyKind;
using granular::GeneralContact;
using matrixfree::FlexibleContact;
using talus::Model;
using granular::SweepContact;

// Opens the temporary name of f; finish() closes it and renames it to f.
std::ofstream open_out(const std::filesystem::path& f) {
  std::ofstream o(temporary_name(f));
  if (!o) throw std::runtime_error(f.string() + ": cannot write");
  o.precision(9);
  return o;
}

void finish(std::ofstream& o, const std::filesystem::path& f) {
  o.close();
  if (!o) {
    std::error_code ec;
    std::filesystem::remove(temporary_name(f), ec);
    throw std::runtime_error(f.string() + ": write failed");
  }
  commit_file(temporary_name(f), f);
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
Eigen::Vector3d world_force(const FlexibleContact& c, double h) { return (c.r[0] * c.n + c.r[1] * c.t1 + c.r[2] * c.t2) / h; }

// Sum of the contact forces on every body, by body index (the force acts on b, its opposite on a).
void body_forces(const Model& m, const FrameContacts& fc, double h, std::vector<Eigen::Vector3d>& force) {
  force.assign(m.bodies.count(), Eigen::Vector3d::Zero());
  for (const SweepContact& c : fc.beads) {
    const Eigen::Vector3d f = world_force(c, h);
    force[c.b] += f;
    if (c.a >= 0) force[c.a] -= f;
  }
  auto add = [&](BodyKind kind, int i, const Eigen::Vector3d& f) {
    if (kind != BodyKind::Fixed) force[i] += f;
  };
  for (const GeneralContact& c : fc.general) {
    const Eigen::Vector3d f = world_force(c, h);
    add(c.kind_b, c.b, f);
    add(c.kind_a, c.a, -f);
  }
  for (const FlexibleContact& c : fc.beams) force[c.rigid] += world_force(c, h);
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

// The opening of a frame of bodies [first, first + n) of the store as vertices at their centres, up to the
// point data's opening tag (`scalars`, `vectors`: ParaView's default arrays).
void begin_body_points(std::ofstream& o, const RigidBodies& b, int first, int n, const char* scalars,
                       const char* vectors) {
  piece_header(o, "NumberOfVerts", n, n);
  o << "<Points>\n";
  data_array(o, "points", 3, n, [&](int i, int c) { return b.x[first + i][c]; });
  o << "</Points>\n";
  cells(o, "Verts", n, 1);
  o << "<PointData Scalars=\"" << scalars << "\" Vectors=\"" << vectors << "\">\n";
}

}  // namespace

std::filesystem::path temporary_name(const std::filesystem::path& file) {
  return file.parent_path() / ("." + file.filename().string() + ".tmp");
}

void commit_file(const std::filesystem::path& tmp, const std::filesystem::path& file) {
  std::error_code ec;
  std::filesystem::rename(tmp, file, ec);
  if (ec) throw std::runtime_error(file.string() + ": cannot rename " + tmp.filename().string() + " to it: " + ec.message());
}

FrameContacts frame_contacts(const granular::GranularStepper* stepper) {
  static const std::vector<SweepContact> no_beads;
  static const std::vector<GeneralContact> no_general;
  static const std::vector<FlexibleContact> no_beams;
  if (!stepper) return {no_beads, no_general, no_beams};
  return {stepper->contacts(), stepper->general_contacts().contacts, stepper->general_contacts().flexible.contacts};
}

bool beads_have_materials(const Model& m) {
  const RigidBodies& b = m.bodies;
  return std::any_of(b.material.begin(), b.material.begin() + b.spheres(), [](std::uint8_t k) { return k != kBeadMaterial; });
}

void write_beads_vtp(const std::filesystem::path& file, const Model& m, const FrameContacts& fc, double h,
                     FramePiece piece) {
  const RigidBodies& b = m.bodies;
  const int first = piece.begin(b.spheres()), n = piece.end(b.spheres()) - first;
  std::vector<Eigen::Vector3d> force;
  body_forces(m, fc, h, force);
  std::ofstream o = open_out(file);
  begin_body_points(o, b, first, n, "radius", "velocity");
  data_array(o, "radius", 1, n, [&](int i, int) { return b.radius[first + i]; });
  data_array(o, "velocity", 3, n, [&](int i, int c) { return b.v[first + i][c]; });
  data_array(o, "angular_velocity", 3, n, [&](int i, int c) { return b.w[first + i][c]; });
  data_array(o, "contact_force", 3, n, [&](int i, int c) { return force[first + i][c]; });
  data_array(o, "id", 1, n, [&](int i, int) { return static_cast<double>(b.id[first + i]); });
  // Only in scenes with materials: the frames of a scene without them stay as they were. Decided over all beads,
  // so that the pieces of one frame hold the same arrays.
  if (beads_have_materials(m))
    data_array(o, "material", 1, n, [&](int i, int) { return static_cast<double>(b.material[first + i]); });
  o << "</PointData>\n</Piece>\n</PolyData>\n</VTKFile>\n";
  finish(o, file);
}

void write_pvtp(const std::filesystem::path& file, const Model& m, const std::string& series,
                const std::vector<std::string>& pieces) {
  std::ofstream o = open_out(file);
  o << "<?xml version=\"1.0\"?>\n<VTKFile type=\"PPolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
    << "<PPolyData GhostLevel=\"0\">\n";
  const auto array = [&](const char* name, int components) {
    o << "<PDataArray type=\"Float64\" Name=\"" << name << "\" NumberOfComponents=\"" << components << "\"/>\n";
  };
  // The arrays of write_beads_vtp and write_contacts_vtp, in their order.
  if (series == "beads") {
    o << "<PPointData Scalars=\"radius\" Vectors=\"velocity\">\n";
    array("radius", 1), array("velocity", 3), array("angular_velocity", 3), array("contact_force", 3), array("id", 1);
    if (beads_have_materials(m)) array("material", 1);
    o << "</PPointData>\n";
  } else if (series == "contacts") {
    o << "<PCellData Scalars=\"normal_force\">\n";
    array("normal_force", 1), array("force", 3);
    o << "</PCellData>\n";
  } else {
    throw std::invalid_argument("write_pvtp: no pieced series '" + series + "'");
  }
  o << "<PPoints>\n";
  array("points", 3);
  o << "</PPoints>\n";
  for (const std::string& piece : pieces) o << "<Piece Source=\"" << piece << "\"/>\n";
  o << "</PPolyData>\n</VTKFile>\n";
  finish(o, file);
}

void write_meshes_vtp(const std::filesystem::path& file, const Model& m) {
  int points = 0, triangles = 0;
  for (const auto& mesh : m.meshes) points += static_cast<int>(mesh->vertices.size()), triangles += mesh->faces();
  std::ofstream o = open_out(file);
  piece_header(o, "NumberOfPolys", points, triangles);
  o << "<Points>\n<DataArray type=\"Float64\" Name=\"points\" NumberOfComponents=\"3\" format=\"ascii\">\n";
  for (int k = 0; k < static_cast<int>(m.meshes.size()); ++k) {
    // A moving or carried mesh where it is now.
    const granular::MeshPose pose = granular::mesh_pose(m, k, m.time);
    for (const Eigen::Vector3d& v : m.meshes[k]->vertices) {
      const Eigen::Vector3d p = pose.R * v + pose.t;
      o << p.x() << ' ' << p.y() << ' ' << p.z() << '\n';
    }
  }
  o << "</DataArray>\n</Points>\n<Polys>\n<DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n";
  int base = 0;
  for (const auto& mesh : m.meshes) {
    for (const auto& t : mesh->triangles) o << base + t[0] << ' ' << base + t[1] << ' ' << base + t[2] << '\n';
    base += static_cast<int>(mesh->vertices.size());
  }
  o << "</DataArray>\n<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n";
  for (int i = 0; i < triangles; ++i) o << 3 * (i + 1) << '\n';
  o << "</DataArray>\n</Polys>\n<CellData Scalars=\"mesh\">\n";
  o << "<DataArray type=\"Int32\" Name=\"mesh\" format=\"ascii\">\n";
  for (std::size_t k = 0; k < m.meshes.size(); ++k)
    for (int t = 0; t < m.meshes[k]->faces(); ++t) o << k << '\n';
  o << "</DataArray>\n</CellData>\n</Piece>\n</PolyData>\n</VTKFile>\n";
  finish(o, file);
}

void write_capsules_vtp(const std::filesystem::path& file, const Model& m, const FrameContacts& fc,
                        double h) {
  // The capsule group of the one store, numbered from 0 in the file.
  const RigidBodies& k = m.bodies;
  const int n = k.capsules(), c0 = k.capsule(0);
  std::vector<Eigen::Vector3d> force;
  body_forces(m, fc, h, force);
  std::ofstream o = open_out(file);
  begin_body_points(o, k, c0, n, "radius", "axis");
  data_array(o, "radius", 1, n, [&](int i, int) { return k.radius[c0 + i]; });
  data_array(o, "half_length", 1, n, [&](int i, int) { return k.half_length[c0 + i]; });
  data_array(o, "axis", 3, n, [&](int i, int c) { return k.axis(c0 + i)[c]; });
  data_array(o, "orientation", 4, n, [&](int i, int c) { return c == 0 ? k.q[c0 + i].w() : k.q[c0 + i].vec()[c - 1]; });
  data_array(o, "velocity", 3, n, [&](int i, int c) { return k.v[c0 + i][c]; });
  data_array(o, "angular_velocity", 3, n, [&](int i, int c) { return k.w[c0 + i][c]; });
  data_array(o, "contact_force", 3, n, [&](int i, int c) { return force[c0 + i][c]; });
  data_array(o, "id", 1, n, [&](int i, int) { return static_cast<double>(k.id[c0 + i]); });
  o << "</PointData>\n</Piece>\n</PolyData>\n</VTKFile>\n";
  finish(o, file);
}

void write_bodies_vtp(const std::filesystem::path& file, const Model& m) {
  // The general group of the one store (the small path's rigid bodies), numbered from 0 in the file.
  const RigidBodies& k = m.bodies;
  const int g0 = k.group_begin(ShapeKind::General), n = k.general();
  std::ofstream o = open_out(file);
  begin_body_points(o, k, g0, n, "radius", "velocity");
  data_array(o, "radius", 1, n, [&](int i, int) { return k.radius[g0 + i]; });
  data_array(o, "orientation", 4, n, [&](int i, int c) { return c == 0 ? k.q[g0 + i].w() : k.q[g0 + i].vec()[c - 1]; });
  data_array(o, "velocity", 3, n, [&](int i, int c) { return k.v[g0 + i][c]; });
  data_array(o, "angular_velocity", 3, n, [&](int i, int c) { return k.w[g0 + i][c]; });
  data_array(o, "id", 1, n, [&](int i, int) { return static_cast<double>(k.id[g0 + i]); });
  o << "</PointData>\n</Piece>\n</PolyData>\n</VTKFile>\n";
  finish(o, file);
}

void write_beams_vtp(const std::filesystem::path& file, const Model& m) {
  // Each beam's deformed centreline as one polyline, kPerElement segments per element (the Hermite cubic
  // between nodes is smooth, so a few segments draw it).
  constexpr int kPerElement = 8;
  const std::vector<ContactBeam>& beams = m.detection.beams;
  std::vector<Eigen::Vector3d> points;
  std::vector<double> deflection, speed;
  std::vector<int> offsets;
  for (const ContactBeam& beam : beams) {
    const BeamContactGeometry& g = beam.geometry;
    const LagrangianLti& sys = m.lti[static_cast<std::size_t>(beam.lti)];
    const int n = kPerElement * g.elements;
    for (int k = 0; k <= n; ++k) {
      const double s = g.length * k / n;
      const double w = beam_deflection_at(g, sys.q, s)[0];
      points.push_back(g.origin + s * g.axis + w * g.deflection);
      deflection.push_back(w);
      speed.push_back(beam_deflection_at(g, sys.v, s)[0]);  // linear in q: the same map gives ẇ(s)
    }
    offsets.push_back(static_cast<int>(points.size()));
  }
  const int np = static_cast<int>(points.size()), nb = static_cast<int>(beams.size());
  std::ofstream o = open_out(file);
  piece_header(o, "NumberOfLines", np, nb);
  o << "<Points>\n";
  data_array(o, "points", 3, np, [&](int i, int c) { return points[i][c]; });
  o << "</Points>\n<Lines>\n<DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n";
  for (int i = 0; i < np; ++i) o << i << '\n';
  o << "</DataArray>\n<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n";
  for (int off : offsets) o << off << '\n';
  o << "</DataArray>\n</Lines>\n<PointData Scalars=\"deflection\">\n";
  data_array(o, "deflection", 1, np, [&](int i, int) { return deflection[i]; });
  data_array(o, "deflection_velocity", 1, np, [&](int i, int) { return speed[i]; });
  o << "</PointData>\n<CellData Scalars=\"beam\">\n";
  data_array(o, "beam", 1, nb, [&](int i, int) { return static_cast<double>(i); });
  o << "</CellData>\n</Piece>\n</PolyData>\n</VTKFile>\n";
  finish(o, file);
}

void write_interaction_contacts_vtp(const std::filesystem::path& file, const Model& m, double h) {
  // The small path's contacts that carried an impulse in the last step, as the large path's network draws its
  // own: a line from the other side (a sphere's centre, a plane's or beam's contact point) to the sphere's centre.
  std::vector<Eigen::Vector3d> ends;
  std::vector<double> normal_force, index;
  const RigidBodies& b = m.bodies;
  for (std::size_t k = 0; k < m.interactions.size(); ++k) {
    const Interaction& in = m.interactions[k];
    if (in.impulse.size() == 0 || !(in.impulse[0] > 0.0)) continue;
    const Eigen::Vector3d c = in.systems.empty() ? Eigen::Vector3d::Zero() : b.x[in.systems[0].index];
    if (const auto* sc = std::get_if<SphereContactRelation>(&in.relation)) {
      if (in.systems.size() == 2) ends.push_back(b.x[in.systems[1].index]);
      else ends.push_back(c - (sc->plane_normal.dot(c) - sc->plane_offset) * sc->plane_normal);
    } else if (const auto* bc = std::get_if<BeamSphereContactRelation>(&in.relation)) {
      const LagrangianLti& beam = m.lti[static_cast<std::size_t>(in.systems[1].index)];
      const double r = b.radius[in.systems[0].index];
      const BeamSphereContact contact =
          beam_sphere_contact(bc->beam, bc->side, beam.q, {c, Eigen::Vector4d(1, 0, 0, 0), r});
      ends.push_back(c - (contact.gap + r) * contact.frame.n);  // the point of the strip's surface under the sphere
    } else {
      continue;  // joints and user relations are not contacts
    }
    ends.push_back(c);
    normal_force.push_back(in.impulse[0] / h);
    index.push_back(static_cast<double>(k));
  }
  const int n = static_cast<int>(normal_force.size());
  std::ofstream o = open_out(file);
  piece_header(o, "NumberOfLines", 2 * n, n);
  o << "<Points>\n";
  data_array(o, "points", 3, 2 * n, [&](int p, int c) { return ends[p][c]; });
  o << "</Points>\n";
  cells(o, "Lines", n, 2);
  o << "<CellData Scalars=\"normal_force\">\n";
  data_array(o, "normal_force", 1, n, [&](int i, int) { return normal_force[i]; });
  data_array(o, "interaction", 1, n, [&](int i, int) { return index[i]; });
  o << "</CellData>\n</Piece>\n</PolyData>\n</VTKFile>\n";
  finish(o, file);
}

void write_contacts_vtp(const std::filesystem::path& file, const Model& m, const FrameContacts& fc,
                        double h, FramePiece piece) {
  const RigidBodies& b = m.bodies;
  // Active contacts: bead ones, then general ones, then those with beams; a piece writes its share of them.
  enum Kind { Bead, General, Beam };
  std::vector<std::pair<Kind, int>> active;
  for (int k = 0; k < static_cast<int>(fc.beads.size()); ++k)
    if (fc.beads[k].r[0] > 0.0) active.emplace_back(Bead, k);
  for (int k = 0; k < static_cast<int>(fc.general.size()); ++k)
    if (fc.general[k].r[0] > 0.0) active.emplace_back(General, k);
  for (int k = 0; k < static_cast<int>(fc.beams.size()); ++k)
    if (fc.beams[k].r[0] > 0.0) active.emplace_back(Beam, k);
  const int all = static_cast<int>(active.size());
  active.erase(active.begin() + piece.end(all), active.end());
  active.erase(active.begin(), active.begin() + piece.begin(all));
  const int n = static_cast<int>(active.size());
  // A line per contact from body a's centre (an obstacle or a beam: the contact point) to body b's centre.
  auto centre = [&](BodyKind, int i) { return b.x[i]; };
  auto end_point = [&](int p) -> Eigen::Vector3d {
    const auto [kind, k] = active[p / 2];
    if (kind == Bead) {
      const SweepContact& c = fc.beads[k];
      if (p % 2 == 1) return b.x[c.b];
      return c.a >= 0 ? b.x[c.a] : Eigen::Vector3d(b.x[c.b] - c.rb * c.n);
    }
    if (kind == Beam) {
      const FlexibleContact& c = fc.beams[k];
      return p % 2 == 1 ? b.x[c.rigid] : Eigen::Vector3d(b.x[c.rigid] + c.p);
    }
    const GeneralContact& c = fc.general[k];
    const Eigen::Vector3d xb = centre(c.kind_b, c.b);
    if (p % 2 == 1) return xb;
    return c.kind_a == BodyKind::Fixed ? Eigen::Vector3d(xb + c.pb) : centre(c.kind_a, c.a);
  };
  auto impulse = [&](int i) -> const Eigen::Vector3d& {
    const auto [kind, k] = active[i];
    return kind == Bead ? fc.beads[k].r : kind == General ? fc.general[k].r : fc.beams[k].r;
  };
  auto force = [&](int i) {
    const auto [kind, k] = active[i];
    return kind == Bead ? world_force(fc.beads[k], h)
                        : kind == General ? world_force(fc.general[k], h) : world_force(fc.beams[k], h);
  };
  std::ofstream o = open_out(file);
  piece_header(o, "NumberOfLines", 2 * n, n);
  o << "<Points>\n";
  data_array(o, "points", 3, 2 * n, [&](int p, int c) { return end_point(p)[c]; });
  o << "</Points>\n";
  cells(o, "Lines", n, 2);
  o << "<CellData Scalars=\"normal_force\">\n";
  data_array(o, "normal_force", 1, n, [&](int i, int) { return impulse(i)[0] / h; });
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

using Path = std::filesystem::path;
using contact::ContactKey;

// Bytes per body while an archive is read and the bodies built (the datasets' doubles, twice, and the bodies).
constexpr double kBytesPerRow = 600.0;

// Exact integers a double holds (ids, steps and counters are archived as doubles).
constexpr double kMaxExactInteger = 9007199254740992.0;  // 2^53

void check(herr_t s, const Path& f, const std::string& what) {
  if (s < 0) throw std::runtime_error(f.string() + ": HDF5 failed to " + what);
}

void text_attribute(hid_t obj, const char* name, const std::string& value, const Path& f, const std::string& where) {
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, value.size() + 1);
  H5Tset_strpad(type, H5T_STR_NULLTERM);
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  const herr_t s = a < 0 ? -1 : H5Awrite(a, type, value.c_str());
  if (a >= 0) H5Aclose(a);
  H5Sclose(space);
  H5Tclose(type);
  check(s, f, "write the attribute " + std::string(name) + " of " + where);
}

// Datasets of one group, each with its units and what it is.
struct Writer {
  hid_t g;
  std::string path;  // "/beads/"
  const Path& f;
  std::vector<double> buf;

  void dataset(const char* name, hid_t file_type, hid_t mem_type, const void* data, hsize_t rows, hsize_t cols,
               const char* units, const std::string& description) {
    const hsize_t dims[2] = {rows, cols};
    const hid_t space = H5Screate_simple(cols == 1 ? 1 : 2, dims, nullptr);
    const hid_t d = H5Dcreate2(g, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const herr_t s = d < 0 ? -1 : rows == 0 ? 0 : H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
    H5Sclose(space);
    if (s < 0) {
      if (d >= 0) H5Dclose(d);
      check(s, f, "write " + path + name);
    }
    try {
      text_attribute(d, "units", units, f, path + name);
      text_attribute(d, "description", description, f, path + name);
    } catch (...) {
      H5Dclose(d);
      throw;
    }
    H5Dclose(d);
  }
  void matrix(const char* name, const double* data, hsize_t rows, hsize_t cols, const char* units,
              const std::string& description) {
    dataset(name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, data, rows, cols, units, description);
  }
  // n rows of `cols` doubles taken from each element by get(element, column).
  template <class T, class Get>
  void rows(const char* name, const std::vector<T>& a, int cols, Get get, const char* units, const std::string& description) {
    const hsize_t n = a.size();
    buf.resize(cols * n);
    for (hsize_t i = 0; i < n; ++i)
      for (int c = 0; c < cols; ++c) buf[cols * i + c] = get(a[i], c);
    matrix(name, buf.data(), n, cols, units, description);
  }
  void vectors(const char* name, const std::vector<Eigen::Vector3d>& a, const char* units, const std::string& d) {
    rows(name, a, 3, [](const Eigen::Vector3d& v, int c) { return v[c]; }, units, d);
  }
  void scalars(const char* name, const std::vector<double>& a, const char* units, const std::string& d) {
    rows(name, a, 1, [](double v, int) { return v; }, units, d);
  }
  void ids(const char* name, const std::vector<std::uint32_t>& a, const std::string& d) {
    rows(name, a, 1, [](std::uint32_t v, int) { return static_cast<double>(v); }, "1", d);
  }
};

// An HDF5 group opened or created, closed on scope exit.
struct Group {
  hid_t id = -1;
  // `where`: the parent's path ("/", "/contacts/"), for the messages.
  Group(hid_t parent, const char* name, bool create, const Path& f, const char* where = "/") {
    id = create ? H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : H5Gopen2(parent, name, H5P_DEFAULT);
    if (id < 0)
      throw std::runtime_error(f.string() + (create ? ": HDF5 failed to create the group " : ": no group ") + where + name);
  }
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;
  ~Group() { H5Gclose(id); }
};

void write_cache(hid_t parent, const char* name, const contact::ContactCache& cache, const char* what, const Path& f) {
  Group g(parent, name, true, f, "/contacts/");
  Writer w{g.id, std::string("/contacts/") + name + "/", f, {}};
  w.dataset("keys", H5T_STD_U64LE, H5T_NATIVE_UINT64, cache.keys().data(), cache.size(), 1, "1",
            std::string("cache keys of the ") + what + " (contact/ContactCache.hpp), strictly increasing");
  w.vectors("impulses", cache.impulses(), "N s", "impulse of each contact over the last step, world frame");
}

// Reads and validates the datasets of one group; every error names the file and the dataset.
struct Reader {
  hid_t g;
  std::string path;
  const Path& f;

  [[noreturn]] void fail(const char* name, const std::string& what) const {
    throw std::runtime_error(f.string() + ": dataset " + path + name + ": " + what);
  }
  bool has(const char* name) const { return H5Lexists(g, name, H5P_DEFAULT) > 0; }

  // The rows of a dataset of rank 1 or 2 (its first dimension).
  hsize_t rows(const char* name) const {
    const hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    if (d < 0) fail(name, "missing");
    const hid_t space = H5Dget_space(d);
    hsize_t dims[2] = {0, 0};
    const int rank = H5Sget_simple_extent_ndims(space);
    if (rank == 1 || rank == 2) H5Sget_simple_extent_dims(space, dims, nullptr);
    H5Sclose(space);
    H5Dclose(d);
    if (rank != 1 && rank != 2) fail(name, "has rank " + std::to_string(rank) + " (expected 1 or 2)");
    // The engine indexes bodies and contacts with int; a larger size is a corrupt archive.
    if (dims[0] > static_cast<hsize_t>(std::numeric_limits<int>::max()))
      fail(name, std::to_string(dims[0]) + " rows (more than the engine indexes)");
    // Reading and building the bodies holds about kBytesPerRow per row: refused before allocating when the
    // machine does not have it (a chunked dataset may declare rows it never stored).
    const double need = static_cast<double>(dims[0]) * kBytesPerRow;
    if (const auto have = available_memory(); have && need > static_cast<double>(*have))
      fail(name, std::to_string(dims[0]) + " rows would need about " + format_bytes(need) + ", more than the " +
                     format_bytes(static_cast<double>(*have)) + " of memory available");
    return dims[0];
  }

  // rows × cols values (cols == 1: rank 1, or rank 2 with one column) of type mem_type into out.
  template <class T>
  void read(const char* name, hsize_t n, hsize_t cols, hid_t mem_type, std::vector<T>& out) const {
    const hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    if (d < 0) fail(name, "missing");
    const hid_t space = H5Dget_space(d);
    hsize_t dims[2] = {0, 1};
    const int rank = H5Sget_simple_extent_ndims(space);
    if (rank == 1 || rank == 2) H5Sget_simple_extent_dims(space, dims, nullptr);
    H5Sclose(space);
    const bool shape_ok = (rank == 1 && cols == 1) || rank == 2;
    if (!shape_ok || dims[0] != n || dims[1] != cols) {
      H5Dclose(d);
      fail(name, "has shape " + std::to_string(dims[0]) + (rank == 2 ? "×" + std::to_string(dims[1]) : std::string()) +
                     " (expected " + std::to_string(n) + (cols > 1 ? "×" + std::to_string(cols) : std::string()) +
                     ": sizes must agree between the datasets of " + path + ")");
    }
    // A declared size whose data were never written (or were cut off) would be read as fill values. Only a
    // contiguous dataset (as written here) must hold every byte: a chunked one may be compressed.
    const hid_t plist = H5Dget_create_plist(d);
    const bool contiguous = plist >= 0 && H5Pget_layout(plist) == H5D_CONTIGUOUS;
    if (plist >= 0) H5Pclose(plist);
    if (n > 0 && contiguous && H5Dget_storage_size(d) < n * cols * sizeof(T)) {
      H5Dclose(d);
      fail(name, "holds fewer values than its size says (truncated archive)");
    }
    out.resize(n * cols);
    const herr_t s = n == 0 ? 0 : H5Dread(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data());
    H5Dclose(d);
    if (s < 0) fail(name, "unreadable");
  }
  std::vector<double> doubles(const char* name, hsize_t n, hsize_t cols) const {
    std::vector<double> v;
    read(name, n, cols, H5T_NATIVE_DOUBLE, v);
    return v;
  }

  static std::string num(double x) {
    char b[64];
    std::snprintf(b, sizeof b, "%.17g", x);
    return b;
  }
  template <class Ok>
  void each(const char* name, const std::vector<double>& a, hsize_t cols, Ok ok, const char* expected) const {
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!ok(a[i]))
        fail(name, "row " + std::to_string(i / cols) + (cols > 1 ? " column " + std::to_string(i % cols) : std::string()) +
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
  std::vector<std::uint32_t> ids(const char* name, hsize_t n) const {
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
  CacheContent cache(const char* group_name) const {
    CacheContent c;
    const hsize_t k = rows("keys");
    read("keys", k, 1, H5T_NATIVE_UINT64, c.keys);
    for (hsize_t i = 1; i < k; ++i)
      if (!(c.keys[i - 1] < c.keys[i]))
        fail("keys", "row " + std::to_string(i) + " is not above the previous one (expected strictly increasing keys)");
    const std::vector<double> r = doubles("impulses", k, 3);
    finite("impulses", r, 3);
    c.impulses.resize(k);
    for (hsize_t i = 0; i < k; ++i) c.impulses[i] = {r[3 * i], r[3 * i + 1], r[3 * i + 2]};
    (void)group_name;
    return c;
  }
};

Eigen::Vector3d row3(const std::vector<double>& a, hsize_t i) { return {a[3 * i], a[3 * i + 1], a[3 * i + 2]}; }

// Elements [begin, end) of one of the store's arrays: a kind's group as the archive stores it.
template <class T>
std::vector<T> slice(const std::vector<T>& a, int begin, int end) {
  return std::vector<T>(a.begin() + begin, a.begin() + end);
}

// The material ids of bodies [begin, end), only when one is not the default "bead": an archive of a scene
// without materials stays what it was before materials existed (and an archive without them reads back as
// all "bead"). The description names the table the ids index.
void write_materials(Writer& w, const RigidBodies& all, int begin, int end, const std::vector<std::string>& names) {
  bool any = false;
  for (int i = begin; i < end; ++i) any = any || all.material[i] != kBeadMaterial;
  if (!any) return;
  std::string table;
  for (std::size_t k = 0; k < names.size(); ++k) table += (k ? ", " : "") + std::to_string(k) + " " + names[k];
  w.dataset("material", H5T_STD_U8LE, H5T_NATIVE_UINT8, all.material.data() + begin, end - begin, 1, "1",
            "material ids into the scene's table (" + table + ")");
}

// The sphere group of the one store.
void write_bead_group(Writer& w, const RigidBodies& all, const std::vector<std::string>& names) {
  RigidBodies b;
  const int e = all.spheres();
  b.x = slice(all.x, 0, e), b.v = slice(all.v, 0, e), b.w = slice(all.w, 0, e), b.radius = slice(all.radius, 0, e);
  b.mass = slice(all.mass, 0, e), b.inv_mass = slice(all.inv_mass, 0, e), b.inv_inertia = slice(all.inv_inertia, 0, e);
  b.id = slice(all.id, 0, e);
  w.vectors("x", b.x, "m", "bead centres, world frame");
  w.vectors("v", b.v, "m/s", "bead velocities, world frame");
  w.vectors("w", b.w, "rad/s", "bead angular velocities, world frame");
  w.scalars("radius", b.radius, "m", "bead radii");
  w.scalars("mass", b.mass, "kg", "bead masses");
  w.scalars("inv_mass", b.inv_mass, "1/kg", "inverse masses (0: fixed bead)");
  w.scalars("inv_inertia", b.inv_inertia, "1/(kg m^2)", "inverse moments of inertia (0: fixed bead)");
  w.ids("id", b.id, "stable bead ids (contact cache keys use them)");
  write_materials(w, all, 0, e, names);
}

// The capsule group of the one store.
void write_capsule_group(Writer& w, const RigidBodies& all, const std::vector<std::string>& names) {
  RigidBodies k;
  const int s = all.group_begin(ShapeKind::Capsule), e = all.group_end(ShapeKind::Capsule);
  k.x = slice(all.x, s, e), k.v = slice(all.v, s, e), k.w = slice(all.w, s, e), k.q = slice(all.q, s, e);
  k.radius = slice(all.radius, s, e), k.half_length = slice(all.half_length, s, e), k.mass = slice(all.mass, s, e);
  k.inv_mass = slice(all.inv_mass, s, e), k.inertia = slice(all.inertia, s, e), k.id = slice(all.id, s, e);
  w.vectors("x", k.x, "m", "capsule centres of mass, world frame");
  w.vectors("v", k.v, "m/s", "capsule velocities, world frame");
  w.vectors("w", k.w, "rad/s", "capsule angular velocities, world frame");
  w.rows("q", k.q, 4, [](const Eigen::Quaterniond& q, int c) { return c == 0 ? q.w() : q.vec()[c - 1]; }, "1",
         "orientations, unit quaternions (w, x, y, z), body to world; body z is the axis");
  w.scalars("radius", k.radius, "m", "capsule radii");
  w.scalars("half_length", k.half_length, "m", "half lengths of the axis segments");
  w.scalars("mass", k.mass, "kg", "capsule masses");
  w.scalars("inv_mass", k.inv_mass, "1/kg", "inverse masses (0: fixed)");
  w.vectors("inertia", k.inertia, "kg m^2", "principal moments of inertia (body x, y, z)");
  w.ids("id", k.id, "stable capsule ids");
  write_materials(w, all, s, e, names);
}

// Beads keep the archive's masses and inverses (not recomputed from a density) so that the state comes back
// bitwise.
// Appends the archive's beads to the sphere group of `b` (read before any capsule).
// The material ids of the n bodies of a group (all "bead" when the archive has none), each below `count`.
std::vector<std::uint8_t> read_materials(const Reader& r, hsize_t n, int count) {
  std::vector<std::uint8_t> id(n, kBeadMaterial);
  if (!r.has("material")) return id;
  r.read("material", n, 1, H5T_NATIVE_UINT8, id);
  for (hsize_t i = 0; i < n; ++i)
    if (id[i] >= count)
      r.fail("material", "row " + std::to_string(i) + " is " + std::to_string(id[i]) + " (expected a material id below the " +
                             std::to_string(count) + " materials of the scene)");
  return id;
}

void read_bead_group(const Reader& r, RigidBodies& b, int materials) {
  const hsize_t n = r.rows("radius");
  const auto x = r.doubles("x", n, 3), v = r.doubles("v", n, 3), w = r.doubles("w", n, 3);
  const auto radius = r.doubles("radius", n, 1), mass = r.doubles("mass", n, 1);
  r.finite("x", x, 3), r.finite("v", v, 3), r.finite("w", w, 3);
  r.positive("radius", radius), r.positive("mass", mass);
  std::vector<double> inv_mass(n), inv_inertia(n);
  for (hsize_t i = 0; i < n; ++i) inv_mass[i] = 1.0 / mass[i], inv_inertia[i] = 1.0 / (0.4 * mass[i] * radius[i] * radius[i]);
  if (r.has("inv_mass")) inv_mass = r.doubles("inv_mass", n, 1), r.non_negative("inv_mass", inv_mass);
  if (r.has("inv_inertia")) {
    inv_inertia = r.doubles("inv_inertia", n, 1), r.non_negative("inv_inertia", inv_inertia);
    // Radius, mass and inertia of a free bead agree (I = 2/5 m r²): a radius scaled alone (a corrupt or edited
    // archive) would otherwise pass as a valid, much larger bead.
    for (hsize_t i = 0; i < n; ++i) {
      if (inv_mass[i] == 0.0 && inv_inertia[i] == 0.0) continue;  // a fixed bead
      if (std::abs(inv_mass[i] * mass[i] - 1.0) > 1e-12)
        r.fail("inv_mass", "row " + std::to_string(i) + " is " + Reader::num(inv_mass[i]) + " (expected 1 / mass = " +
                               Reader::num(1.0 / mass[i]) + ", or 0 for a fixed bead)");
      const double from_inertia = std::sqrt(1.0 / (0.4 * mass[i] * inv_inertia[i]));
      if (!(std::abs(from_inertia / radius[i] - 1.0) <= 1e-9))
        r.fail("radius", "row " + std::to_string(i) + " is " + Reader::num(radius[i]) + " but the bead's mass and inverse "
                             "inertia (/beads/mass, /beads/inv_inertia) give " + Reader::num(from_inertia) +
                             " (expected radius, mass and inertia to agree: I = 2/5 m r^2)");
    }
  }
  const std::vector<std::uint32_t> id = r.ids("id", n);
  const std::vector<std::uint8_t> material = read_materials(r, n, materials);
  b.reserve(b.count() + static_cast<int>(n));
  for (hsize_t k = 0; k < n; ++k) {
    b.add_sphere(row3(x, k), radius[k], 1.0, row3(v, k));
    const int i = b.spheres() - 1;
    b.w[i] = row3(w, k);
    b.mass[i] = mass[k];
    b.inv_mass[i] = inv_mass[k];
    b.inv_inertia[i] = inv_inertia[k];
    b.inertia[i] = Eigen::Vector3d::Constant(inv_inertia[k] > 0.0 ? 1.0 / inv_inertia[k] : 0.4 * mass[k] * radius[k] * radius[k]);
    b.id[i] = id[k];
    b.material[i] = material[k];
  }
}

// Appends the archive's capsules to the capsule group of `k`.
void read_capsule_group(const Reader& r, RigidBodies& k, int materials) {
  const hsize_t n = r.rows("radius");
  const auto x = r.doubles("x", n, 3), v = r.doubles("v", n, 3), w = r.doubles("w", n, 3);
  const auto q = r.doubles("q", n, 4), radius = r.doubles("radius", n, 1);
  const auto half = r.doubles("half_length", n, 1), mass = r.doubles("mass", n, 1);
  const auto inv_mass = r.doubles("inv_mass", n, 1), inertia = r.doubles("inertia", n, 3);
  r.finite("x", x, 3), r.finite("v", v, 3), r.finite("w", w, 3), r.finite("q", q, 4);
  r.positive("radius", radius), r.positive("half_length", half), r.positive("mass", mass);
  r.non_negative("inv_mass", inv_mass);
  r.each("inertia", inertia, 3, [](double s) { return std::isfinite(s) && s > 0.0; }, "a positive finite number");
  // The shape (radius, half length) and the mass give the principal inertia (RigidBodies.hpp); a dimension
  // changed alone is refused.
  for (hsize_t i = 0; i < n; ++i) {
    double m1 = 0.0;
    Eigen::Vector3d I1;
    capsule_mass_properties(half[i], radius[i], 1.0, m1, I1);
    const Eigen::Vector3d expected = I1 * (mass[i] / m1);
    for (int c = 0; c < 3; ++c)
      if (!(std::abs(inertia[3 * i + c] / expected[c] - 1.0) <= 1e-9))
        r.fail("inertia", "row " + std::to_string(i) + " column " + std::to_string(c) + " is " +
                              Reader::num(inertia[3 * i + c]) + " but the capsule's radius, half length and mass give " +
                              Reader::num(expected[c]) + " (expected them to agree)");
  }
  for (hsize_t i = 0; i < n; ++i) {
    const double norm = Eigen::Vector4d(q[4 * i], q[4 * i + 1], q[4 * i + 2], q[4 * i + 3]).norm();
    if (std::abs(norm - 1.0) > 1e-6)
      r.fail("q", "row " + std::to_string(i) + " has norm " + Reader::num(norm) + " (expected a unit quaternion)");
  }
  const std::vector<std::uint32_t> id = r.ids("id", n);
  const std::vector<std::uint8_t> material = read_materials(r, n, materials);
  for (hsize_t j = 0; j < n; ++j) {
    const int i = k.capsule(k.capsules());
    k.add_capsule(row3(x, j), Eigen::Vector3d::UnitZ(), half[j], radius[j], 1.0, row3(v, j));
    k.w[i] = row3(w, j);
    k.q[i] = Eigen::Quaterniond(q[4 * j], q[4 * j + 1], q[4 * j + 2], q[4 * j + 3]);
    k.mass[i] = mass[j];
    k.inv_mass[i] = inv_mass[j];
    k.inertia[i] = row3(inertia, j);
    k.id[i] = id[j];
    k.material[i] = material[j];
  }
  refresh_world_inertia(k);
}

// An integer archived as a double: finite, integral, in [lo, hi].
double integral(const Reader& r, const char* name, double x, double lo, double hi, const char* what) {
  if (!(std::isfinite(x) && x == std::floor(x) && x >= lo && x <= hi))
    r.fail(name, std::string(what) + " is " + Reader::num(x) + " (expected an integer in [" + Reader::num(lo) + ", " +
                     Reader::num(hi) + "])");
  return x;
}

}  // namespace

void write_restart(const Path& file, const talus::Model& m, const contact::ContactCache* cache,
                   const RunCounters* counters, const contact::ContactCache* position_cache,
                   const std::vector<double>* joint_impulses, const std::vector<double>* joint_position_impulses,
                   const contact::ContactCache* rolling_cache, const std::vector<double>* beam_a,
                   const std::vector<double>* beam_vdot) {
  if (const std::string bad = non_finite_body(m); !bad.empty())
    throw std::runtime_error(file.string() + ": not written: the state is not finite (" + bad + ")");
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const Path tmp = temporary_name(file);
  const hid_t f = H5Fcreate(tmp.string().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (f < 0) throw std::runtime_error(file.string() + ": cannot create the restart archive");
  try {
    text_attribute(f, "format", "talus granular restart archive (apps/GranularOutput.hpp)", file, "/");
    {
      Group g(f, "beads", true, file);
      Writer w{g.id, "/beads/", file, {}};
      write_bead_group(w, m.bodies, m.materials.names);
    }
    if (m.bodies.capsules() > 0) {
      Group g(f, "capsules", true, file);
      Writer w{g.id, "/capsules/", file, {}};
      write_capsule_group(w, m.bodies, m.materials.names);
    }
    Writer root{f, "/", file, {}};
    const double clock[4] = {m.time, static_cast<double>(m.step), static_cast<double>(m.bodies.next_id[0]),
                             static_cast<double>(m.bodies.next_id[1])};
    root.matrix("clock", clock, 4, 1, "s, 1, 1, 1",
                "time [s], step (steps taken since t = 0), next bead id, next capsule id");
    if (cache) {
      Group g(f, "contacts", true, file);
      write_cache(g.id, "cache", *cache, "contacts, every kind (contact/ContactKey.hpp)", file);
      if (position_cache)
        write_cache(g.id, "position_cache", *position_cache, "contacts' position corrections (generalized-α)", file);
      if (rolling_cache && rolling_cache->size() > 0)
        write_cache(g.id, "rolling_cache", *rolling_cache,
                    "contacts' rolling impulses (torque impulse / R*, world vectors in the tangent plane)", file);
    }
    if (!m.lti.empty()) {
      // The FE beams' state (engine/granular/BeamContacts.hpp), system after system in the model's order.
      Group g(f, "beams", true, file);
      Writer w{g.id, "/beams/", file, {}};
      std::vector<double> q, v, dofs;
      for (const LagrangianLti& s : m.lti) {
        q.insert(q.end(), s.q.data(), s.q.data() + s.q.size());
        v.insert(v.end(), s.v.data(), s.v.data() + s.v.size());
        dofs.push_back(static_cast<double>(s.dofs()));
      }
      w.matrix("dofs", dofs.data(), dofs.size(), 1, "1", "unknowns of each beam (the model's LTI systems, in order)");
      w.matrix("q", q.data(), q.size(), 1, "m, rad", "the beams' coordinates (nodal deflections and slopes)");
      w.matrix("v", v.data(), v.size(), 1, "m/s, rad/s", "the beams' velocities");
      if (beam_a && beam_vdot && beam_a->size() == q.size() && beam_vdot->size() == q.size()) {
        w.matrix("a", beam_a->data(), beam_a->size(), 1, "m/s^2, rad/s^2",
                 "generalized-α: the beams' acceleration-like variable a_n (seed 004 eq 41e)");
        w.matrix("vdot", beam_vdot->data(), beam_vdot->size(), 1, "m/s^2, rad/s^2",
                 "generalized-α: the beams' smooth acceleration ṽ̇_n (seed 004 eq 40d)");
      }
    }
    if (joint_impulses && !joint_impulses->empty()) {
      Group g(f, "joints", true, file);
      Writer w{g.id, "/joints/", file, {}};
      w.matrix("impulses", joint_impulses->data(), joint_impulses->size(), 1, "N s or N m s",
               "the joints' row impulses of the last step, in the order of the model's joints (their warm start)");
      if (joint_position_impulses && joint_position_impulses->size() == joint_impulses->size())
        w.matrix("position_impulses", joint_position_impulses->data(), joint_position_impulses->size(), 1,
                 "N s or N m s", "the same for generalized-α's position correction");
    }
    if (counters) {
      Group g(f, "run", true, file);
      Writer w{g.id, "/run/", file, {}};
      const double removed = static_cast<double>(counters->removed), dropped = counters->dropped ? 1.0 : 0.0;
      w.matrix("removed", &removed, 1, 1, "1", "beads that left the container so far (outflow)");
      w.matrix("dropped", &dropped, 1, 1, "1", "perturbed_stack: 1 once the ball has been added");
      w.rows("discharge", counters->discharge, 2,
             [](const std::pair<double, long>& p, int c) { return c == 0 ? p.first : static_cast<double>(p.second); },
             "s, 1", "(time, beads removed so far) after each step with an outflow");
      if (!counters->discharge_mass.empty() && counters->discharge_mass.size() == counters->discharge.size())
        w.matrix("discharge_mass", counters->discharge_mass.data(), counters->discharge_mass.size(), 1, "kg",
                 "mass removed so far, at each row of discharge");
    }
  } catch (...) {
    H5Fclose(f);
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    throw;
  }
  if (H5Fclose(f) < 0) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    throw std::runtime_error(file.string() + ": HDF5 failed to close the file");
  }
  commit_file(tmp, file);
}

void read_restart(const Path& file, talus::Model& m, RestartExtras* extras) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  if (H5Fis_hdf5(file.string().c_str()) <= 0)
    throw std::runtime_error(file.string() + ": cannot open the restart archive (missing, or not an HDF5 file)");
  const hid_t f = H5Fopen(file.string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) throw std::runtime_error(file.string() + ": cannot open the restart archive");
  try {
    if (H5Lexists(f, "beads", H5P_DEFAULT) <= 0)
      throw std::runtime_error(file.string() + ": not a granular restart archive (no /beads)");
    RigidBodies b;
    {
      Group g(f, "beads", false, file);
      read_bead_group(Reader{g.id, "/beads/", file}, b, m.materials.count());
    }
    if (H5Lexists(f, "capsules", H5P_DEFAULT) > 0) {
      Group g(f, "capsules", false, file);
      read_capsule_group(Reader{g.id, "/capsules/", file}, b, m.materials.count());
    }
    const Reader root{f, "/", file};
    // Archives written before capsules existed hold 3 clock entries.
    const hsize_t entries = root.rows("clock");
    if (entries != 3 && entries != 4) root.fail("clock", std::to_string(entries) + " entries (expected 4)");
    const auto clock = root.doubles("clock", entries, 1);
    if (!(std::isfinite(clock[0]) && clock[0] >= 0.0))
      root.fail("clock", "time is " + Reader::num(clock[0]) + " (expected a finite time >= 0)");
    const double step = integral(root, "clock", clock[1], 0.0, kMaxExactInteger, "step");
    const double next_bead = integral(root, "clock", clock[2], 0.0, 4294967295.0, "the next bead id");
    const double next_capsule =
        entries == 4 ? integral(root, "clock", clock[3], 0.0, 4294967295.0, "the next capsule id") : b.capsules();
    for (int i = 0; i < b.count(); ++i) {
      const bool bead = i < b.spheres();
      if (b.id[i] >= (bead ? next_bead : next_capsule))
        root.fail("clock", std::string("the next ") + (bead ? "bead" : "capsule") + " id " +
                               Reader::num(bead ? next_bead : next_capsule) + " is not above " +
                               (bead ? "bead" : "capsule") + " id " + std::to_string(b.id[i]));
    }
    RestartExtras x;
    if (H5Lexists(f, "contacts", H5P_DEFAULT) > 0) {
      Group g(f, "contacts", false, file);
      auto read_cache = [&](const char* name) {
        Group c(g.id, name, false, file, "/contacts/");
        return Reader{c.id, std::string("/contacts/") + name + "/", file}.cache(name);
      };
      // An archive of the two caches with their older keys (before the one key scheme): translated and merged.
      auto read_legacy = [&](const char* beads, const char* capsules) {
        CacheContent b = read_cache(beads), k = read_cache(capsules), out;
        auto translate = [&](const CacheContent& c, const char* name, contact::ContactKey (*f)(std::uint64_t)) {
          for (std::size_t i = 0; i < c.keys.size(); ++i) {
            try {
              out.keys.push_back(f(c.keys[i]));
            } catch (const std::invalid_argument& e) {
              throw std::runtime_error(file.string() + ": /contacts/" + name + "/keys row " + std::to_string(i) + ": " +
                                       e.what());
            }
            out.impulses.push_back(c.impulses[i]);
          }
        };
        translate(b, beads, contact::legacy_bead_key);
        translate(k, capsules, contact::legacy_general_key);
        return out;
      };
      if (H5Lexists(g.id, "cache", H5P_DEFAULT) > 0 || H5Lexists(g.id, "beads", H5P_DEFAULT) <= 0) {
        x.cache = read_cache("cache");
        if (H5Lexists(g.id, "position_cache", H5P_DEFAULT) > 0)
          x.position_cache = read_cache("position_cache"), x.has_position_cache = true;
        if (H5Lexists(g.id, "rolling_cache", H5P_DEFAULT) > 0)
          x.rolling_cache = read_cache("rolling_cache"), x.has_rolling_cache = true;
      } else {
        x.cache = read_legacy("beads", "capsules");
        if (H5Lexists(g.id, "bead_positions", H5P_DEFAULT) > 0)
          x.position_cache = read_legacy("bead_positions", "capsule_positions"), x.has_position_cache = true;
        if (H5Lexists(g.id, "rolling", H5P_DEFAULT) > 0)
          x.rolling_cache = read_legacy("rolling", "capsule_rolling"), x.has_rolling_cache = true;
      }
      x.has_contacts = true;
    }
    if (H5Lexists(f, "joints", H5P_DEFAULT) > 0) {
      Group g(f, "joints", false, file);
      const Reader r{g.id, "/joints/", file};
      const hsize_t n = r.rows("impulses");
      x.joint_impulses = r.doubles("impulses", n, 1);
      if (H5Lexists(g.id, "position_impulses", H5P_DEFAULT) > 0)
        x.joint_position_impulses = r.doubles("position_impulses", n, 1);
      for (const std::vector<double>* v : {&x.joint_impulses, &x.joint_position_impulses})
        for (double d : *v)
          if (!std::isfinite(d)) r.fail(v == &x.joint_impulses ? "impulses" : "position_impulses", "holds a value that is not finite");
      x.has_joints = true;
    }
    // The FE beams: the archive's must be the model's (the scene gives their matrices and geometry).
    std::vector<Vector> beam_q, beam_v;
    if (H5Lexists(f, "beams", H5P_DEFAULT) > 0) {
      Group g(f, "beams", false, file);
      const Reader r{g.id, "/beams/", file};
      const hsize_t nb = r.rows("dofs");
      if (nb != m.lti.size())
        r.fail("dofs", std::to_string(nb) + " beams, but the scene has " + std::to_string(m.lti.size()) +
                           " (expected the scene that wrote the archive)");
      const auto dofs = r.doubles("dofs", nb, 1);
      hsize_t total = 0;
      for (hsize_t k = 0; k < nb; ++k) {
        if (dofs[k] != static_cast<double>(m.lti[k].dofs()))
          r.fail("dofs", "beam " + std::to_string(k) + " ('" + m.lti[k].name + "') has " + Reader::num(dofs[k]) +
                             " unknowns, but the scene gives it " + std::to_string(m.lti[k].dofs()));
        total += static_cast<hsize_t>(m.lti[k].dofs());
      }
      const auto q = r.doubles("q", total, 1), v = r.doubles("v", total, 1);
      r.finite("q", q, 1), r.finite("v", v, 1);
      if (H5Lexists(g.id, "a", H5P_DEFAULT) > 0 && H5Lexists(g.id, "vdot", H5P_DEFAULT) > 0) {
        x.beam_a = r.doubles("a", total, 1), x.beam_vdot = r.doubles("vdot", total, 1);
        r.finite("a", x.beam_a, 1), r.finite("vdot", x.beam_vdot, 1);
        x.has_beam_accelerations = true;
      }
      hsize_t at = 0;
      for (hsize_t k = 0; k < nb; ++k) {
        const Index n = m.lti[k].dofs();
        beam_q.push_back(Eigen::Map<const Vector>(q.data() + at, n));
        beam_v.push_back(Eigen::Map<const Vector>(v.data() + at, n));
        at += static_cast<hsize_t>(n);
      }
    } else if (!m.lti.empty()) {
      throw std::runtime_error(file.string() + ": holds no /beams, but the scene has the beam '" + m.lti[0].name +
                               "' (expected an archive of this scene)");
    }
    if (H5Lexists(f, "run", H5P_DEFAULT) > 0) {
      Group g(f, "run", false, file);
      const Reader r{g.id, "/run/", file};
      const double removed = r.doubles("removed", 1, 1)[0], dropped = r.doubles("dropped", 1, 1)[0];
      x.counters.removed = static_cast<long>(integral(r, "removed", removed, 0.0, kMaxExactInteger, "the count"));
      x.counters.dropped = integral(r, "dropped", dropped, 0.0, 1.0, "the flag") == 1.0;
      const auto d = r.doubles("discharge", r.rows("discharge"), 2);
      r.non_negative("discharge", d, 2);
      for (std::size_t i = 0; i + 1 < d.size(); i += 2) x.counters.discharge.emplace_back(d[i], static_cast<long>(d[i + 1]));
      if (H5Lexists(g.id, "discharge_mass", H5P_DEFAULT) > 0) {
        x.counters.discharge_mass = r.doubles("discharge_mass", x.counters.discharge.size(), 1);
        r.non_negative("discharge_mass", x.counters.discharge_mass, 1);
      }
      x.has_counters = true;
    }
    b.next_id[0] = static_cast<std::uint32_t>(next_bead);
    b.next_id[1] = static_cast<std::uint32_t>(next_capsule);
    m.bodies = std::move(b);
    for (std::size_t k = 0; k < beam_q.size(); ++k) m.lti[k].q = beam_q[k], m.lti[k].v = beam_v[k];
    m.time = clock[0];
    m.step = static_cast<long>(step);
    if (extras) *extras = std::move(x);
  } catch (...) {
    H5Fclose(f);
    throw;
  }
  H5Fclose(f);
}

}  // namespace talus::app
