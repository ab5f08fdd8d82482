#include "apps/FrameSeries.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <variant>

namespace talus::app {

namespace {

std::string frame_name(const char* stem, int frame) {
  char b[64];
  std::snprintf(b, sizeof b, "%s_%05d.vtp", stem, frame);
  return b;
}

}  // namespace

FrameSeries::FrameSeries(std::filesystem::path dir, const talus::Model& m, bool large_path, bool staged,
                         FramePiece piece)
    : dir_(std::move(dir)), large_path_(large_path), staged_(staged), piece_(piece) {
  if (large_path || m.bodies.spheres() > 0) series_.push_back({"beads", {}});
  // The small path's contacts are interactions: listed sphere contacts, or those its detection adds each step.
  bool contacts = large_path || m.detection.enabled;
  for (const Interaction& in : m.interactions)
    contacts = contacts || std::holds_alternative<SphereContactRelation>(in.relation) ||
               std::holds_alternative<BeamSphereContactRelation>(in.relation);
  if (contacts) series_.push_back({"contacts", {}});
  if (m.bodies.capsules() > 0) series_.push_back({"capsules", {}});
  if (m.bodies.general() > 0) series_.push_back({"bodies", {}});
  if (!m.detection.beams.empty()) series_.push_back({"beams", {}});
  for (int k = 0; k < static_cast<int>(m.meshes.size()); ++k) moving_meshes_ |= !m.mesh_fixed(k);
  fixed_meshes_ = !moving_meshes_ && !m.meshes.empty();
}

std::filesystem::path FrameSeries::path(const std::string& name) const {
  return staged_ ? dir_ / ("." + name + ".partial") : dir_ / name;
}

void FrameSeries::commit() {
  if (!staged_) return;
  for (const std::string& name : files_) {
    std::error_code ec;
    std::filesystem::rename(path(name), dir_ / name, ec);
    if (ec) throw std::runtime_error("cannot move " + path(name).string() + " into place: " + ec.message());
  }
  staged_ = false;
}

void FrameSeries::written(const std::string& name) {
  if (std::find(files_.begin(), files_.end(), name) == files_.end()) files_.push_back(name);
}

void FrameSeries::write(const talus::Model& m, const FrameContacts& contacts, double h) {
  const bool pieces = piece_.count > 1, first = piece_.index == 0;
  for (Series& s : series_) {
    const bool beads = std::strcmp(s.stem, "beads") == 0, network = std::strcmp(s.stem, "contacts") == 0;
    std::string f = frame_name(s.stem, frame_);
    if (pieces && (beads || (network && large_path_))) {
      // This process's piece; process 0 indexes every process's piece (their names follow from the count).
      std::vector<std::string> names;
      for (int k = 0; k < piece_.count; ++k) {
        char b[80];
        std::snprintf(b, sizeof b, "%s_%05d_p%d.vtp", s.stem, frame_, k);
        names.emplace_back(b);
      }
      const FramePiece mine = piece_;
      if (beads) write_beads_vtp(path(names[mine.index]), m, contacts, h, mine);
      else write_contacts_vtp(path(names[mine.index]), m, contacts, h, mine);
      if (!first) continue;
      f = f.substr(0, f.size() - 4) + ".pvtp";
      write_pvtp(path(f), m, s.stem, names);
      for (const std::string& n : names) written(n);
    } else if (!first) {
      continue;  // the series that are not cut: process 0's
    } else if (beads) {
      write_beads_vtp(path(f), m, contacts, h);
    } else if (network && large_path_) {
      write_contacts_vtp(path(f), m, contacts, h);
    } else if (network) {
      write_interaction_contacts_vtp(path(f), m, h);
    } else if (std::strcmp(s.stem, "capsules") == 0) {
      write_capsules_vtp(path(f), m, contacts, h);
    } else if (std::strcmp(s.stem, "bodies") == 0) {
      write_bodies_vtp(path(f), m);
    } else {
      write_beams_vtp(path(f), m);
    }
    s.frames.emplace_back(m.time, f);
    const std::string pvd = std::string(s.stem) + ".pvd";
    write_pvd(path(pvd), s.frames);
    written(f), written(pvd);
  }
  if (first && moving_meshes_) {
    const std::string f = frame_name("meshes", frame_);
    write_meshes_vtp(path(f), m);
    mesh_frames_.emplace_back(m.time, f);
    write_pvd(path("meshes.pvd"), mesh_frames_);
    written(f), written("meshes.pvd");
  } else if (first && fixed_meshes_ && frame_ == 0) {
    write_meshes_vtp(path("meshes.vtp"), m);
    written("meshes.vtp");
  }
  last_time_ = m.time;
  ++frame_;
}

double FrameSeries::last_time() const { return last_time_; }

std::string FrameSeries::last_frame(const char* stem) const {
  for (const Series& s : series_)
    if (std::strcmp(s.stem, stem) == 0 && !s.frames.empty()) return s.frames.back().second;
  return {};
}

std::vector<std::string> FrameSeries::collections() const {
  std::vector<std::string> names;
  for (const Series& s : series_) names.push_back(std::string(s.stem) + ".pvd");
  if (moving_meshes_) names.push_back("meshes.pvd");
  if (fixed_meshes_) names.push_back("meshes.vtp");
  return names;
}

}  // namespace talus::app
