// libFuzzer harness: `talus check` (apps/Cli.hpp cli_main, the very code of the command) on a scene file with
// --set overrides. Input: leading lines "--set key=value" are overrides, the rest is the YAML scene (seeds in
// tests/fuzz/corpus/scene, from examples/). --max-memory 64M keeps each check small (the fuzzer looks for
// crashes, hangs and unchecked sizes, not for big scenes). Besides the sanitizers, the harness requires that
// no raw library exception reaches the user ("talus: std::bad_alloc", "talus: vector::reserve": a size nobody
// checked) and that an error names the file or the option at fault.
#include <cstddef>
#include <cstdio>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "apps/Cli.hpp"
#include "tests/fuzz/src/FuzzSupport.hpp"
#include "tests/fuzz/src/Hdf5Text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = talus::fuzz::scratch_file("scene.yaml");
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> args = {"talus", "check", path, "--max-memory", "64M"};
  size_t start = 0;
  while (text.compare(start, 6, "--set ") == 0) {
    const size_t end = text.find('\n', start);
    if (end == std::string::npos) return 0;
    args.push_back("--set");
    args.push_back(text.substr(start + 6, end - start - 6));
    start = end + 1;
  }
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data() + start, static_cast<std::streamsize>(text.size() - start));
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::ostringstream out, err;
  auto* cout_buf = std::cout.rdbuf(out.rdbuf());
  auto* cerr_buf = std::cerr.rdbuf(err.rdbuf());
  int status = 0;
  try {
    status = talus::app::cli_main(static_cast<int>(args.size()), argv.data());
  } catch (const std::exception& e) {
    std::cout.rdbuf(cout_buf);
    std::cerr.rdbuf(cerr_buf);
    talus::fuzz::violation(std::string("cli_main let an exception escape: ") + e.what());
  }
  std::cout.rdbuf(cout_buf);
  std::cerr.rdbuf(cerr_buf);
  const std::string message = err.str();
  if (talus::fuzz::verbose())
    std::fprintf(stderr, "  talus check: status %d %s", status, status == 0 ? out.str().c_str() : message.c_str());
  // cli_main prints "talus: " + what() for exceptions other than SceneError: a raw library what() right after it
  // is an unchecked size or number (messages elsewhere echo the user's text, which may hold these words).
  for (const char* raw : {"std::", "vector::", "basic_string::", "bad_optional_access", "bad_variant_access",
                          "bad_any_cast", "map::at", "unordered_map::at", "stoi", "stod", "stol", "stoul", "stoll",
                          "yaml-cpp:"})
    if (message.rfind(std::string("talus: ") + raw, 0) == 0)
      talus::fuzz::violation("a raw library error reached the user: " + message);
  if (status != 0 && message.find(path) == std::string::npos && message.find("--set") == std::string::npos &&
      message.find("--max-memory") == std::string::npos)
    talus::fuzz::violation("the error names neither the file nor the option: " + message);
  return 0;
}
