// A granular run's measurements per frame (see the header).
#include "apps/GranularMeasureSeries.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <stdexcept>

#include "apps/CsvWriter.hpp"
#include "apps/GranularOutput.hpp"

namespace talus::app {

const std::vector<std::string>& measure_columns() {
  static const std::vector<std::string> columns = {"time",
                                                   "beads",
                                                   "packing_fraction",
                                                   "coordination",
                                                   "mechanical_coordination",
                                                   "mean_normal_force",
                                                   "above_mean",
                                                   "pressure",
                                                   "deviatoric_stress",
                                                   "ke_translation",
                                                   "ke_rotation"};
  return columns;
}

std::optional<Region> bulk_region(const RigidBodies& b, SpreadBodies* spread) {
  const int n = spread ? spread->own_spheres() : b.spheres();
  Eigen::Vector3d lo = Eigen::Vector3d::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
  double sums[2] = {static_cast<double>(n), 0.0};  // beads, radii
  std::vector<double> z(n);
  for (int i = 0; i < n; ++i) {
    lo = lo.cwiseMin(b.x[i]), hi = hi.cwiseMax(b.x[i]);
    sums[1] += b.radius[i];
    z[i] = b.x[i].z();
  }
  if (spread) spread->sum(sums, 2), spread->min(lo.data(), 3), spread->max(hi.data(), 3);
  const long total = static_cast<long>(sums[0]);
  if (total < 8) return std::nullopt;
  const double r = sums[1] / sums[0];
  const long k = static_cast<long>(0.99 * static_cast<double>(total - 1));
  double top = 0.0;
  if (spread) {
    top = kth_smallest(z.data(), n, k, *spread);
  } else {
    std::nth_element(z.begin(), z.begin() + k, z.end());
    top = z[k];
  }
  Region region{lo + Eigen::Vector3d::Constant(3.0 * r), hi - Eigen::Vector3d::Constant(3.0 * r)};
  region.hi.z() = std::min(region.hi.z(), top - 5.0 * r);
  if (((region.hi - region.lo).array() < 2.0 * r).any()) return std::nullopt;
  return region;
}

MeasureRow measure_row(const Model& m, const std::vector<ContactForce>& contacts, const Region* region,
                       SpreadBodies* spread) {
  MeasureRow row;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  row.time = m.time;
  double counts[2] = {static_cast<double>(spread ? spread->own_spheres() : m.bodies.spheres()),
                      static_cast<double>(contacts.size())};
  if (spread) spread->sum(counts, 2);
  row.beads = static_cast<long>(counts[0]);
  const KineticEnergy ke = kinetic_energy_parts(m.bodies, spread);
  row.ke_translation = ke.translation, row.ke_rotation = ke.rotation;
  row.packing_fraction = region ? packing_fraction(m.bodies, *region, spread) : nan;
  if (region)
    row.region = {region->lo.x(), region->lo.y(), region->lo.z(),
                  region->hi.x(), region->hi.y(), region->hi.z()};
  else
    row.region.fill(nan);
  if (counts[1] == 0.0) {
    row.coordination = row.mechanical_coordination = row.mean_normal_force = row.above_mean = nan;
    row.pressure = row.deviatoric = nan;
    return row;
  }
  const Coordination z = coordination(m.bodies, contacts, {}, spread);
  row.coordination = z.mean, row.mechanical_coordination = z.mechanical;
  const ForceDistribution f = normal_force_distribution(contacts, 1, 1.0, 1e-6, spread);
  row.mean_normal_force = f.mean, row.above_mean = f.above_mean;
  if (region) {
    const Eigen::Matrix3d s = love_weber_stress(m.bodies, contacts, *region, spread, &m.periodic);
    const Eigen::Matrix3d sym = 0.5 * (s + s.transpose());
    row.pressure = sym.trace() / 3.0;
    const Eigen::Matrix3d dev = sym - row.pressure * Eigen::Matrix3d::Identity();
    row.deviatoric = std::sqrt(1.5 * dev.squaredNorm());
  } else {
    row.pressure = row.deviatoric = nan;
  }
  return row;
}

void write_measure_csv(const std::filesystem::path& file, const std::vector<MeasureRow>& rows) {
  const std::filesystem::path tmp = temporary_name(file);
  {
    CsvWriter csv(tmp, measure_columns());
    for (const MeasureRow& r : rows) {
      const double row[] = {r.time,
                            static_cast<double>(r.beads),
                            r.packing_fraction,
                            r.coordination,
                            r.mechanical_coordination,
                            r.mean_normal_force,
                            r.above_mean,
                            r.pressure,
                            r.deviatoric,
                            r.ke_translation,
                            r.ke_rotation};
      csv.append(row);
    }
    csv.close();
  }
  commit_file(tmp, file);
}

}  // namespace talus::app
