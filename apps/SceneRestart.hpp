#pragma once
// Restart archives of single scenes (issue 12 item 4, small systems): restart.h5 holds everything the next
// Moreau–Jean step reads — the clock, every coordinate and velocity (DofLayout order), each interaction's last
// gap, relative velocity and impulse (the impulses warm-start the next solve) — plus what the time series
// carries over (the step count and the cumulated energy terms). A run to T and a run to T/2 + restart to T end
// in bitwise-identical states (tests/apps/test_strict_restart.cpp).
//
// moreau_jean keeps its whole state in the model. generalized_alpha also carries its acceleration-like
// variable a_n and smooth acceleration ṽ̇_n from step to step, which (q_n, v_n) do not determine: the archive
// holds them and the resumed integrator is given them back (NonsmoothGeneralizedAlpha::restore_accelerations,
// which also says why nothing else of its state needs saving). Newmark and HHT keep a_n too but the engine
// does not let a new integrator start from it, Schatzman–Paoli keeps the previous coordinates, and the
// event-driven path keeps its DAE integrator's step-size history: a restart of those is refused rather than
// continued approximately.
//
// The archive's layout (one for both paths) is apps/RestartArchive.hpp's; the small path writes /clock,
// /step_size, /systems, /interactions, /contacts/detected (scenes with detection: the last step's contacts and
// their impulses, so that a restart keeps the warm starts and continues bit for bit), /energy and
// /generalized_alpha. Archives of format "talus-scene-restart-1" still read.
#include <array>
#include <filesystem>

#include "apps/RestartArchive.hpp"
#include "apps/Scene.hpp"

namespace talus::app {

struct RestartState {
  long step = 0;
  std::array<double, 4> energy{};  // the TimeSeries sums, in the order above
  // generalized_alpha: a_n and ṽ̇_n (empty for the other schemes).
  Vector acceleration, smooth_acceleration;
  // The velocities the scheme itself carries (generalized_alpha: NonsmoothGeneralizedAlpha::velocity, whose body
  // ω the model holds only up to round-off), written as /systems/v when given; read back, the archive's /systems/v.
  Vector velocity;
  // The archive's recorded step settings (empty in archives that recorded none).
  std::string settings;
};

// Whether the scene's scheme can be restarted bit for bit; `why` says why not.
bool restartable(const Scene& scene, std::string* why = nullptr);

// Whether the scheme's archive needs the integrator's own state (RestartState's accelerations) besides the model.
bool restart_needs_accelerations(const Scene& scene);

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
