#pragma once
// One residual evaluation of a granular solve (issue 10: the residual histories of bench/stack_height): the
// fine sweeps done so far, the seconds since the solve started and the residual then. Solvers record them when
// asked (GranularParameters::record_history); plotted against seconds ÷ the time of one fine sweep they give
// the residual per sweep-equivalent, every level and every extra pass counted.
namespace talus::matrixfree {

struct ResidualSample {
  int sweeps = 0;
  double seconds = 0.0;
  double residual = 0.0;
};

}  // namespace talus::matrixfree
