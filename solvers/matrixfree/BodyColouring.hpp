#pragma once
// Colouring of contacts on bodies for the parallel Gauss–Seidel sweep (STYLE.md practice 4; the same idea as
// solvers/fc/ContactColouring.hpp, but on the contact–body incidence that detection produces, without forming W):
// two contacts sharing a bead get different colours; walls are fixed and do not count. Greedy first fit in
// contact order with a 64-bit mask per bead; a contact whose beads already use 64 colours goes to an overflow
// colour swept serially. Depends only on the contact list, never on the thread count.
#include <cstdint>
#include <vector>

namespace talus::matrixfree {

struct ContactColours {
  std::vector<std::int32_t> colour;        // per contact (input order)
  std::vector<std::int32_t> slot;          // position of each contact in colour order
  std::vector<std::int32_t> colour_start;  // colours + 1 offsets; the last colour may be the overflow one
  bool last_is_overflow = false;           // sweep the last colour serially
  std::vector<std::uint64_t> body_mask;    // scratch
  int colours() const { return static_cast<int>(colour_start.size()) - 1; }
};

// Inside a parallel region: f(i) for the contacts i of colour k, stored from base + colour_start[k] on. A
// proper colour's contacts share no bead and are split among the threads; the overflow colour is visited by
// one thread, in order (reversed when `backward`), since its contacts may share beads.
template <class F>
inline void for_colour(const ContactColours& c, int k, int base, bool backward, F&& f) {
  const int s = base + c.colour_start[k], e = base + c.colour_start[k + 1];
  if (c.last_is_overflow && k == c.colours() - 1) {
#pragma omp single
    {
      if (backward)
        for (int i = e - 1; i >= s; --i) f(i);
      else
        for (int i = s; i < e; ++i) f(i);
    }
  } else {
#pragma omp for schedule(static)
    for (int i = s; i < e; ++i) f(i);
  }
}

// As for_colour, with two(i, j) for two contacts of a proper colour at a time (they share no bead: an update of
// both side by side is that of i then j) and one(i) for the rest: an odd one out and the overflow colour.
template <class One, class Two>
inline void for_colour_pairs(const ContactColours& c, int k, int base, bool backward, One&& one, Two&& two) {
  const int s = base + c.colour_start[k], e = base + c.colour_start[k + 1];
  if (c.last_is_overflow && k == c.colours() - 1) {
    for_colour(c, k, base, backward, one);
    return;
  }
  const int pairs = (e - s) / 2;
#pragma omp for schedule(static)
  for (int j = 0; j < pairs; ++j) two(s + 2 * j, s + 2 * j + 1);
  if ((e - s) % 2 == 1) {
#pragma omp single
    one(e - 1);
  }
}

// Contacts k = 0..n-1 between beads a[k] (−1 for a wall) and b[k]; bodies = number of beads.
void colour_contacts_on_bodies(const std::int32_t* a, const std::int32_t* b, int n, int bodies, ContactColours& c);

}  // namespace talus::matrixfree
