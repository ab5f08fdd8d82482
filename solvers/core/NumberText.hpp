#pragma once
// Numbers in messages: six significant digits in whatever notation is shorter (%.6g). std::to_string prints a
// double with %f, so a residual of 1e-7 read "0.000000" and a tolerance of 1e-12 "0.000000" in failure messages.
#include <cstdio>
#include <string>

namespace talus {

inline std::string number_text(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", x);
  return text;
}

}  // namespace talus
