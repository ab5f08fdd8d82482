#include "apps/JsonOutput.hpp"

#include "apps/RunOutputs.hpp"
#include "apps/Version.hpp"

namespace talus::app {

nlohmann::ordered_json command_record(int argc, const char* const* argv) {
  nlohmann::ordered_json args = nlohmann::ordered_json::array();
  for (int i = 1; i < argc; ++i) args.push_back(argv[i]);
  return {{"program", argc > 0 ? std::filesystem::path(argv[0]).filename().string() : std::string()},
          {"arguments", args},
          {"talus_version", version()}};
}

void write_json_file(const std::filesystem::path& file, const nlohmann::ordered_json& doc) {
  // error_handler_t::replace: a message carrying invalid UTF-8 (a solver's text) is written, not thrown.
  write_file_atomically(file, doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
}

}  // namespace talus::app
