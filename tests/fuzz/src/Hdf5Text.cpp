// The text-to-HDF5 builder of the FCLIB and restart harnesses (see Hdf5Text.hpp).
#include "tests/fuzz/src/Hdf5Text.hpp"

#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <vector>

namespace talus::fuzz {

namespace {

// Bounds of the builder itself, so that the time goes to the reader: written elements per file, and the
// declared (unwritten) extents.
constexpr std::uint64_t kMaxWritten = 1u << 16;
constexpr std::uint64_t kMaxDeclared = std::uint64_t(1) << 40;

struct Handle {
  hid_t id;
  herr_t (*close)(hid_t);
  ~Handle() {
    if (id >= 0) close(id);
  }
};

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// "4x3" -> {4, 3}, "0x2" -> {0, 2} (an empty dataset); empty on anything else (at most 3 dimensions).
std::vector<hsize_t> parse_dims(const std::string& text) {
  std::vector<hsize_t> dims;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t x = text.find('x', start);
    const std::string part = text.substr(start, x == std::string::npos ? std::string::npos : x - start);
    if (part.empty() || part.size() > 12 || part.find_first_not_of("0123456789") != std::string::npos) return {};
    dims.push_back(std::stoull(part));
    if (dims.size() > 3) return {};
    if (x == std::string::npos) break;
    start = x + 1;
  }
  return dims;
}

hid_t file_type(char t) {
  switch (t) {
    case 'i': return H5T_STD_I32LE;
    case 'l': return H5T_STD_I64LE;
    case 'u': return H5T_STD_U64LE;
    case 'd': return H5T_IEEE_F64LE;
    case 'f': return H5T_IEEE_F32LE;
    default: return -1;
  }
}

bool write_line(hid_t file, hid_t link_plist, const std::string& line, std::uint64_t& written) {
  const auto words = split(line);
  if (words.size() < 2 || words[0].empty() || words[0][0] != '/') return true;
  const std::string& path = words[0];
  const std::string& spec = words[1];
  if (spec == "g") {
    Handle g{H5Gcreate2(file, path.c_str(), link_plist, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
    return true;
  }
  if (spec == "a" && words.size() >= 3) {
    // /path a NAME text: a text attribute of the object at /path (the file's root: /).
    const std::string& name = words[2];
    size_t at = line.find(name, line.find(" a ") + 3) + name.size();
    if (at < line.size() && line[at] == ' ') ++at;
    const std::string text = line.substr(std::min(at, line.size()));
    Handle object{H5Oopen(file, path.c_str(), H5P_DEFAULT), H5Oclose};
    if (object.id < 0) return true;
    Handle type{H5Tcopy(H5T_C_S1), H5Tclose};
    H5Tset_size(type.id, text.size() + 1);
    Handle space{H5Screate(H5S_SCALAR), H5Sclose};
    Handle attr{H5Acreate2(object.id, name.c_str(), type.id, space.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
    if (attr.id >= 0) H5Awrite(attr.id, type.id, text.c_str());
    return true;
  }
  if (spec == "S") {
    // /path S w1 w2 ...: a list of variable-length strings, one per word.
    std::vector<const char*> ptrs;
    for (size_t k = 2; k < words.size(); ++k) ptrs.push_back(words[k].c_str());
    if (written + ptrs.size() > kMaxWritten) return true;
    written += ptrs.size();
    const hsize_t n = ptrs.size();
    Handle type{H5Tcopy(H5T_C_S1), H5Tclose};
    H5Tset_size(type.id, H5T_VARIABLE);
    Handle space{H5Screate_simple(1, &n, nullptr), H5Sclose};
    Handle set{H5Dcreate2(file, path.c_str(), type.id, space.id, link_plist, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
    if (set.id >= 0 && n > 0) H5Dwrite(set.id, type.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, ptrs.data());
    return true;
  }
  if (spec == "s") {
    size_t at = line.find(path) + path.size();
    at = line.find('s', at) + 1;
    if (at < line.size() && line[at] == ' ') ++at;
    const std::string text = line.substr(std::min(at, line.size()));
    Handle type{H5Tcopy(H5T_C_S1), H5Tclose};
    H5Tset_size(type.id, text.size() + 1);
    Handle space{H5Screate(H5S_SCALAR), H5Sclose};
    Handle set{H5Dcreate2(file, path.c_str(), type.id, space.id, link_plist, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
    if (set.id >= 0) H5Dwrite(set.id, type.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, text.c_str());
    return true;
  }
  const hid_t type = file_type(spec[0]);
  if (type < 0) return true;
  if (spec.size() > 1 && spec[1] == '@') {
    const auto dims = parse_dims(spec.substr(2));
    if (dims.size() != 1 || dims[0] == 0 || dims[0] > kMaxDeclared) return true;
    const hsize_t chunk[1] = {std::min<hsize_t>(dims[0], 1 << 16)};
    Handle space{H5Screate_simple(1, dims.data(), nullptr), H5Sclose};
    Handle plist{H5Pcreate(H5P_DATASET_CREATE), H5Pclose};
    H5Pset_chunk(plist.id, 1, chunk);
    Handle set{H5Dcreate2(file, path.c_str(), type, space.id, link_plist, plist.id, H5P_DEFAULT), H5Dclose};
    return true;
  }
  std::vector<hsize_t> dims;
  const size_t values = words.size() - 2;
  if (spec.size() > 1) {
    if (spec[1] != ':') return true;
    dims = parse_dims(spec.substr(2));
    if (dims.empty()) return true;
  } else {
    dims = {static_cast<hsize_t>(values)};
  }
  std::uint64_t count = 1;
  for (hsize_t d : dims) {
    count *= d;  // d < 1e12 and count <= kMaxWritten before: no overflow
    if (count > kMaxWritten) return true;
  }
  if (written + count > kMaxWritten) return true;
  written += count;
  std::vector<std::int64_t> ints(count, 0);
  std::vector<double> reals(count, 0.0);
  for (size_t k = 0; k < values && k < count; ++k) {
    const char* text = words[2 + k].c_str();
    ints[k] = static_cast<std::int64_t>(std::strtoull(text, nullptr, 0));
    if (text[0] == '-') ints[k] = std::strtoll(text, nullptr, 0);
    reals[k] = std::strtod(text, nullptr);
  }
  const bool integer = spec[0] == 'i' || spec[0] == 'l' || spec[0] == 'u';
  const hid_t memory = spec[0] == 'u' ? H5T_NATIVE_UINT64 : integer ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE;
  Handle space{H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose};
  Handle set{H5Dcreate2(file, path.c_str(), type, space.id, link_plist, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
  if (set.id < 0 || count == 0) return true;
  // Written from 64-bit memory types: HDF5 converts (int32 wraps are clamped by its converter, as a producer's
  // own conversion would be; the values that matter, INT_MAX, -1, ..., are written exactly).
  H5Dwrite(set.id, memory, H5S_ALL, H5S_ALL, H5P_DEFAULT,
           integer ? static_cast<const void*>(ints.data()) : static_cast<const void*>(reals.data()));
  return true;
}

}  // namespace

bool write_hdf5_from_text(const std::string& text, const std::string& path) {
  // Each file open allocates a metadata cache of about 1 MB, more than libhdf5's free lists keep by default
  // (64 KiB per list): under ASan every such block is a fresh mmap, and page faults took 2/3 of the time.
  // Unbounded free lists keep and reuse it (the fuzzer opens a handful of files per input, all alike).
  static const bool reuse = H5set_free_list_limits(-1, -1, -1, -1, -1, -1) >= 0;
  (void)reuse;
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  Handle file{H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose};
  if (file.id < 0) return false;
  Handle links{H5Pcreate(H5P_LINK_CREATE), H5Pclose};
  H5Pset_create_intermediate_group(links.id, 1);
  std::uint64_t written = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (line.find('\0') != std::string::npos) continue;
    write_line(file.id, links.id, line, written);
  }
  return true;
}

std::string scratch_file(const std::string& name) {
  std::filesystem::path dir;
  if (const char* chosen = std::getenv("TALUS_FUZZ_SCRATCH")) dir = chosen;
  else dir = std::filesystem::temp_directory_path();
  return (dir / ("talus-fuzz-" + std::to_string(::getpid()) + "-" + name)).string();
}

}  // namespace talus::fuzz
