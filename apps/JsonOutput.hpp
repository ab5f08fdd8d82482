#pragma once
// Every JSON file Talus writes goes through nlohmann-json (strings escaped by the library, NaN and infinities
// written as null) and records how it was made: the program, its arguments and the talus version, so that a
// results file found later can be reproduced (issue 12 item 7).
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace talus::app {

// {"program": argv[0]'s name, "arguments": [argv[1], …], "talus_version": "…"}
nlohmann::ordered_json command_record(int argc, const char* const* argv);

// Writes `doc` (indented, newline-terminated) to `file` through a temporary file and a rename
// (apps/RunOutputs.hpp). Throws std::runtime_error naming the file.
void write_json_file(const std::filesystem::path& file, const nlohmann::ordered_json& doc);

}  // namespace talus::app
