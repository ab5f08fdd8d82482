// Greedy colouring of the contact coupling graph (see ContactColouring.hpp).
#include "solvers/fc/ContactColouring.hpp"

#include <algorithm>

namespace talus::solvers {

ContactColouring colour_contacts(const ContactGraph& graph) {
  const Index n = graph.contacts();
  ContactColouring c;
  c.colour.assign(n, -1);
  // forbidden[k] == i means colour k is taken by a neighbour of contact i: no clearing between contacts.
  std::vector<Index> forbidden;
  int colours = 0;
  for (Index i = 0; i < n; ++i) {
    for (int e = graph.start[i]; e < graph.start[i + 1]; ++e) {
      const int k = c.colour[graph.neighbour[e]];
      if (k >= 0) forbidden[k] = i;
    }
    int k = 0;
    while (k < colours && forbidden[k] == i) ++k;
    if (k == colours) {
      ++colours;
      forbidden.push_back(-1);
    }
    c.colour[i] = k;
  }
  c.colour_start.assign(colours + 1, 0);
  for (Index i = 0; i < n; ++i) ++c.colour_start[c.colour[i] + 1];
  for (int k = 0; k < colours; ++k) c.colour_start[k + 1] += c.colour_start[k];
  c.order.resize(n);
  std::vector<int> next(c.colour_start.begin(), c.colour_start.end() - 1);
  for (Index i = 0; i < n; ++i) c.order[next[c.colour[i]]++] = static_cast<int>(i);
  return c;
}

bool is_valid_colouring(const ContactGraph& graph, const ContactColouring& colouring) {
  const Index n = graph.contacts();
  if (static_cast<Index>(colouring.colour.size()) != n) return false;
  for (Index i = 0; i < n; ++i)
    for (int e = graph.start[i]; e < graph.start[i + 1]; ++e)
      if (colouring.colour[graph.neighbour[e]] == colouring.colour[i]) return false;
  return true;
}

}  // namespace talus::solvers
