#pragma once
// Two arrays hold the same bits: what "bitwise" means in the restart and determinism tests (any area), where a
// tolerance would hide a reordered sum. memcmp may not be handed the null data() of an empty vector (UBSan), hence
// the empty case apart.
#include <cstring>
#include <vector>

namespace talus::test {

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

}  // namespace talus::test
