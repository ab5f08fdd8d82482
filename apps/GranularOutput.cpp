#include "apps/GranularOutput.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>

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
  std::string name = ".";  // appended, not `"." + name`: GCC 12 warns falsely (-Wrestrict) on the latter
  name += file.filename().string();
  name += ".tmp";
  return file.parent_path() / name;
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
  const int first = piece.own >= 0 ? 0 : piece.begin(b.spheres());
  const int n = piece.own >= 0 ? piece.own : piece.end(b.spheres()) - first;
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
    if (fc.beads[k].r[0] > 0.0 && (!fc.counted || (*fc.counted)[k])) active.emplace_back(Bead, k);
  for (int k = 0; k < static_cast<int>(fc.general.size()); ++k)
    if (fc.general[k].r[0] > 0.0) active.emplace_back(General, k);
  for (int k = 0; k < static_cast<int>(fc.beams.size()); ++k)
    if (fc.beams[k].r[0] > 0.0) active.emplace_back(Beam, k);
  const int all = static_cast<int>(active.size());
  if (piece.own < 0) {  // a partitioned model's piece is what this process counts (above)
    active.erase(active.begin() + piece.end(all), active.end());
    active.erase(active.begin(), active.begin() + piece.begin(all));
  }
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

}  // namespace talus::app
