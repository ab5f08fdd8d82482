#pragma once
// A loaded scene: the engine model it builds, the integrator settings and the run's output settings, plus the
// names the engine does not keep (rigid bodies have no names in the structure of arrays). It is what the
// loader returns and what `talus run` and the tests consume; see docs/scene-format.md for the file format.
#include <filesystem>
#include <string>
#include <vector>

#include "engine/Model.hpp"
#include "engine/MoreauJean.hpp"
#include "engine/schemes/SchemeSelection.hpp"

namespace talus::app {

struct Scene {
  std::string name;         // from `name:`, or the file's stem
  std::string description;
  std::filesystem::path file;

  Model model;
  MoreauJeanParameters integrator;  // Moreau–Jean settings (h is shared with every scheme)
  SchemeChoice scheme{SchemeKind::MoreauJean};  // which scheme runs; kind MoreauJean uses `integrator` above
  double t_end = 0.0;       // [s]
  int output_every = 1;     // write one row every N steps (and the last step)

  std::vector<std::string> body_names;  // one per rigid body of model.bodies
};

}  // namespace talus::app
