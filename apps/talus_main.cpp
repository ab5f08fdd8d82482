// The talus command: `talus run SCENE [options]`, `talus --help`.
#include <CLI/CLI.hpp>
#include <iostream>

int main(int argc, char** argv) {
  CLI::App app{"Talus: nonsmooth contact dynamics (unilateral contact, impacts, Coulomb friction)"};
  app.require_subcommand(1);
  auto* run = app.add_subcommand("run", "run a scene file");
  std::string scene;
  run->add_option("scene", scene, "scene file (YAML)")->required()->check(CLI::ExistingFile);
  CLI11_PARSE(app, argc, argv);
  std::cerr << "talus: scene runner not built yet\n";
  return 1;
}
