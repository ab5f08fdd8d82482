#include "solvers/distributed/RankPlan.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace talus::distributed {

int RankPlan::owner_of_body(std::int32_t body) const {
  return static_cast<int>(std::upper_bound(body_begin.begin(), body_begin.end(), body) - body_begin.begin()) - 1;
}

namespace {

// The other holders of `body` (beyond its owner): the ranks sweeping an interface contact that touches it.
template <class F>
void for_holders(const RankPlan& plan, std::int32_t body, F&& f) {
  f(plan.owner_of_body(body));
  auto it = std::lower_bound(plan.holders.begin(), plan.holders.end(), std::pair<std::int32_t, std::int8_t>(body, -1));
  for (; it != plan.holders.end() && it->first == body; ++it) f(static_cast<int>(it->second));
}

// Adds body to the link with `rank` in `links` (kept in rank order).
void add_to_link(std::vector<RankLink>& links, int rank, std::int32_t body) {
  auto it = std::lower_bound(links.begin(), links.end(), rank, [](const RankLink& l, int r) { return l.rank < r; });
  if (it == links.end() || it->rank != rank) it = links.insert(it, RankLink{rank, {}});
  it->bodies.push_back(body);
}

void finish_links(std::vector<RankLink>& links) {
  for (RankLink& l : links) {
    std::sort(l.bodies.begin(), l.bodies.end());
    l.bodies.erase(std::unique(l.bodies.begin(), l.bodies.end()), l.bodies.end());
  }
}

}  // namespace

void build_rank_plan(const std::vector<matrixfree::SweepContact>& contacts, const matrixfree::SweepLayout& L,
                     int bodies, int ranks, int rank, RankPlan& plan) {
  if (ranks < 1 || ranks > 127) throw std::invalid_argument("distributed sweep: " + std::to_string(ranks) +
                                                            " ranks (1 to 127 are supported)");
  const int P = L.partitions;
  plan.rank = rank, plan.ranks = ranks;
  // Blocks to ranks: contiguous ranges with about equal interior contact counts (each rank one block at least
  // while there are as many blocks as ranks).
  plan.block_begin.assign(ranks + 1, P);
  plan.block_begin[0] = 0;
  const long total = L.part_start.empty() ? 0 : L.part_start.back();
  for (int r = 1; r < ranks; ++r) {
    const long target = total * r / ranks;
    int q = static_cast<int>(std::lower_bound(L.part_start.begin(), L.part_start.end() - 1, target) - L.part_start.begin());
    q = std::max(q, plan.block_begin[r - 1] + (P >= ranks ? 1 : 0));
    if (P >= ranks) q = std::min(q, P - (ranks - r));
    plan.block_begin[r] = std::min(q, P);
  }
  plan.body_begin.resize(ranks + 1);
  plan.contact_begin.resize(ranks + 1);
  for (int r = 0; r <= ranks; ++r) {
    const long q = plan.block_begin[r];
    plan.body_begin[r] = static_cast<std::int32_t>((q * bodies + P - 1) / P);  // first bead i with i P / N >= q
    plan.contact_begin[r] = L.part_start.empty() ? 0 : L.part_start[q];
  }

  // Interface contacts: who sweeps each, and who holds each body beyond its owner.
  const int base = L.interface_begin(), nc = L.interface_colours();
  const int ni = static_cast<int>(contacts.size()) - base;
  const int overflow = L.interface.last_is_overflow ? nc - 1 : -1;
  plan.solver.resize(ni);
  plan.holders.clear();
  plan.mine.clear();
  plan.mine_start.assign(nc + 1, 0);
  for (int k = 0; k < nc; ++k) {
    for (int i = base + L.interface.colour_start[k]; i < base + L.interface.colour_start[k + 1]; ++i) {
      const matrixfree::SweepContact& c = contacts[i];
      const int s = k == overflow ? 0 : plan.owner_of_body(c.b);
      plan.solver[i - base] = static_cast<std::int8_t>(s);
      if (s == rank) plan.mine.push_back(i);
      if (plan.owner_of_body(c.b) != s) plan.holders.emplace_back(c.b, static_cast<std::int8_t>(s));
      if (c.a >= 0 && plan.owner_of_body(c.a) != s) plan.holders.emplace_back(c.a, static_cast<std::int8_t>(s));
    }
    plan.mine_start[k + 1] = static_cast<std::int32_t>(plan.mine.size());
  }
  std::sort(plan.holders.begin(), plan.holders.end());
  plan.holders.erase(std::unique(plan.holders.begin(), plan.holders.end()), plan.holders.end());

  // Phase 0: each owner sends its bodies held elsewhere to their holders.
  plan.send.assign(nc + 1, {});
  plan.recv.assign(nc + 1, {});
  for (const auto& [body, holder] : plan.holders) {
    const int owner = plan.owner_of_body(body);
    if (owner == rank) add_to_link(plan.send[0], holder, body);
    if (holder == rank) add_to_link(plan.recv[0], owner, body);
  }
  // Phase k + 1: the bodies each colour's contacts moved, from their sweeper to the bodies' other holders.
  for (int k = 0; k < nc; ++k) {
    std::vector<RankLink>& send = plan.send[k + 1];
    std::vector<RankLink>& recv = plan.recv[k + 1];
    for (int i = base + L.interface.colour_start[k]; i < base + L.interface.colour_start[k + 1]; ++i) {
      const matrixfree::SweepContact& c = contacts[i];
      const int s = plan.solver[i - base];
      for (const std::int32_t body : {c.a, c.b}) {
        if (body < 0) continue;
        for_holders(plan, body, [&](int d) {
          if (d == s) return;
          if (s == rank) add_to_link(send, d, body);
          if (d == rank) add_to_link(recv, s, body);
        });
      }
    }
    finish_links(send), finish_links(recv);
  }
  finish_links(plan.send[0]), finish_links(plan.recv[0]);
}

}  // namespace talus::distributed
