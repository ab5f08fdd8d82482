#pragma once
// Graph colouring of contacts for the parallel block Gauss–Seidel sweep (issue 3, "parallel NSGS";
// STYLE.md practice 4). Two contacts that W couples (a non-zero block W_ij, i.e. they share a body) get
// different colours, so all contacts of one colour can be updated at the same time: each reads only
// reactions of other colours. The colouring depends only on the coupling graph, never on the thread count, so
// a coloured sweep gives the same reactions with any number of threads.
#include <vector>

#include "solvers/fc/BlockCsrMatrix.hpp"

namespace talus::solvers {

struct ContactColouring {
  std::vector<int> colour;        // colour of each contact (natural numbering)
  std::vector<int> order;         // contacts sorted by colour, natural order inside a colour
  std::vector<int> colour_start;  // colours + 1 offsets into `order`

  int colours() const { return static_cast<int>(colour_start.size()) - 1; }
};

// Greedy first-fit colouring in natural contact order: deterministic, and it keeps neighbouring contacts'
// relative order inside the sweep, which is what Gauss–Seidel's convergence rate depends on.
ContactColouring colour_contacts(const ContactGraph& graph);

// True when no two contacts of one colour are adjacent (used by tests and debug checks).
bool is_valid_colouring(const ContactGraph& graph, const ContactColouring& colouring);

}  // namespace talus::solvers
