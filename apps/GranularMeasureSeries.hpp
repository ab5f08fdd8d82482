#pragma once
// The measurements of a granular run, one row per frame (engine/analysis/GranularMeasures.hpp,
// docs/measurements.md): `talus run` writes them to measures.csv and the last row to run.json's
// results.measures.
//
// The region is the bulk of the assembly: the box of the bead centres shrunk by 3 mean radii on every side
// and from the top down to the 99th percentile of the centres' height less 5 radii, so that walls, floor and
// the free surface stay out of the packing fraction and the stress. A scene may give its own region
// (`measure_region: [x0, y0, z0, x1, y1, z1]`).
#include <array>
#include <filesystem>
#include <optional>
#include <vector>

#include "engine/Model.hpp"
#include "engine/analysis/ContactForces.hpp"
#include "engine/analysis/GranularMeasures.hpp"

namespace talus::app {

struct MeasureRow {
  double time = 0.0;
  long beads = 0;
  double packing_fraction = 0.0;         // in the region; NaN when the region is empty
  double coordination = 0.0;             // contacts that push per body (all bodies)
  double mechanical_coordination = 0.0;  // without rattlers
  double mean_normal_force = 0.0;        // [N], over the contacts that push
  double above_mean = 0.0;               // share of those above the mean
  double pressure = 0.0;    // Love–Weber p = tr σ / 3 in the region [Pa], compression positive
  double deviatoric = 0.0;  // q = √(3/2 s:s), s = σ − p 1 [Pa]
  double ke_translation = 0.0, ke_rotation = 0.0;  // [J]
  std::array<double, 6> region{};                  // lo, hi
};

// Column names of measures.csv, in MeasureRow's order (region left out).
const std::vector<std::string>& measure_columns();

// The default region of `bodies` (header); nullopt with fewer than 8 beads or a region too thin to hold one.
// `spread` (a partitioned model, engine/analysis/SpreadBodies.hpp): over every process's own beads (collective).
std::optional<Region> bulk_region(const RigidBodies& bodies, SpreadBodies* spread = nullptr);

// One row. `contacts` empty (the step's contacts are not valid, e.g. right after an outflow) gives NaN force
// columns. `spread`: of a partitioned model, over all processes (collective; the contacts: this process's
// stepper's, in order, or empty on every process).
MeasureRow measure_row(const Model& model, const std::vector<ContactForce>& contacts, const Region* region,
                       SpreadBodies* spread = nullptr);

// Writes the rows to `file` (header, one line per row), through a temporary file renamed when complete.
// Throws std::runtime_error naming the file when it cannot.
void write_measure_csv(const std::filesystem::path& file, const std::vector<MeasureRow>& rows);

}  // namespace talus::app
