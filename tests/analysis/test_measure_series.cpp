// The run's measurement rows (apps/GranularMeasureSeries.hpp): the bulk region of a lattice, a row's columns,
// and measures.csv as written.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "apps/GranularMeasureSeries.hpp"

using namespace talus;
using namespace talus::app;
using Eigen::Vector3d;

TEST_CASE("the bulk region of a simple cubic block leaves 3 r at the sides and 5 r under the top") {
  Model m;
  const double r = 0.01;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j)
      for (int k = 0; k < 6; ++k) m.bodies.add_sphere(Vector3d(i, j, k) * 2 * r, r, 2500.0);
  const auto region = bulk_region(m.bodies);
  REQUIRE(region);
  CHECK(region->lo.isApprox(Vector3d::Constant(3 * r)));
  CHECK(region->hi.x() == Approx(7 * r));
  CHECK(region->hi.z() == Approx(5 * r));  // 99th percentile of the centres (10 r) less 5 r
  // Whole cells: the lattice's fraction exactly.
  const MeasureRow row = measure_row(m, {}, &*region);
  CHECK(row.packing_fraction == Approx(M_PI / 6).epsilon(1e-12));
  CHECK(row.beads == 216);
  CHECK(std::isnan(row.pressure));  // no contacts given
  CHECK(row.ke_translation == 0.0);
  Model few;
  few.bodies.add_sphere(Vector3d::Zero(), r, 2500.0);
  CHECK_FALSE(bulk_region(few.bodies));
}

TEST_CASE("measures.csv has the header and one line per row") {
  const auto dir = std::filesystem::temp_directory_path() / "talus_measure_series_test";
  std::filesystem::create_directories(dir);
  MeasureRow a, b;
  a.time = 0.1, b.time = 0.2, b.pressure = 12.5;
  write_measure_csv(dir / "measures.csv", {a, b});
  std::ifstream in(dir / "measures.csv");
  std::string header, line1, line2, extra;
  std::getline(in, header), std::getline(in, line1), std::getline(in, line2);
  CHECK(header.rfind("time,beads,packing_fraction", 0) == 0);
  CHECK(line2.rfind("0.2,", 0) == 0);
  CHECK(line2.find("12.5") != std::string::npos);
  CHECK_FALSE(std::getline(in, extra));
  std::filesystem::remove_all(dir);
}
