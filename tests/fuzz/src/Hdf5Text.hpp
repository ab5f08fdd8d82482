#pragma once
// An HDF5 file built from a few lines of text, so that the FCLIB and restart harnesses mutate what a reader sees
// (which datasets exist, their types, shapes and values) rather than libhdf5's own byte format: a damaged
// HDF5 superblock or B-tree is libhdf5's to survive, not ours, and an uninstrumented libhdf5 would only be
// crashed by such inputs, never reach our code. One line per object, '#' starts a comment:
//   /path g                       a group (intermediate groups are created anyway)
//   /path TYPE[:DIMS] v1 v2 ...   a dataset; TYPE i (int32), l (int64), u (uint64), d (float64), f (float32), s (a string,
//                                 the rest of the line); DIMS "4", "4x3" or "0x2" (empty) (values missing are 0, extra ones
//                                 dropped; without DIMS, one-dimensional, as many as given)
//   /path TYPE@N                  a chunked dataset of N elements of which nothing is written: a tiny file that
//                                 declares a huge extent (unwritten chunks read back as zeros)
//   /path S w1 w2 ...             a dataset of variable-length strings, one per word
//   /path a NAME text             a text attribute NAME (the rest of the line) of the object at /path (root: /)
// Values: integers and reals as strtoll/strtod read them (nan, inf, 0x..., 1e300); ints wrap to the type.
#include <string>

namespace talus::fuzz {

// Writes the file (replacing it). Returns false when the text describes nothing HDF5 can build (the input is then
// uninteresting, not a failure of the reader under test). Lines HDF5 refuses (a name used twice) are skipped.
bool write_hdf5_from_text(const std::string& text, const std::string& path);

// A file name for this process's scratch files: $TALUS_FUZZ_SCRATCH or the temporary directory, with the pid.
std::string scratch_file(const std::string& name);

}  // namespace talus::fuzz
