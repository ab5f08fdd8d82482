// FCLIB reading and writing (issue 3 item 1, ../shared/fclib/FORMAT.md): the three sparse storages, errors
// that name the file and the fault, a round trip checked by the reference reader libfclib, condensation of global
// problems, and problems with stored reference reactions solved again by NSGS.
#include <hdf5.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <limits>
#include <tuple>

#include "solvers/fc/FclibIO.hpp"
#include "solvers/fc/LatticeStackProblem.hpp"
#include "solvers/fc/Nsgs.hpp"

#ifdef TALUS_HAVE_LIBFCLIB
extern "C" {  // fclib.h declares C functions without a C++ guard
#include <fclib.h>
}
#endif

using namespace talus;
using namespace talus::solvers;
namespace fs = std::filesystem;

namespace {

fs::path scratch_dir() {
  const fs::path dir = fs::temp_directory_path() / ("talus_fclib_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no error)";
}

// Writes (or overwrites) one 1-D dataset with the HDF5 C API, to build files our writer would refuse to write.
template <class T>
void put(hid_t file, const std::string& name, const std::vector<T>& values) {
  const hid_t type = std::is_same_v<T, int> ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE;
  if (H5Lexists(file, name.c_str(), H5P_DEFAULT) > 0) H5Ldelete(file, name.c_str(), H5P_DEFAULT);
  const hsize_t dims[1] = {values.size()};
  const hid_t space = H5Screate_simple(1, dims, nullptr);
  const hid_t set = H5Dcreate2(file, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  REQUIRE(set >= 0);
  H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  H5Dclose(set);
  H5Sclose(space);
}

// A dataset of `count` elements declared without writing any (chunked: unwritten chunks read as the fill
// value), as a small damaged or hostile file can: its extent says nothing of what the file holds.
void declare(hid_t file, const std::string& name, hid_t type, hsize_t count) {
  if (H5Lexists(file, name.c_str(), H5P_DEFAULT) > 0) H5Ldelete(file, name.c_str(), H5P_DEFAULT);
  const hsize_t dims[1] = {count}, chunk[1] = {std::min<hsize_t>(count, 1 << 16)};
  const hid_t space = H5Screate_simple(1, dims, nullptr);
  const hid_t plist = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(plist, 1, chunk);
  const hid_t set = H5Dcreate2(file, name.c_str(), type, space, H5P_DEFAULT, plist, H5P_DEFAULT);
  REQUIRE(set >= 0);
  H5Dclose(set);
  H5Pclose(plist);
  H5Sclose(space);
}

// Reads back a whole 1-D dataset (to rewrite some of its values, keeping its length).
template <class T>
std::vector<T> get(hid_t file, const std::string& name) {
  const hid_t type = std::is_same_v<T, int> ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE;
  const hid_t set = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  REQUIRE(set >= 0);
  const hid_t space = H5Dget_space(set);
  std::vector<T> values(static_cast<size_t>(H5Sget_simple_extent_npoints(space)));
  H5Dread(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  H5Sclose(space);
  H5Dclose(set);
  return values;
}

// A 2-contact local file whose W group is given raw (nz, p, i, x); nzmax < 0: the length of x for the
// compressed forms (what it must be), three more than that for triplets (a capacity, may exceed nz).
void write_raw_local(const fs::path& path, int nz, const std::vector<int>& p, const std::vector<int>& i,
                     const std::vector<double>& x, int nzmax = -1) {
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  for (const char* g : {"/fclib_local", "/fclib_local/W", "/fclib_local/vectors"})
    H5Gclose(H5Gcreate2(file, g, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  put<int>(file, "/fclib_local/spacedim", {3});
  put<int>(file, "/fclib_local/W/m", {6});
  put<int>(file, "/fclib_local/W/n", {6});
  put<int>(file, "/fclib_local/W/nz", {nz});
  if (nzmax < 0) nzmax = static_cast<int>(x.size()) + (nz >= 0 ? 3 : 0);
  put<int>(file, "/fclib_local/W/nzmax", {nzmax});
  put<int>(file, "/fclib_local/W/p", p);
  put<int>(file, "/fclib_local/W/i", i);
  put<double>(file, "/fclib_local/W/x", x);
  put<double>(file, "/fclib_local/vectors/q", {-1, 0, 0, -1, 0, 0});
  put<double>(file, "/fclib_local/vectors/mu", {0.5, 0.5});
  H5Fclose(file);
}

// Expected W of write_raw_local's storage tests: diag(1..6) plus W(0,3) = 0.5, W(3,0) = 0.25.
Matrix expected_raw_W() {
  Matrix W = Matrix::Zero(6, 6);
  for (int k = 0; k < 6; ++k) W(k, k) = k + 1.0;
  W(0, 3) = 0.5;
  W(3, 0) = 0.25;
  return W;
}

void modify(const fs::path& path, const std::function<void(hid_t)>& change) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  REQUIRE(file >= 0);
  change(file);
  H5Fclose(file);
}

FrictionContactProblem small_lattice() {
  LatticeStackParameters lp;
  lp.nx = 3;
  lp.ny = 3;
  lp.nz = 2;
  lp.velocity_noise = 0.01;
  return make_lattice_stack_problem(lp);
}

// tests/CMakeLists.txt marks a test whose output holds TALUS_TEST_SKIPPED as skipped (Catch2 2 has no SKIP): a
// test that needs ../shared is never counted as passed when it is absent. Such a test must do nothing else.
bool shared_fclib_present(const fs::path& dir) {
  if (fs::exists(dir)) return true;
  WARN("TALUS_TEST_SKIPPED: " << dir << " is absent (set TALUS_SHARED_DIR)");
  return false;
}

}  // namespace

TEST_CASE("FCLIB reader: CSC, CSR and triplet W with unsorted, repeated and zero entries", "[fc][fclib]") {
  const fs::path dir = scratch_dir();
  const Matrix expected = expected_raw_W();
  SECTION("compressed columns, unsorted rows and an explicit zero") {
    // columns: 0 -> rows {3: 0.25, 0: 1}, 1 -> {1: 2}, 2 -> {2: 3, 5: 0.0}, 3 -> {0: 0.5, 3: 4}, 4 -> {4: 5}, 5 -> {5: 6}
    write_raw_local(dir / "csc.hdf5", -1, {0, 2, 3, 5, 7, 8, 9}, {3, 0, 1, 2, 5, 0, 3, 4, 5},
                    {0.25, 1, 2, 3, 0.0, 0.5, 4, 5, 6});
    const FrictionContactProblem p = read_fclib_local((dir / "csc.hdf5").string());
    CHECK(Matrix(p.W) == expected);
    CHECK(p.W.nonZeros() == 8);  // the stored zero is dropped
    CHECK(p.mu.size() == 2);
  }
  SECTION("compressed rows") {
    write_raw_local(dir / "csr.hdf5", -2, {0, 2, 3, 4, 6, 7, 8}, {3, 0, 1, 2, 3, 0, 4, 5},
                    {0.5, 1, 2, 3, 4, 0.25, 5, 6});
    CHECK(Matrix(read_fclib_local((dir / "csr.hdf5").string()).W) == expected);
  }
  SECTION("triplets: p holds columns, i rows, repeated entries are summed, nzmax is not the count") {
    write_raw_local(dir / "coo.hdf5", 9, {0, 1, 2, 3, 4, 5, 3, 0, 5}, {0, 1, 2, 3, 4, 5, 0, 3, 5},
                    {1, 2, 3, 4, 5, 2, 0.5, 0.25, 4});
    CHECK(Matrix(read_fclib_local((dir / "coo.hdf5").string()).W) == expected);
  }
  fs::remove_all(dir);
}

TEST_CASE("FCLIB reader: missing, foreign and broken files give an error naming file and fault", "[fc][fclib]") {
  const fs::path dir = scratch_dir();
  const std::string missing = (dir / "nothing-here.hdf5").string();
  CHECK_THAT(error_of([&] { read_fclib_problem(missing); }), Catch::Contains(missing) && Catch::Contains("no such file"));
  CHECK(fclib_kind(missing) == FclibKind::NotFclib);

  const fs::path text = dir / "notes.hdf5";
  std::ofstream(text) << "this is not HDF5\n";
  CHECK_THAT(error_of([&] { read_fclib_problem(text.string()); }), Catch::Contains("not an HDF5 file"));
  CHECK(fclib_kind(text.string()) == FclibKind::NotFclib);

  const fs::path foreign = dir / "foreign.hdf5";
  const hid_t file = H5Fcreate(foreign.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  put<double>(file, "/temperature", {1.0, 2.0});
  H5Fclose(file);
  CHECK_THAT(error_of([&] { read_fclib_problem(foreign.string()); }),
             Catch::Contains(foreign.string()) && Catch::Contains("not an FCLIB file"));
  CHECK(fclib_kind(foreign.string()) == FclibKind::NotFclib);

  const fs::path good = dir / "good.hdf5";
  const Index contacts = small_lattice().contacts();
  write_fclib_local(good.string(), small_lattice());
  CHECK(fclib_kind(good.string()) == FclibKind::Local);
  CHECK_THAT(error_of([&] { read_fclib_global(good.string()); }), Catch::Contains("holds a local problem"));

  struct Fault {
    const char* what;
    std::function<void(hid_t)> change;
    const char* message;
  };
  const Fault faults[] = {
      {"q missing", [](hid_t f) { H5Ldelete(f, "/fclib_local/vectors/q", H5P_DEFAULT); },
       "/fclib_local/vectors/q is missing"},
      {"index out of range",
       [](hid_t f) {
         auto i = get<int>(f, "/fclib_local/W/i");
         i[i.size() / 2] = 100000;
         put<int>(f, "/fclib_local/W/i", i);
       },
       "lies outside"},
      {"negative index",
       [](hid_t f) {
         auto i = get<int>(f, "/fclib_local/W/i");
         i[0] = -1;
         put<int>(f, "/fclib_local/W/i", i);
       },
       "at (-1, 0) lies outside"},
      {"unknown storage", [](hid_t f) { put<int>(f, "/fclib_local/W/nz", {-7}); }, "/fclib_local/W/nz is -7"},
      {"mu too short", [](hid_t f) { put<double>(f, "/fclib_local/vectors/mu", {0.5}); }, "/fclib_local/vectors/mu has 1"},
      {"negative mu", [&](hid_t f) { put<double>(f, "/fclib_local/vectors/mu", std::vector<double>(contacts, -1.0)); },
       "is negative"},
      {"NaN in W",
       [](hid_t f) {
         auto x = get<double>(f, "/fclib_local/W/x");
         x.back() = NAN;
         put<double>(f, "/fclib_local/W/x", x);
       },
       "NaN"},
      {"spacedim 4", [](hid_t f) { put<int>(f, "/fclib_local/spacedim", {4}); }, "spacedim is 4"},
      {"spacedim as reals", [](hid_t f) { put<double>(f, "/fclib_local/spacedim", {3.0}); }, "wrong element type"},
      {"pointers not from 0",
       [](hid_t f) {
         auto p = get<int>(f, "/fclib_local/W/p");
         p[0] = 5;
         put<int>(f, "/fclib_local/W/p", p);
       },
       "p[0] is 5"},
      {"decreasing pointers",
       [](hid_t f) {
         auto p = get<int>(f, "/fclib_local/W/p");
         p[3] = p[2] - 1;
         put<int>(f, "/fclib_local/W/p", p);
       },
       "/fclib_local/W: pointers p decrease at 2"},
      {"pointers past the entries",
       [](hid_t f) {
         auto p = get<int>(f, "/fclib_local/W/p");
         p.back() += 1;
         put<int>(f, "/fclib_local/W/p", p);
       },
       "p announces"},
  };
  for (const auto& fault : faults) {
    const fs::path broken = dir / "broken.hdf5";
    fs::copy_file(good, broken, fs::copy_options::overwrite_existing);
    modify(broken, fault.change);
    INFO(fault.what);
    const std::string message = error_of([&] { read_fclib_problem(broken.string()); });
    CHECK_THAT(message, Catch::Contains(broken.string()) && Catch::Contains(fault.message));
  }
  fs::remove_all(dir);
}

TEST_CASE("FCLIB reader: the storage fields nz, nzmax, p, i, x must agree with each other", "[fc][fclib]") {
  // Issue 12 item 6: a CSC file whose nz field is changed was read as another storage, a different problem.
  const fs::path dir = scratch_dir();
  const fs::path path = dir / "storage.hdf5";
  // The CSC W of the storage test above: 6x6, 9 stored entries, p has 7.
  const std::vector<int> p = {0, 2, 3, 5, 7, 8, 9}, i = {3, 0, 1, 2, 5, 0, 3, 4, 5};
  const std::vector<double> x = {0.25, 1, 2, 3, 0.0, 0.5, 4, 5, 6};
  const auto refused = [&](const std::string& expected) {
    const std::string message = error_of([&] { read_fclib_local(path.string()); });
    CHECK_THAT(message, Catch::Contains(path.string()) && Catch::Contains("/fclib_local/W") &&
                            Catch::Contains(expected));
  };
  write_raw_local(path, -1, p, i, x);
  REQUIRE_NOTHROW(read_fclib_local(path.string()));
  for (int nz : {0, 3, 7, 9}) {
    INFO("CSC with nz changed to the triplet count " << nz);
    write_raw_local(path, nz, p, i, x, 9);
    refused("triplet form");
  }
  SECTION("nzmax is the length of i and x in the compressed forms") {
    write_raw_local(path, -1, p, i, x, 12);
    refused("nzmax = 12 but p, i, x hold 7, 9, 9 entries");
  }
  SECTION("i and x of different lengths") {
    write_raw_local(path, -1, p, i, {0.25, 1, 2, 3, 0.0, 0.5, 4, 5, 6, 7}, 9);
    refused("i and x must have the same length");
  }
  SECTION("p of the wrong length") {
    write_raw_local(path, -1, {0, 2, 3, 5, 7, 8, 9, 9}, i, x);
    refused("needs 7 column pointers p, the file holds 8");
  }
  SECTION("triplets: nz above nzmax, arrays of different lengths") {
    write_raw_local(path, 9, {0, 1, 2, 3, 4, 5, 3, 0, 5}, {0, 1, 2, 3, 4, 5, 0, 3, 5}, {1, 2, 3, 4, 5, 2, 0.5, 0.25, 4},
                    8);
    refused("nz = 9 exceeds nzmax = 8");
    write_raw_local(path, 8, {0, 1, 2, 3, 4, 5, 3, 0, 5}, {0, 1, 2, 3, 4, 5, 0, 3}, {1, 2, 3, 4, 5, 2, 0.5, 0.25, 4});
    refused("p, i, x hold 9, 8, 9 entries");
  }
  SECTION("CSC read as CSR is refused when the matrix is not square (the global H)") {
    // M = I (2x2), H 2x3 with entries (0,0) = 1, (1,1) = 2, (0,2) = 3, one contact in 3-D.
    const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    for (const char* g : {"/fclib_global", "/fclib_global/M", "/fclib_global/H", "/fclib_global/vectors"})
      H5Gclose(H5Gcreate2(file, g, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    put<int>(file, "/fclib_global/spacedim", {3});
    for (auto [name, m, n] : {std::tuple{"M", 2, 2}, std::tuple{"H", 2, 3}}) {
      const std::string g = std::string("/fclib_global/") + name;
      put<int>(file, g + "/m", {m});
      put<int>(file, g + "/n", {n});
      put<int>(file, g + "/nz", {-1});
    }
    put<int>(file, "/fclib_global/M/p", {0, 1, 2});
    put<int>(file, "/fclib_global/M/i", {0, 1});
    put<double>(file, "/fclib_global/M/x", {1, 1});
    put<int>(file, "/fclib_global/H/p", {0, 1, 2, 3});
    put<int>(file, "/fclib_global/H/i", {0, 1, 0});
    put<double>(file, "/fclib_global/H/x", {1, 2, 3});
    put<double>(file, "/fclib_global/vectors/f", {0, -1});
    put<double>(file, "/fclib_global/vectors/w", {0, 0, 0});
    put<double>(file, "/fclib_global/vectors/mu", {0.5});
    H5Fclose(file);
    const GlobalFrictionContactProblem g = read_fclib_global(path.string());
    CHECK(Matrix(g.H) == (Matrix(2, 3) << 1, 0, 3, 0, 2, 0).finished());
    modify(path, [](hid_t f) { put<int>(f, "/fclib_global/H/nz", {-2}); });
    CHECK_THAT(error_of([&] { read_fclib_global(path.string()); }),
               Catch::Contains(path.string()) && Catch::Contains("/fclib_global/H: CSR (nz = -2)") &&
                   Catch::Contains("needs 3 row pointers p, the file holds 4"));
  }
  fs::remove_all(dir);
}

TEST_CASE("FCLIB reader: huge sizes are refused before anything is allocated, with the estimate", "[fc][fclib]") {
  // Issue 12 item 1: W/n = INT_MAX overflowed an int, W/m = INT_MAX asked for the machine's memory.
  const fs::path dir = scratch_dir();
  const fs::path good = dir / "good.hdf5";
  write_fclib_local(good.string(), small_lattice());
  const fs::path path = dir / "huge.hdf5";
  const int big = std::numeric_limits<int>::max();
  const auto refused = [&](const std::function<void(hid_t)>& change, const std::vector<std::string>& expected,
                           const FclibLimits& limits = {}) {
    fs::copy_file(good, path, fs::copy_options::overwrite_existing);
    modify(path, change);
    const std::string message = error_of([&] { read_fclib_local(path.string(), limits); });
    CHECK_THAT(message, Catch::Contains(path.string()));
    for (const auto& e : expected) CHECK_THAT(message, Catch::Contains(e));
  };
  SECTION("W/n = INT_MAX") {
    refused([&](hid_t f) { put<int>(f, "/fclib_local/W/n", {big}); }, {"/fclib_local/W is", "not square"});
  }
  SECTION("W/m = W/n = INT_MAX: refused against the length of q, with what W would need") {
    refused([&](hid_t f) {
      put<int>(f, "/fclib_local/W/m", {big});
      put<int>(f, "/fclib_local/W/n", {big});
    }, {"/fclib_local/W/m is 2147483647 but /fclib_local/vectors/q holds", "GiB"});
  }
  SECTION("consistent INT_MAX sizes declared by datasets the file does not store: refused by the memory bound") {
    const auto declare_all = [&](hid_t f) {
      put<int>(f, "/fclib_local/W/m", {big - 1});  // a multiple of 3
      put<int>(f, "/fclib_local/W/n", {big - 1});
      put<int>(f, "/fclib_local/W/nzmax", {big});
      declare(f, "/fclib_local/W/p", H5T_NATIVE_INT, big);
      declare(f, "/fclib_local/W/i", H5T_NATIVE_INT, big);
      declare(f, "/fclib_local/W/x", H5T_NATIVE_DOUBLE, big);
      declare(f, "/fclib_local/vectors/q", H5T_NATIVE_DOUBLE, big - 1);
    };
    // The machine's memory by default: over 86 GB asked; where a machine has more, the bound is given.
    const double asked = static_cast<double>(big) * (sizeof(Triplet) + 24.0);
    FclibLimits limits;
    if (static_cast<double>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE) > asked) limits.max_bytes = 1 << 30;
    refused(declare_all, {"/fclib_local/W: a 2147483646x2147483646 matrix with 2147483647 entries needs about",
                          "GiB", "more than the"}, limits);
    refused(declare_all, {"/fclib_local/W:", "more than the 64.0 MiB allowed"}, FclibLimits{64u << 20});
  }
  SECTION("a vector declared huge is refused by the bound before it is read") {
    const std::string message = [&] {
      const fs::path solution = dir / "solution.hdf5";
      fs::copy_file(good, solution, fs::copy_options::overwrite_existing);
      modify(solution, [&](hid_t f) {
        H5Gclose(H5Gcreate2(f, "/solution", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        declare(f, "/solution/r", H5T_NATIVE_DOUBLE, hsize_t(1) << 40);
      });
      return error_of([&] { read_fclib_solution_r(solution.string(), FclibLimits{64u << 20}); });
    }();
    CHECK_THAT(message, Catch::Contains("/solution/r: reading its 1099511627776 reals needs about 8192.0 GiB"));
  }
  fs::remove_all(dir);
}

TEST_CASE("FCLIB writer: round trip, and the reference reader libfclib reads what we write", "[fc][fclib]") {
  const fs::path dir = scratch_dir();
  const FrictionContactProblem p = small_lattice();
  const fs::path path = dir / "lattice.hdf5";
  Vector r, u;
  REQUIRE(nsgs(p, r, u, {}).converged());
  write_fclib_local(path.string(), p, {"lattice", "3x3x2 bead stack", ""}, r, u);
  const FrictionContactProblem back = read_fclib_problem(path.string());
  CHECK(back.dim == 3);
  CHECK(Matrix(back.W) == Matrix(p.W));
  CHECK(back.q == p.q);
  CHECK(back.mu == p.mu);
  CHECK(read_fclib_solution_r(path.string()) == r);
#ifdef TALUS_HAVE_LIBFCLIB
  fclib_local* ref = fclib_read_local(path.c_str());
  REQUIRE(ref != nullptr);
  CHECK(ref->spacedim == 3);
  REQUIRE(ref->W->nz == -1);
  REQUIRE(ref->W->m == p.W.rows());
  const Eigen::Map<const SparseMatrixCol> W(ref->W->m, ref->W->n, ref->W->p[ref->W->n], ref->W->p, ref->W->i,
                                            ref->W->x);
  CHECK(Matrix(W) == Matrix(p.W));
  CHECK(Eigen::Map<const Vector>(ref->q, p.q.size()) == p.q);
  CHECK(Eigen::Map<const Vector>(ref->mu, p.mu.size()) == p.mu);
  CHECK(std::string(ref->info->title) == "lattice");
  fclib_delete_local(ref);
  free(ref);  // fclib_delete_local frees the members, not the struct
#else
  WARN("libfclib not found at configure time: the cross-check with the reference reader is skipped");
#endif
  fs::remove_all(dir);
}

TEST_CASE("Global problems condense to W = H^T M^-1 H, q = H^T M^-1 f + w", "[fc][fclib]") {
  LatticeStackParameters lp;
  lp.nx = 4;
  lp.ny = 3;
  lp.nz = 2;
  lp.velocity_noise = 0.02;
  SECTION("Cholesky path: the lattice's diagonal M, against the direct formula") {
    const FrictionContactProblem direct = make_lattice_stack_problem(lp);
    const FrictionContactProblem condensed = condense_to_local(make_lattice_stack_global(lp));
    CHECK((Matrix(condensed.W) - Matrix(direct.W)).norm() <= 1e-12 * Matrix(direct.W).norm());
    CHECK((condensed.q - direct.q).norm() <= 1e-12 * direct.q.norm());
  }
  SECTION("LU path: an unsymmetric M, against a dense LU") {
    GlobalFrictionContactProblem g = make_lattice_stack_global(lp);
    Matrix M = Matrix(g.M);
    for (Index k = 0; k + 1 < M.rows(); ++k) M(k, k + 1) += 0.1 * M(k, k);
    g.M = M.sparseView();
    const FrictionContactProblem condensed = condense_to_local(g);
    const Matrix H = Matrix(g.H);
    const Eigen::PartialPivLU<Matrix> lu(M);
    const Matrix W = H.transpose() * lu.solve(H);
    CHECK((Matrix(condensed.W) - W).norm() <= 1e-10 * W.norm());
    CHECK((condensed.q - (H.transpose() * lu.solve(g.f) + g.w)).norm() <= 1e-10 * condensed.q.norm());
  }
  SECTION("a singular M is an error") {
    GlobalFrictionContactProblem g = make_lattice_stack_global(lp);
    GlobalFrictionContactProblem empty = g;
    empty.M = SparseMatrix(g.M.rows(), g.M.cols());
    CHECK_THROWS_AS(condense_to_local(empty), std::runtime_error);
    g.M.coeffRef(7, 7) = 0.0;  // stored, numerically zero
    CHECK_THROWS_AS(condense_to_local(g), std::runtime_error);
  }
}

// Apart from the test above: it is reported as skipped when ../shared is absent.
TEST_CASE("FCLIB global files of the dev set match their condensed twins", "[fc][fclib]") {
  const fs::path fclib = fs::path(TALUS_SHARED_DIR) / "fclib";
  if (!shared_fclib_present(fclib)) return;
  for (const char* name : {"CubeH8/global/CubeH8", "BoxesStack/global/Box_Stacks-i0122-82-5",
                           "LMGC_GFC3D/global/LMGC_GFC3D-i00501-4-00000"}) {
    const fs::path global = fclib / (std::string(name) + ".hdf5");
    const fs::path twin = global.parent_path().parent_path() / (global.stem().string() + "_local.hdf5");
    INFO(global);
    REQUIRE(fclib_kind(global.string()) == FclibKind::Global);
    const FrictionContactProblem a = read_fclib_problem(global.string());
    const FrictionContactProblem b = read_fclib_problem(twin.string());
    CHECK((Matrix(a.W) - Matrix(b.W)).norm() <= 1e-10 * Matrix(b.W).norm());
    CHECK((a.q - b.q).norm() <= 1e-10 * (1.0 + b.q.norm()));
    CHECK(a.mu == b.mu);
  }
}

TEST_CASE("Every FCLIB file of the dev set passes the storage checks", "[fc][fclib]") {
  // The consistency checks of the reader (nz, nzmax, p, i, x) must refuse no real file.
  const fs::path fclib = fs::path(TALUS_SHARED_DIR) / "fclib";
  if (!shared_fclib_present(fclib)) return;
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(fclib)) {
    if (entry.path().extension() != ".hdf5") continue;
    const FclibKind kind = fclib_kind(entry.path().string());
    INFO(entry.path());
    REQUIRE(kind != FclibKind::NotFclib);
    if (kind == FclibKind::Local)
      CHECK_NOTHROW(read_fclib_local(entry.path().string()));
    else
      CHECK_NOTHROW(read_fclib_global(entry.path().string()));
    ++files;
  }
  CHECK(files >= 20);
}

TEST_CASE("Stored reference reactions (semismooth Newton at 1e-12) are found again by NSGS", "[fc][fclib]") {
  // tests/solvers_fc/data: small dev-set problems with positive definite W (unique solution) and reactions of
  // order 1e-5 or more (the residual is absolute in r: a tiny r would make 1e-12 a loose test), each with the
  // reference /solution/r written by solvers/fc/SemismoothNewton (see each file's /fclib_local/info).
  const fs::path data = fs::path(TALUS_SOURCE_DIR) / "tests" / "solvers_fc" / "data";
  int files = 0;
  for (const auto& entry : fs::directory_iterator(data)) {
    if (entry.path().extension() != ".hdf5") continue;
    ++files;
    const FrictionContactProblem p = read_fclib_problem(entry.path().string());
    const Vector reference = read_fclib_solution_r(entry.path().string());
    REQUIRE(reference.size() == p.q.size());
    REQUIRE(friction_residual(p, reference) <= 1e-12);
    for (auto kind : {LocalSolverKind::Analytic, LocalSolverKind::Projection}) {
      NsgsParameters prm;
      prm.local = kind;
      prm.tolerance = 1e-12;
      prm.max_iterations = 100000;
      Vector r, u;
      const SolverStats s = nsgs(p, r, u, prm);
      INFO(entry.path().filename() << " with " << to_string(kind));
      REQUIRE(s.converged());
      CHECK((r - reference).norm() <= 1e-7 * (reference.norm() + 1e-12));
    }
  }
  CHECK(files >= 3);
}

TEST_CASE("Small dev-set FCLIB problems solved to 1e-8 and re-checked", "[fc][fclib]") {
  const fs::path fclib = fs::path(TALUS_SHARED_DIR) / "fclib";
  if (!shared_fclib_present(fclib)) return;
  for (const char* name : {"Rover/Rover1039", "SmallExamples/FC3D_Example1", "SmallExamples/problem-check",
                           "OneObject/OneObject-i100000-316", "BoxesStack/Box_Stacks-i0122-82-5_local",
                           "NESpheres/NESpheres_30_1"}) {
    const FrictionContactProblem p = read_fclib_problem((fclib / (std::string(name) + ".hdf5")).string());
    Vector r, u;
    const SolverStats s = nsgs(p, r, u, {});
    INFO(name << ": " << to_string(s.status) << " after " << s.iterations << " sweeps, residual " << s.residual);
    CHECK(s.converged());
    CHECK(friction_residual(p, r) <= 1e-8);
  }
}
