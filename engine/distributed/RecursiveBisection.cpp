#include "engine/distributed/RecursiveBisection.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
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

namespace {

struct Bisector {
  const Eigen::Vector3d* x;
  const double* w;
  const std::uint32_t* id;
  RankRegions& out;

  // Regions for ranks [r0, r0 + count) over the points idx[begin, end); returns the node index.
  int build(std::vector<std::int32_t>& idx, int begin, int end, int r0, int count) {
    const int node = static_cast<int>(out.nodes.size());
    out.nodes.emplace_back();
    if (count == 1) {
      out.nodes[node].rank = r0;
      return node;
    }
    Eigen::Vector3d lo = Eigen::Vector3d::Constant(INFINITY), hi = -lo;
    for (int k = begin; k < end; ++k) lo = lo.cwiseMin(x[idx[k]]), hi = hi.cwiseMax(x[idx[k]]);
    int axis = 0;
    if (end > begin) (hi - lo).maxCoeff(&axis);
    std::sort(idx.begin() + begin, idx.begin() + end, [&](std::int32_t a, std::int32_t b) {
      return x[a][axis] < x[b][axis] || (x[a][axis] == x[b][axis] && id[a] < id[b]);
    });
    const int low_ranks = count / 2;
    double total = 0.0;
    for (int k = begin; k < end; ++k) total += w[idx[k]];
    const double target = total * low_ranks / count;
    // The first point whose cumulative weight passes the target starts the high side.
    int split = begin;
    double sum = 0.0;
    while (split < end && sum + 0.5 * w[idx[split]] < target) sum += w[idx[split++]];
    double value = 0.0;
    if (end > begin) {
      if (split == begin)
        value = x[idx[begin]][axis];
      else if (split == end)
        value = std::nextafter(x[idx[end - 1]][axis], INFINITY);
      else
        value = 0.5 * (x[idx[split - 1]][axis] + x[idx[split]][axis]);
    }
    // Points on the plane go high: move the split so that the sides are those owner() gives.
    int cut = begin;
    while (cut < end && x[idx[cut]][axis] < value) ++cut;
    out.nodes[node].axis = axis;
    out.nodes[node].value = value;
    const int low = build(idx, begin, cut, r0, low_ranks);
    const int high = build(idx, cut, end, r0 + low_ranks, count - low_ranks);
    out.nodes[node].low = low, out.nodes[node].high = high;
    return node;
  }
};

}  // namespace

RankRegions bisect(const Eigen::Vector3d* x, const double* w, const std::uint32_t* id, int n, int ranks) {
  if (ranks < 1) throw std::invalid_argument("bisect: at least one rank");
  RankRegions r;
  std::vector<std::int32_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  Bisector{x, w, id, r}.build(idx, 0, n, 0, ranks);
  return r;
}

}  // namespace talus::distributed
