// FCLIB reader and writer on the HDF5 C API (see FclibIO.hpp; layout in ../shared/fclib/FORMAT.md).
#include "solvers/fc/FclibIO.hpp"

#include <hdf5.h>

#include <unistd.h>

#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace talus::solvers {

namespace {

// Owns one HDF5 identifier and closes it with the matching H5?close.
class H5Handle {
 public:
  H5Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  H5Handle(const H5Handle&) = delete;
  H5Handle& operator=(const H5Handle&) = delete;
  ~H5Handle() {
    if (id_ >= 0) close_(id_);
  }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

// HDF5 prints its error stack to stderr by default; our errors are exceptions with a message instead.
class SilenceHdf5Errors {
 public:
  SilenceHdf5Errors() {
    H5Eget_auto2(H5E_DEFAULT, &function_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~SilenceHdf5Errors() { H5Eset_auto2(H5E_DEFAULT, function_, data_); }

 private:
  H5E_auto2_t function_ = nullptr;
  void* data_ = nullptr;
};

std::size_t physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return std::numeric_limits<std::size_t>::max();
  return static_cast<std::size_t>(pages) * static_cast<std::size_t>(page);
}

std::string format_bytes(double bytes) {
  char text[32];
  if (bytes >= 1024.0 * 1024.0 * 1024.0)
    std::snprintf(text, sizeof text, "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  else
    std::snprintf(text, sizeof text, "%.1f MiB", bytes / (1024.0 * 1024.0));
  return text;
}

// Reads datasets of one file, turning every failure into "<file>: <object>: <what>". Sizes are 64-bit here: a
// file's int32 fields plus one (the pointer arrays) must not overflow.
class Reader {
 public:
  Reader(std::string path, const FclibLimits& limits)
      : path_(std::move(path)),
        file_(open(path_), H5Fclose),
        max_bytes_(limits.max_bytes > 0 ? limits.max_bytes : physical_memory()) {}

  hid_t file() const { return file_.get(); }

  [[noreturn]] void fail(const std::string& what) const { throw std::runtime_error(path_ + ": " + what); }

  // Books the memory a read is about to allocate; refuses when the file's reads together would exceed the bound.
  void reserve(double bytes, const std::string& object, const std::string& why) {
    booked_ += bytes;
    if (booked_ > static_cast<double>(max_bytes_))
      fail(object + ": " + why + " needs about " + format_bytes(bytes) + " (" + format_bytes(booked_) +
           " for the file so far), more than the " + format_bytes(static_cast<double>(max_bytes_)) +
           (max_bytes_ == physical_memory() ? " of the machine's memory" : " allowed"));
  }

  // Number of elements of a dataset, read from its dataspace only (a file may declare a huge extent without
  // storing it: chunks never written read back as the fill value).
  std::int64_t extent(const std::string& object) const {
    if (!exists(object)) fail(object + " is missing");
    H5Handle set(H5Dopen2(file_.get(), object.c_str(), H5P_DEFAULT), H5Dclose);
    if (!set.valid()) fail(object + " is not a dataset");
    H5Handle space(H5Dget_space(set.get()), H5Sclose);
    const hssize_t count = H5Sget_simple_extent_npoints(space.get());
    if (count < 0) fail(object + ": unreadable dataspace");
    return static_cast<std::int64_t>(count);
  }

  bool exists(const std::string& object) const {
    // H5Lexists needs every intermediate link to exist; walk the path.
    std::string partial;
    size_t pos = 1;
    while (pos <= object.size()) {
      const size_t next = object.find('/', pos);
      partial = object.substr(0, next);
      if (H5Lexists(file_.get(), partial.c_str(), H5P_DEFAULT) <= 0) return false;
      if (next == std::string::npos) break;
      pos = next + 1;
    }
    return true;
  }

  // Whole dataset converted to T (int or double); its element class must match.
  template <class T>
  std::vector<T> read_array(const std::string& object) {
    if (!exists(object)) fail(object + " is missing");
    H5Handle set(H5Dopen2(file_.get(), object.c_str(), H5P_DEFAULT), H5Dclose);
    if (!set.valid()) fail(object + " is not a dataset");
    H5Handle space(H5Dget_space(set.get()), H5Sclose);
    H5Handle type(H5Dget_type(set.get()), H5Tclose);
    const hssize_t count = H5Sget_simple_extent_npoints(space.get());
    if (count < 0) fail(object + ": unreadable dataspace");
    const H5T_class_t cls = H5Tget_class(type.get());
    constexpr bool want_int = std::is_same_v<T, int>;
    if (want_int ? cls != H5T_INTEGER : (cls != H5T_FLOAT && cls != H5T_INTEGER))
      fail(object + " has the wrong element type (expected " + (want_int ? "integers" : "reals") + ")");
    reserve(static_cast<double>(count) * sizeof(T), object,
            "reading its " + std::to_string(count) + " " + (want_int ? "integers" : "reals"));
    std::vector<T> values(static_cast<size_t>(count));
    if (count > 0 && H5Dread(set.get(), want_int ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
                             H5P_DEFAULT, values.data()) < 0)
      fail(object + ": read failed (damaged file?)");
    return values;
  }

  int read_int(const std::string& object) {
    const auto v = read_array<int>(object);
    if (v.size() != 1) fail(object + " should hold one integer, holds " + std::to_string(v.size()));
    return v[0];
  }

  Vector read_vector(const std::string& object, Index expected, const std::string& why) {
    const auto v = read_array<double>(object);
    if (static_cast<Index>(v.size()) != expected)
      fail(object + " has " + std::to_string(v.size()) + " entries, expected " + std::to_string(expected) + " (" +
           why + ")");
    Vector out = Eigen::Map<const Vector>(v.data(), expected);
    if (!out.allFinite()) fail(object + " contains NaN or Inf");
    return out;
  }

  // The sizes of a CSparse-style matrix group, read and checked before its arrays.
  struct Shape {
    std::int64_t m = 0, n = 0;
    int nz = 0;
  };

  Shape read_shape(const std::string& group) {
    if (!exists(group)) fail(group + " is missing");
    Shape s;
    s.m = read_int(group + "/m");
    s.n = read_int(group + "/n");
    s.nz = read_int(group + "/nz");
    if (s.m < 0 || s.n < 0)
      fail(group + ": negative size " + std::to_string(s.m) + "x" + std::to_string(s.n) + " (m, n)");
    if (s.nz < -2)
      fail(group + "/nz is " + std::to_string(s.nz) + " (expected -1 CSC, -2 CSR or a triplet count >= 0)");
    return s;
  }

  // What a matrix of this shape costs in memory once read: the stored arrays, the triplets, and the row-major
  // result with the column-major temporary setFromTriplets builds.
  static double matrix_bytes(const Shape& s, std::int64_t entries) {
    const double index = sizeof(int), triplet = sizeof(Triplet), entry = sizeof(double) + sizeof(int);
    return static_cast<double>(s.m + 1) * index + static_cast<double>(s.n + 1) * index +
           static_cast<double>(entries) * (triplet + 2.0 * entry);
  }

  // A CSparse-style matrix group: nz = -1 CSC, -2 CSR, >= 0 triplets (p = column, i = row). The storage fields
  // must agree with each other (../shared/fclib/FORMAT.md, and what every file of the dev set holds):
  //   compressed: p has outer + 1 entries, starts at 0 and never decreases; i and x have nzmax entries; p[outer]
  //               <= nzmax; so a CSC group whose nz is changed to a triplet count is refused, not read as triplets;
  //   triplets:   p, i and x have the same length (nz, or the capacity nzmax), nz <= that length and nz <= nzmax.
  // (CSC and CSR of a square matrix have the same fields: swapping -1 and -2 there reads the transpose, which no
  // check of the fields can see.)
  SparseMatrix read_matrix(const std::string& group) {
    const Shape s = read_shape(group);
    const std::int64_t m = s.m, n = s.n;
    const int nz = s.nz;
    const std::string size = std::to_string(m) + "x" + std::to_string(n);
    std::int64_t nzmax = -1;
    if (exists(group + "/nzmax")) {
      nzmax = read_int(group + "/nzmax");
      if (nzmax < 0) fail(group + "/nzmax is " + std::to_string(nzmax) + ", negative");
    }
    const std::int64_t lp = extent(group + "/p"), li = extent(group + "/i"), lx = extent(group + "/x");
    const std::string lengths = "p, i, x hold " + std::to_string(lp) + ", " + std::to_string(li) + ", " +
                                std::to_string(lx) + " entries";
    if (nz >= 0) {
      if (lp != li || li != lx) fail(group + ": triplet form (nz = " + std::to_string(nz) + ") but " + lengths);
      if (lp < nz) fail(group + ": triplet form with nz = " + std::to_string(nz) + " but " + lengths);
      if (nzmax >= 0 && nz > nzmax)
        fail(group + ": nz = " + std::to_string(nz) + " exceeds nzmax = " + std::to_string(nzmax));
    } else {
      const bool by_column = nz == -1;
      const std::int64_t outer = by_column ? n : m;
      if (lp != outer + 1)
        fail(group + ": " + (by_column ? "CSC (nz = -1)" : "CSR (nz = -2)") + " of a " + size + " matrix needs " +
             std::to_string(outer + 1) + " " + (by_column ? "column" : "row") + " pointers p, the file holds " +
             std::to_string(lp));
      if (li != lx) fail(group + ": " + lengths + " (i and x must have the same length)");
      if (nzmax >= 0 && nzmax != li)
        fail(group + ": nzmax = " + std::to_string(nzmax) + " but " + lengths + " (i and x hold nzmax entries)");
    }
    const std::int64_t entries = nz >= 0 ? nz : li;
    reserve(matrix_bytes(s, entries), group, "a " + size + " matrix with " + std::to_string(entries) + " entries");
    const auto p = read_array<int>(group + "/p");
    const auto i = read_array<int>(group + "/i");
    const auto x = read_array<double>(group + "/x");
    std::vector<Triplet> entries_list;
    auto add = [&](std::int64_t row, std::int64_t col, double value, std::int64_t k) {
      if (row < 0 || row >= m || col < 0 || col >= n)
        fail(group + ": entry " + std::to_string(k) + " at (" + std::to_string(row) + ", " + std::to_string(col) +
             ") lies outside the " + size + " matrix");
      if (!std::isfinite(value)) fail(group + ": entry " + std::to_string(k) + " is NaN or Inf");
      entries_list.emplace_back(static_cast<int>(row), static_cast<int>(col), value);
    };
    if (nz >= 0) {
      entries_list.reserve(static_cast<size_t>(nz));
      for (std::int64_t k = 0; k < nz; ++k) add(i[k], p[k], x[k], k);
    } else {
      const bool by_column = nz == -1;
      const std::int64_t outer = by_column ? n : m;
      if (p[0] != 0) fail(group + ": p[0] is " + std::to_string(p[0]) + ", expected 0");
      for (std::int64_t k = 0; k < outer; ++k)
        if (p[k + 1] < p[k])
          fail(group + ": pointers p decrease at " + std::to_string(k) + " (" + std::to_string(p[k]) + " then " +
               std::to_string(p[k + 1]) + ")");
      const std::int64_t stored = p[outer];
      if (stored > li)
        fail(group + ": p announces " + std::to_string(stored) + " entries but " + lengths);
      entries_list.reserve(static_cast<size_t>(stored));
      for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t k = p[o]; k < p[o + 1]; ++k)
          by_column ? add(i[k], o, x[k], k) : add(o, i[k], x[k], k);
    }
    SparseMatrix A(static_cast<Index>(m), static_cast<Index>(n));
    A.setFromTriplets(entries_list.begin(), entries_list.end());  // sums repeated entries, as CSparse does
    A.prune(0.0, 0.0);
    A.makeCompressed();
    return A;
  }

  int read_dim(const std::string& root) {
    const int dim = read_int(root + "/spacedim");
    if (dim != 2 && dim != 3) fail(root + "/spacedim is " + std::to_string(dim) + ", expected 2 or 3");
    return dim;
  }

  Vector read_mu(const std::string& object, Index contacts) {
    Vector mu = read_vector(object, contacts, "one per contact");
    for (Index k = 0; k < mu.size(); ++k)
      if (mu[k] < 0.0) fail(object + "[" + std::to_string(k) + "] is negative");
    return mu;
  }

 private:
  hid_t open(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) throw std::runtime_error(path + ": no such file");
    if (H5Fis_hdf5(path.c_str()) <= 0) throw std::runtime_error(path + ": not an HDF5 file");
    const hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (id < 0) throw std::runtime_error(path + ": cannot open the HDF5 file");
    return id;
  }

