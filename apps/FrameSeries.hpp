#pragma once
// The ParaView series of a run, on either path (issue 11 item 5: the outputs follow what the model holds, not
// which runner steps it). Each series is a frame file per output time and a .pvd collection indexing them
// (apps/GranularOutput.hpp describes the files):
//   beads      the sphere group (the large path writes it always: a scene that fills by pours starts empty)
//   contacts   the contact network of the last step: the large path's stepper's contacts, or the small path's
//              sphere contacts (with planes, spheres, beams) that carried an impulse
//   capsules   the capsule group, when the run starts with capsules (the series goes on once they have left)
//   bodies     the general group: the small path's rigid bodies
//   beams      the finite-element beams bodies may touch (Model::detection.beams), as deformed centrelines
//   meshes     fixed meshes once (meshes.vtp), moving ones at every frame (meshes.pvd)
// Under mpirun the beads and contacts of a frame are written in pieces, one per process (below).
// Every file is written under a temporary name and renamed, so a killed run leaves complete files only.
#include <filesystem>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "apps/GranularOutput.hpp"
#include "engine/Model.hpp"

namespace talus::app {

class FrameSeries {
 public:
  // The series are chosen from the model as the run starts; `large_path` adds the beads (even none) and the
  // contact network. `staged`: every file is written under a temporary name (.NAME.partial) and put in place by
  // commit(), so that an earlier run in dir stays whole until the new one commits (the small path's contract,
  // RunOutputs.hpp); otherwise each file is in place as soon as it is complete (the large path, which clears the
  // folder at its start).
  // `piece` (under mpirun, the large path): this process writes its share of the beads and contacts of each
  // frame (NAME_NNNNN_pK.vtp); process 0 also writes the frame's index NAME_NNNNN.pvtp, which the .pvd names,
  // and the other series whole; the others write nothing else.
  FrameSeries(std::filesystem::path dir, const talus::Model& model, bool large_path, bool staged = false,
              FramePiece piece = {});

  // One frame of every series at the model's time. `contacts` index the bodies as they are now (empty lists when
  // they do not: after beads were removed, or a failed step undone).
  void write(const talus::Model& model, const FrameContacts& contacts, double h);
  // A partitioned model: the next frames' piece holds this process's own beads, [0, own) (FramePiece::own).
  void set_own_beads(int own) { piece_.own = own; }

  // staged: moves every file into place (after the earlier run's files were removed). Throws
  // std::runtime_error naming the file that could not be moved.
  void commit();

  bool empty() const { return series_.empty() && !fixed_meshes_ && !moving_meshes_; }  // nothing to write
  int frames() const { return frame_; }
  double last_time() const;                    // the last frame's time; −∞ before the first
  std::string last_frame(const char* stem) const;  // the last frame file of a series ("" when none)
  // Every file of the run's frames, relative to dir (in pieces: every process's pieces, as process 0 lists them).
  const std::vector<std::string>& files() const { return files_; }
  std::vector<std::string> collections() const;  // the .pvd files (and meshes.vtp), for the log

 private:
  struct Series {
    const char* stem;
    std::vector<std::pair<double, std::string>> frames;
  };
  void written(const std::string& name);
  std::filesystem::path path(const std::string& name) const;  // where name is written (staged: its temporary)

  std::filesystem::path dir_;
  std::vector<Series> series_;  // in the order above
  bool fixed_meshes_ = false, moving_meshes_ = false;
  std::vector<std::pair<double, std::string>> mesh_frames_;
  std::vector<std::string> files_;
  int frame_ = 0;
  double last_time_ = -std::numeric_limits<double>::infinity();
  bool large_path_ = false;
  bool staged_ = false;
  FramePiece piece_;
};

}  // namespace talus::app
