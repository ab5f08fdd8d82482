#pragma once
// The talus command line (docs/cli.md) as a function, so that tests drive the very code the executable runs:
//   talus run SCENE [--out DIR] [--t-end T] [--h H] [--set KEY=VALUE ...] [--overwrite] [--max-memory SIZE]
//                   [--restart FILE] [--no-plot] [--quiet] [--profile FILE] [--dump-fclib DIR]
//   talus check SCENE [--set KEY=VALUE ...] [--max-memory SIZE]
//   talus --help | --version
// Exit status: 0 success, 1 invalid scene, options or outputs, 2 a step failed (outputs up to it are kept),
// 130 interrupted by SIGINT or SIGTERM (outputs up to it are kept).
namespace talus::app {

int cli_main(int argc, char** argv);

}  // namespace talus::app