  std::string path_;
  H5Handle file_;
  std::size_t max_bytes_;
  double booked_ = 0.0;
};

// Writes datasets of one new file; every failure throws "<file>: <what>".
class Writer {
 public:
  explicit Writer(std::string path)
      : path_(std::move(path)), file_(H5Fcreate(path_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose) {
    if (!file_.valid()) throw std::runtime_error(path_ + ": cannot create the file");
  }

  void group(const std::string& name) {
    H5Handle g(H5Gcreate2(file_.get(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    if (!g.valid()) fail("cannot create group " + name);
  }

  void ints(const std::string& name, const int* data, size_t count) {
    write(name, H5T_STD_I32LE, H5T_NATIVE_INT, data, count);
  }
  void doubles(const std::string& name, const double* data, size_t count) {
    write(name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, data, count);
  }
  void integer(const std::string& name, int value) { ints(name, &value, 1); }

  void string(const std::string& name, const std::string& text) {
    H5Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(type.get(), text.size() + 1);
    H5Tset_strpad(type.get(), H5T_STR_NULLTERM);
    H5Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    H5Handle set(H5Dcreate2(file_.get(), name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT,
                            H5P_DEFAULT),
                 H5Dclose);
    if (!set.valid() || H5Dwrite(set.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, text.c_str()) < 0)
      fail("cannot write " + name);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw std::runtime_error(path_ + ": " + what); }

  void write(const std::string& name, hid_t file_type, hid_t memory_type, const void* data, size_t count) {
    const hsize_t dims[1] = {static_cast<hsize_t>(count)};
    H5Handle space(H5Screate_simple(1, dims, nullptr), H5Sclose);
    H5Handle set(H5Dcreate2(file_.get(), name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                 H5Dclose);
    if (!set.valid()) fail("cannot create " + name);
    if (count > 0 && H5Dwrite(set.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
      fail("cannot write " + name);
  }

  std::string path_;
  H5Handle file_;
};

}  // namespace

FclibKind fclib_kind(const std::string& path) {
  SilenceHdf5Errors quiet;
  try {
    Reader reader(path, {});
    if (reader.exists("/fclib_local")) return FclibKind::Local;
    if (reader.exists("/fclib_global")) return FclibKind::Global;
  } catch (const std::runtime_error&) {
  }
  return FclibKind::NotFclib;
}

namespace {

// "a 2147483647x6 matrix would need about 16.0 GiB": the estimate that goes with a size refused as inconsistent.
std::string would_need(std::int64_t m, std::int64_t n) {
  return "a " + std::to_string(m) + "x" + std::to_string(n) + " matrix would need at least about " +
         format_bytes(static_cast<double>(m + 1 + n + 1) * sizeof(int));
}

// A matrix dimension must equal the length of the vector that goes with it; checked before the matrix is read,
// so that a damaged size is refused without allocating for it.
void check_dimension(const Reader& in, const std::string& field, std::int64_t value, const std::string& vector,
                     std::int64_t length, std::int64_t m, std::int64_t n) {
  if (value != length)
    in.fail(field + " is " + std::to_string(value) + " but " + vector + " holds " + std::to_string(length) +
            " entries (" + would_need(m, n) + ")");
}

}  // namespace

FrictionContactProblem read_fclib_local(const std::string& path, const FclibLimits& limits) {
  SilenceHdf5Errors quiet;
  Reader in(path, limits);
  if (!in.exists("/fclib_local"))
    in.fail(in.exists("/fclib_global") ? "holds a global problem (/fclib_global), not a local one"
                                       : "not an FCLIB file (no /fclib_local or /fclib_global group)");
  if (in.exists("/fclib_local/V") || in.exists("/fclib_local/R"))
    in.fail("mixed local problems with equality multipliers (V, R) are not supported");
  FrictionContactProblem p;
  p.dim = in.read_dim("/fclib_local");
  const auto shape = in.read_shape("/fclib_local/W");
  const std::int64_t m = shape.m;
  if (shape.n != m)
    in.fail("/fclib_local/W is " + std::to_string(m) + "x" + std::to_string(shape.n) + ", not square (W/m, W/n)");
  check_dimension(in, "/fclib_local/W/m", m, "/fclib_local/vectors/q", in.extent("/fclib_local/vectors/q"), m, m);
  if (m % p.dim != 0)
    in.fail("/fclib_local/W has " + std::to_string(m) + " rows, not a multiple of spacedim " + std::to_string(p.dim));
  p.W = in.read_matrix("/fclib_local/W");
  p.q = in.read_vector("/fclib_local/vectors/q", m, "one per row of W");
  p.mu = in.read_mu("/fclib_local/vectors/mu", m / p.dim);
  return p;
}

GlobalFrictionContactProblem read_fclib_global(const std::string& path, const FclibLimits& limits) {
  SilenceHdf5Errors quiet;
  Reader in(path, limits);
  if (!in.exists("/fclib_global"))
    in.fail(in.exists("/fclib_local") ? "holds a local problem (/fclib_local), not a global one"
                                      : "not an FCLIB file (no /fclib_local or /fclib_global group)");
  if (in.exists("/fclib_global/G")) in.fail("global problems with equality constraints (G, b) are not supported");
  GlobalFrictionContactProblem g;
  g.dim = in.read_dim("/fclib_global");
  const auto M = in.read_shape("/fclib_global/M");
  const auto H = in.read_shape("/fclib_global/H");
  const std::int64_t n = M.m;
  if (M.n != n)
    in.fail("/fclib_global/M is " + std::to_string(n) + "x" + std::to_string(M.n) + ", not square (M/m, M/n)");
  check_dimension(in, "/fclib_global/M/m", n, "/fclib_global/vectors/f", in.extent("/fclib_global/vectors/f"), n, n);
  if (H.m != n)
    in.fail("/fclib_global/H has " + std::to_string(H.m) + " rows (H/m), M has " + std::to_string(n));
  const std::int64_t m = H.n;
  check_dimension(in, "/fclib_global/H/n", m, "/fclib_global/vectors/w", in.extent("/fclib_global/vectors/w"), n, m);
  if (m % g.dim != 0)
    in.fail("/fclib_global/H has " + std::to_string(m) + " columns, not a multiple of spacedim " +
            std::to_string(g.dim));
  g.M = in.read_matrix("/fclib_global/M");
  g.H = in.read_matrix("/fclib_global/H");
  g.f = in.read_vector("/fclib_global/vectors/f", n, "one per row of M");
  g.w = in.read_vector("/fclib_global/vectors/w", m, "one per column of H");
  g.mu = in.read_mu("/fclib_global/vectors/mu", m / g.dim);
  return g;
}

FrictionContactProblem read_fclib_problem(const std::string& path, const FclibLimits& limits) {
  switch (fclib_kind(path)) {
    case FclibKind::Local: return read_fclib_local(path, limits);
    case FclibKind::Global: {
      const GlobalFrictionContactProblem g = read_fclib_global(path, limits);
      try {
        return condense_to_local(g);
      } catch (const std::exception& e) {
        throw std::runtime_error(path + ": " + e.what());
      }
    }
    case FclibKind::NotFclib: break;
  }
  // Let the local reader name the precise reason (missing, not HDF5, no FCLIB group).
  return read_fclib_local(path, limits);
}

Vector read_fclib_solution_r(const std::string& path, const FclibLimits& limits) {
  SilenceHdf5Errors quiet;
  Reader in(path, limits);
  if (!in.exists("/solution/r")) return Vector();
  const auto v = in.read_array<double>("/solution/r");
  return Eigen::Map<const Vector>(v.data(), static_cast<Index>(v.size()));
}

namespace {

// A writer refuses a problem that validate() rejects, naming the file it was asked to write.
template <class Problem>
void refuse_invalid(const std::string& path, const Problem& p) {
  try {
    validate(p);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(path + ": refusing to write an invalid problem: " + e.what());
  }
}

// A sparse matrix as FCLIB stores it: compressed columns, nz = -1 (as the reference writer does).
void write_matrix(Writer& out, const std::string& group, const SparseMatrix& a) {
  SparseMatrixCol c = a;
  c.makeCompressed();
  out.group(group);
  const int nnz = static_cast<int>(c.nonZeros());
  out.integer(group + "/m", static_cast<int>(c.rows()));
  out.integer(group + "/n", static_cast<int>(c.cols()));
  out.integer(group + "/nz", -1);
  out.integer(group + "/nzmax", nnz);
  out.ints(group + "/p", c.outerIndexPtr(), c.cols() + 1);
  out.ints(group + "/i", c.innerIndexPtr(), nnz);
  out.doubles(group + "/x", c.valuePtr(), nnz);
}

void write_info(Writer& out, const std::string& root, const FclibInfo& info) {
  if (info.title.empty() && info.description.empty() && info.math_info.empty()) return;
  out.group(root + "/info");
  if (!info.title.empty()) out.string(root + "/info/title", info.title);
  if (!info.description.empty()) out.string(root + "/info/description", info.description);
  if (!info.math_info.empty()) out.string(root + "/info/math_info", info.math_info);
}

// /solution/r (and /solution/u), one entry per contact row, when r is given.
void write_solution(Writer& out, const std::string& path, Index rows, const Vector& r, const Vector& u) {
  if (r.size() == 0) return;
  if (r.size() != rows || (u.size() != 0 && u.size() != rows))
    throw std::runtime_error(path + ": solution vectors do not match the problem size");
  out.group("/solution");
  out.doubles("/solution/r", r.data(), r.size());
  if (u.size() > 0) out.doubles("/solution/u", u.data(), u.size());
}

}  // namespace

void write_fclib_local(const std::string& path, const FrictionContactProblem& p, const FclibInfo& info,
                       const Vector& r, const Vector& u) {
  refuse_invalid(path, p);
  SilenceHdf5Errors quiet;
  Writer out(path);
  out.group("/fclib_local");
  out.integer("/fclib_local/spacedim", p.dim);
  write_matrix(out, "/fclib_local/W", p.W);
  out.group("/fclib_local/vectors");
  out.doubles("/fclib_local/vectors/q", p.q.data(), p.q.size());
  out.doubles("/fclib_local/vectors/mu", p.mu.data(), p.mu.size());
  write_info(out, "/fclib_local", info);
  write_solution(out, path, p.q.size(), r, u);
}

void write_fclib_global(const std::string& path, const GlobalFrictionContactProblem& p, const FclibInfo& info,
                        const Vector& r, const Vector& u) {
  refuse_invalid(path, p);
  SilenceHdf5Errors quiet;
  Writer out(path);
  out.group("/fclib_global");
  out.integer("/fclib_global/spacedim", p.dim);
  write_matrix(out, "/fclib_global/M", p.M);
  write_matrix(out, "/fclib_global/H", p.H);
  out.group("/fclib_global/vectors");
  out.doubles("/fclib_global/vectors/f", p.f.data(), p.f.size());
  out.doubles("/fclib_global/vectors/w", p.w.data(), p.w.size());
  out.doubles("/fclib_global/vectors/mu", p.mu.data(), p.mu.size());
  write_info(out, "/fclib_global", info);
  write_solution(out, path, p.w.size(), r, u);
}

}  // namespace talus::solvers
