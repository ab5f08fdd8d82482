#pragma once
// Restart archives of single scenes (issue 12 item 4, small systems): restart.h5 holds everything the next
// Moreau–Jean step reads — the clock, every coordinate and velocity (DofLayout order), each interaction's last
// gap, relative velocity and impulse (the impulses warm-start the next solve) — plus what the time series
// carries over (the step count and the cumulated energy terms). A run to T and a run to T/2 + restart to T end
// in bitwise-identical states (tests/apps/test_strict_restart.cpp).
//
// moreau_jean keeps its whole state in the model. The other time-stepping schemes carry vectors from step to
// step that (q_n, v_n) do not determine: generalized_alpha its acceleration-like variable a_n and smooth
// acceleration ṽ̇_n, newmark and hht a_n, the α-weighted external and damping forces and the last increment,
// schatzman_paoli the previous coordinates and external force. The archive holds them in the scheme's group
// (/generalized_alpha, /newmark, /hht, /schatzman_paoli) and the resumed integrator is given them back
// (capture_scheme_state, restore_scheme_state), which the schemes' restore functions say is all they need. The
// event-driven path keeps its DAE integrator's step-size history: its restart is refused rather than continued
// approximately.
//
// The archive's layout (one for both paths) is apps/RestartArchive.hpp's; the small path writes /clock,
// /step_size, /systems, /interactions, /contacts/detected (scenes with detection: the last step's contacts and
// their impulses, so that a restart keeps the warm starts and continues bit for bit), /energy and
// the scheme's group. Archives of format "talus-scene-restart-1" still read.
#include <array>
#include <filesystem>

#include "apps/RestartArchive.hpp"
#include "apps/Scene.hpp"
#include "engine/Integrator.hpp"

namespace talus::app {

struct RestartState {
  long step = 0;
  std::array<double, 4> energy{};  // the TimeSeries sums, in the order above
  // The vectors the scheme carries (carried_vectors' order; empty for moreau_jean).
  std::vector<Vector> carried;
  // The velocities the scheme itself carries (generalized_alpha: NonsmoothGeneralizedAlpha::velocity, whose body
  // ω the model holds only up to round-off), written as /systems/v when given; read back, the archive's /systems/v.
  Vector velocity;
  // The archive's recorded step settings (empty in archives that recorded none).
  std::string settings;
};

// Whether the scene's scheme can be restarted bit for bit; `why` says why not.
bool restartable(const Scene& scene, std::string* why = nullptr);

// Whether the scheme's archive needs the integrator's own state (RestartState::carried) besides the model.
bool restart_needs_scheme_state(const Scene& scene);

// A vector a scheme carries from step to step: its dataset in the scheme's group, what it is, its units.
struct CarriedVector {
  const char* name;
  const char* meaning;  // "the acceleration-like variable a_n" (errors add ", one per velocity of the scene")
  const char* units;
  bool per_coordinate;  // sized by the coordinates (else the velocities)
};
const std::vector<CarriedVector>& carried_vectors(SchemeKind kind);

// The integrator's carried vectors (and generalized-α's own velocities) into `state`; false when the integrator
// is not the scheme the scene names (a custom stepper: no archive can be written for it).
bool capture_scheme_state(const Integrator& integrator, SchemeKind kind, RestartState& state);
// Gives the integrator, built on the restored model, what `state` holds for it. Call before the first step.
void restore_scheme_state(Integrator& integrator, const RestartState& state);

// Writes the archive of the scene's current state to `file` (through a temporary file and a rename).
// Throws std::runtime_error naming the file (also when a generalized_alpha state lacks its accelerations).
void write_scene_restart(const std::filesystem::path& file, const Scene& scene, const RestartState& state,
                         const std::vector<std::string>& columns);

// Validates the archive against the scene (same scheme, systems, interactions and step size; finite values; a
// clock consistent with the step count and before t_end) and loads it into scene.model; the integrator's own
// state (generalized_alpha's accelerations) is returned for the caller to give to the integrator it builds. Every problem is thrown as
// std::runtime_error naming the archive and the dataset.
RestartState read_scene_restart(const std::filesystem::path& file, Scene& scene, const std::vector<std::string>& columns);

}  // namespace talus::app
