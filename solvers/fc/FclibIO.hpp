#pragma once
// FCLIB files (HDF5) in and out (issue 3 item 1; layout in ../shared/fclib/FORMAT.md).
//
// Read through the HDF5 C API rather than libfclib: libfclib's reader calls exit() on any HDF5 failure and
// sizes triplet reads by a count that the files do not always honour, while a foreign or damaged file here must
// become a std::runtime_error that names the file and the problem. W, M, H may be stored CSC, CSR or as
// triplets (repeated entries summed, unsorted indices and explicit zeros accepted); nothing is symmetrised.
#include <cstddef>
#include <string>

#include "solvers/core/FrictionContactProblem.hpp"
#include "solvers/fc/GlobalFrictionContactProblem.hpp"

namespace talus::solvers {

enum class FclibKind { Local, Global, NotFclib };

// Every size in a file is checked before anything is allocated: against the other fields of its matrix group
// (nz, nzmax, m, n and the lengths of p, i, x), against the vectors it must match, and the memory all of them ask
// for against max_bytes (0: the machine's physical memory). A refusal names the file, the dataset and the
// estimate. A fuzzer or a service reading untrusted files sets a smaller bound.
struct FclibLimits {
  std::size_t max_bytes = 0;
};

// Local, Global, or NotFclib for a readable HDF5 file without either root group, an unreadable file or a
// non-HDF5 file. Never throws.
FclibKind fclib_kind(const std::string& path);

// The local problem (W, q, μ) of a file: read directly from /fclib_local, or condensed from /fclib_global
// (W = Hᵀ M⁻¹ H, q = Hᵀ M⁻¹ f + w). Throws std::runtime_error "<path>: <what is wrong>".
FrictionContactProblem read_fclib_problem(const std::string& path, const FclibLimits& limits = {});

FrictionContactProblem read_fclib_local(const std::string& path, const FclibLimits& limits = {});
GlobalFrictionContactProblem read_fclib_global(const std::string& path, const FclibLimits& limits = {});

struct FclibInfo {
  std::string title;
  std::string description;
  std::string math_info;
};

// Writes p as /fclib_local (W in compressed-column form, nz = -1, as the reference writer does), replacing the
// file. Optionally stores a solution (/solution/r and /solution/u) when r is non-empty. Throws
// std::runtime_error naming the file on failure.
void write_fclib_local(const std::string& path, const FrictionContactProblem& p, const FclibInfo& info = {},
                       const Vector& r = Vector(), const Vector& u = Vector());

// Writes p as /fclib_global (M and H in compressed-column form), replacing the file; a solution as above (r and
// u one entry per column of H). Throws std::runtime_error naming the file on failure.
void write_fclib_global(const std::string& path, const GlobalFrictionContactProblem& p, const FclibInfo& info = {},
                        const Vector& r = Vector(), const Vector& u = Vector());

// /solution/r of a file when present (empty otherwise); FCLIB's own files store zeros there as placeholders.
Vector read_fclib_solution_r(const std::string& path, const FclibLimits& limits = {});

}  // namespace talus::solvers
