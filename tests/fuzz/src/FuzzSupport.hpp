#pragma once
// What every harness requires of a reader, beyond the sanitizers' own checks: a bad input is refused by a
// std::runtime_error whose message names the file, nothing else escapes (std::bad_alloc, std::length_error:
// a size taken from the file unchecked). A violation aborts, which libFuzzer and the replay test report.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>

namespace talus::fuzz {

[[noreturn]] inline void violation(const std::string& what) {
  std::fprintf(stderr, "talus fuzz: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// $TALUS_FUZZ_VERBOSE set: each reader's verdict is printed (to see what the seeds reach).
inline bool verbose() {
  static const bool on = std::getenv("TALUS_FUZZ_VERBOSE") != nullptr;
  return on;
}

// Runs read(); an accepted input or a runtime_error naming `file` is fine.
template <class Read>
void expect_clean(const char* reader, const std::string& file, Read&& read) {
  try {
    read();
    if (verbose()) std::fprintf(stderr, "  %s: accepted\n", reader);
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    if (verbose()) std::fprintf(stderr, "  %s: refused: %s\n", reader, e.what());
    if (message.find(file) == std::string::npos)
      violation(std::string(reader) + ": the error does not name the file: " + message);
  } catch (const std::exception& e) {
    violation(std::string(reader) + ": unexpected exception: " + e.what());
  }
}

}  // namespace talus::fuzz
