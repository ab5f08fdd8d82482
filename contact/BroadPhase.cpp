#include "contact/BroadPhase.hpp"

#include <algorithm>

namespace talus::contact {

namespace {

// The 13 neighbour offsets that, with the cell itself, visit every unordered pair of adjacent cells once.
constexpr int kForward[13][3] = {{1, 0, 0},  {-1, 1, 0}, {0, 1, 0},  {1, 1, 0},  {-1, -1, 1}, {0, -1, 1}, {1, -1, 1},
                                 {-1, 0, 1}, {0, 0, 1},  {1, 0, 1},  {-1, 1, 1}, {0, 1, 1},   {1, 1, 1}};

}  // namespace

void cell_range(const CellGrid& g, int part, int parts, long& begin, long& end) {
  const long cells = g.cells();
  const long n = g.cell_start[cells];
  auto first_cell = [&](long target) {
    return static_cast<long>(std::lower_bound(g.cell_start.begin(), g.cell_start.begin() + cells, target) -
                             g.cell_start.begin());
  };
  begin = part == 0 ? 0 : first_cell(n * part / parts);
  end = part == parts - 1 ? cells : first_cell(n * (part + 1) / parts);
}

void find_sphere_pairs(const CellGrid& g, const Eigen::Vector3d* x, const double* radius, double margin, long begin,
                       long end, std::vector<BodyPair>& out, const Periodicity& periodic) {
  const bool wraps = periodic.any();
  auto test = [&](std::int32_t i, std::int32_t j) {
    const double reach = radius[i] + radius[j] + margin;
    const Eigen::Vector3d d = wraps ? periodic.minimum_image(x[i] - x[j]) : Eigen::Vector3d(x[i] - x[j]);
    if (d.squaredNorm() <= reach * reach) out.push_back({std::min(i, j), std::max(i, j)});
  };
  for (long c = begin; c < end; ++c) {
    const std::int32_t s = g.cell_start[c], e = g.cell_start[c + 1];
    if (s == e) continue;
    const int ci = static_cast<int>(c % g.dims[0]);
    const int cj = static_cast<int>((c / g.dims[0]) % g.dims[1]);
    const int ck = static_cast<int>(c / (static_cast<long>(g.dims[0]) * g.dims[1]));
    for (std::int32_t p = s; p < e; ++p)
      for (std::int32_t q = p + 1; q < e; ++q) test(g.sorted[p], g.sorted[q]);
    for (const auto& o : kForward) {
      const int ni = g.neighbour(0, ci + o[0]), nj = g.neighbour(1, cj + o[1]), nk = g.neighbour(2, ck + o[2]);
      if (ni < 0 || nj < 0 || nk < 0) continue;
      const long nc = g.cell_index(ni, nj, nk);
      const std::int32_t ns = g.cell_start[nc], ne = g.cell_start[nc + 1];
      for (std::int32_t p = s; p < e; ++p)
        for (std::int32_t q = ns; q < ne; ++q) test(g.sorted[p], g.sorted[q]);
    }
  }
}

}  // namespace talus::contact
