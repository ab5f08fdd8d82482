#include "engine/distributed/RecursiveBisection.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace talus::distributed {

int RankRegions::owner(const Eigen::Vector3d& x) const {
  int k = 0;
  while (nodes[k].low >= 0) k = x[nodes[k].axis] < nodes[k].value ? nodes[k].low : nodes[k].high;
  return nodes[k].rank;
}

int RankRegions::ranks() const {
  int leaves = 0;
  for (const Node& n : nodes) leaves += n.low < 0;
  return leaves;
}

bool RankRegions::operator==(const RankRegions& o) const {
  if (nodes.size() != o.nodes.size()) return false;
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const Node &a = nodes[k], &b = o.nodes[k];
    if (a.axis != b.axis || std::memcmp(&a.value, &b.value, sizeof(double)) != 0 || a.low != b.low ||
        a.high != b.high || a.rank != b.rank)
      return false;
  }
  return true;
}

RankRegions bisect(const Eigen::Vector3d* x, const double* w, int n, int ranks, SpreadReductions& reduce) {
  if (ranks < 1) throw std::invalid_argument("bisect: at least one rank");
  constexpr double inf = std::numeric_limits<double>::infinity();
  RankRegions out;
  out.nodes.emplace_back();
  // The nodes to cut at this level: node index, first rank, ranks.
  struct Open {
    int node, r0, count;
  };
  std::vector<Open> level{{0, 0, ranks}};
  std::vector<std::int32_t> at(static_cast<std::size_t>(n), 0);  // each point's node
  std::vector<double> v;
  while (!level.empty()) {
    std::vector<Open> cut;
    for (const Open& o : level) {
      if (o.count == 1)
        out.nodes[o.node].rank = o.r0;
      else
        cut.push_back(o);
    }
    if (cut.empty()) break;
    const int m = static_cast<int>(cut.size());
    std::vector<int> slot(out.nodes.size(), -1);  // node → its place in `cut`
    for (int j = 0; j < m; ++j) slot[cut[j].node] = j;
    // Weights and bounding boxes (min of lo and of −hi).
    v.assign(static_cast<std::size_t>(m), 0.0);
    std::vector<double> box(6 * static_cast<std::size_t>(m), inf);
    for (int i = 0; i < n; ++i) {
      const int j = slot[at[i]];
      if (j < 0) continue;
      v[j] += w[i];
      for (int d = 0; d < 3; ++d)
        box[6 * j + d] = std::min(box[6 * j + d], x[i][d]), box[6 * j + 3 + d] = std::min(box[6 * j + 3 + d], -x[i][d]);
    }
    reduce.sum(v.data(), m);
    reduce.min(box.data(), 6 * m);
    const std::vector<double> total = v;
    std::vector<int> axis(m, 0);
    std::vector<double> target(m);
    std::vector<std::uint64_t> lo(m), hi(m);  // keys: weight below lo < target <= weight below hi
    std::vector<char> empty(m, 0);
    for (int j = 0; j < m; ++j) {
      empty[j] = !(total[j] > 0.0);
      if (!empty[j]) {
        const Eigen::Vector3d side(-box[6 * j + 3] - box[6 * j], -box[6 * j + 4] - box[6 * j + 1],
                                   -box[6 * j + 5] - box[6 * j + 2]);
        side.maxCoeff(&axis[j]);
      }
      target[j] = total[j] * (cut[j].count / 2) / cut[j].count;
      const double a = box[6 * j + axis[j]], b = -box[6 * j + 3 + axis[j]];
      lo[j] = empty[j] ? 0 : ordered_key(a);
      hi[j] = empty[j] ? 1 : ordered_key(b) + 1;  // just above the highest point: every weight is below it
    }
    // Bisection over the keys, all nodes in step.
    for (;;) {
      bool open = false;
      for (int j = 0; j < m; ++j) open = open || hi[j] - lo[j] > 1;
      if (!open) break;
      std::vector<double> trial(m);
      for (int j = 0; j < m; ++j) trial[j] = ordered_double(lo[j] + (hi[j] - lo[j]) / 2);
      v.assign(static_cast<std::size_t>(m), 0.0);
      for (int i = 0; i < n; ++i) {
        const int j = slot[at[i]];
        if (j >= 0 && hi[j] - lo[j] > 1 && x[i][axis[j]] < trial[j]) v[j] += w[i];
      }
      reduce.sum(v.data(), m);
      for (int j = 0; j < m; ++j) {
        if (hi[j] - lo[j] <= 1) continue;
        const std::uint64_t mid = lo[j] + (hi[j] - lo[j]) / 2;
        (v[j] >= target[j] ? hi[j] : lo[j]) = mid;
      }
    }
    // The plane: midway between the highest point below it and the lowest at or above it.
    std::vector<double> near(2 * static_cast<std::size_t>(m), inf);
    for (int i = 0; i < n; ++i) {
      const int j = slot[at[i]];
      if (j < 0 || empty[j]) continue;
      const double c = x[i][axis[j]], plane = ordered_double(hi[j]);
      if (c < plane)
        near[2 * j] = std::min(near[2 * j], -c);
      else
        near[2 * j + 1] = std::min(near[2 * j + 1], c);
    }
    reduce.min(near.data(), 2 * m);
    std::vector<Open> next;
    for (int j = 0; j < m; ++j) {
      double value = 0.0;
      if (!empty[j]) {
        value = ordered_double(hi[j]);
        const double below = -near[2 * j], above = near[2 * j + 1];
        if (std::isfinite(below) && std::isfinite(above)) {
          value = 0.5 * (below + above);
          if (!(value > below)) value = above;  // adjacent doubles: the plane on the upper point keeps both sides
        }
      }
      const int node = cut[j].node, low_ranks = cut[j].count / 2;
      const int low = static_cast<int>(out.nodes.size());
      out.nodes.emplace_back();
      const int high = static_cast<int>(out.nodes.size());
      out.nodes.emplace_back();
      RankRegions::Node& nd = out.nodes[node];
      nd.axis = axis[j], nd.value = value, nd.low = low, nd.high = high;
      next.push_back({low, cut[j].r0, low_ranks});
      next.push_back({high, cut[j].r0 + low_ranks, cut[j].count - low_ranks});
    }
    for (int i = 0; i < n; ++i) {
      const RankRegions::Node& nd = out.nodes[at[i]];
      if (nd.low >= 0 && slot[at[i]] >= 0) at[i] = x[i][nd.axis] < nd.value ? nd.low : nd.high;
    }
    level = std::move(next);
  }
  return out;
}

}  // namespace talus::distributed
