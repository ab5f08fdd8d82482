#include "apps/Hdf5Writer.hpp"

#include <algorithm>
#include <cassert>
#include <stdexcept>

#include "apps/Hdf5File.hpp"

namespace talus::app {

namespace {

void check(herr_t status, const std::filesystem::path& file, const char* what) {
  if (status < 0) throw std::runtime_error("HDF5: cannot " + std::string(what) + " in " + file.string());
}

hid_t checked(hid_t id, const std::filesystem::path& file, const char* what) {
  if (id < 0) throw std::runtime_error("HDF5: cannot " + std::string(what) + " in " + file.string());
  return id;
}

// A variable-length UTF-8 string type (caller closes).
hid_t string_type() {
  const hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  return t;
}

void write_string_attribute(hid_t object, const std::string& name, const std::vector<std::string>& values,
                            const std::filesystem::path& file) {
  std::vector<const char*> ptrs;
  for (const auto& v : values) ptrs.push_back(v.c_str());
  const hsize_t n = ptrs.size();
  const hid_t type = string_type();
  const hid_t space = n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr);
  const hid_t attr = H5Acreate2(object, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT);
  const herr_t status = attr < 0 ? -1 : H5Awrite(attr, type, ptrs.data());
  if (attr >= 0) H5Aclose(attr);
  H5Sclose(space);
  H5Tclose(type);
  check(status, file, ("write the attribute '" + name + "'").c_str());
}

}  // namespace

Hdf5Writer::Hdf5Writer(const std::filesystem::path& file, const std::vector<std::string>& columns,
                       const std::vector<std::pair<std::string, std::string>>& file_attributes,
                       const std::vector<std::string>& units, const std::vector<std::string>& descriptions)
    : path_(file), columns_(columns.size()) {
  if ((!units.empty() && units.size() != columns.size()) ||
      (!descriptions.empty() && descriptions.size() != columns.size()))
    throw std::invalid_argument("Hdf5Writer: units and descriptions need one entry per column");
  // Errors are reported by our exceptions; HDF5's own stack dump on stderr would only add noise.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  file_ = checked(create_hdf5_file(file), file, "create the file");
  try {
    // About 512 KiB per chunk, at least one row.
    block_rows_ = std::max<std::size_t>(1, std::min<std::size_t>(4096, 65536 / std::max<hsize_t>(1, columns_)));
    buffer_.reserve(block_rows_ * columns_);
    const hsize_t dims[2] = {0, columns_}, max_dims[2] = {H5S_UNLIMITED, columns_};
    const hsize_t chunk[2] = {block_rows_, std::max<hsize_t>(1, columns_)};
    const hid_t space = H5Screate_simple(2, dims, max_dims);
    const hid_t props = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(props, 2, chunk);
    dataset_ = H5Dcreate2(file_, "timeseries", H5T_IEEE_F64LE, space, H5P_DEFAULT, props, H5P_DEFAULT);
    H5Pclose(props);
    H5Sclose(space);
    checked(dataset_, file, "create the dataset 'timeseries'");
    write_string_attribute(dataset_, "columns", columns, file);
    if (!units.empty()) write_string_attribute(dataset_, "units", units, file);
    if (!descriptions.empty()) write_string_attribute(dataset_, "descriptions", descriptions, file);
    write_string_attribute(dataset_, "row", {"the state at one output time: row k is the k-th line of timeseries.csv"},
                           file);
    for (const auto& [name, value] : file_attributes) write_string_attribute(file_, name, {value}, file);
  } catch (...) {
    close();
    throw;
  }
}

Hdf5Writer::~Hdf5Writer() {
  try {
    close();
  } catch (...) {  // a destructor must not throw; close() is called explicitly where errors matter
  }
}

void Hdf5Writer::append(std::span<const double> row) {
  assert(row.size() == columns_);
  buffer_.insert(buffer_.end(), row.begin(), row.end());
  if (buffer_.size() >= block_rows_ * columns_) write_buffer();
}

void Hdf5Writer::write_buffer() {
  if (buffer_.empty() || dataset_ < 0) return;
  const hsize_t n = buffer_.size() / std::max<hsize_t>(1, columns_);
  const hsize_t new_dims[2] = {rows_ + n, columns_};
  check(H5Dset_extent(dataset_, new_dims), path_, "extend the dataset");
  const hid_t file_space = H5Dget_space(dataset_);
  const hsize_t start[2] = {rows_, 0}, count[2] = {n, columns_};
  H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, nullptr, count, nullptr);
  const hid_t mem_space = H5Screate_simple(2, count, nullptr);
  const herr_t status = H5Dwrite(dataset_, H5T_NATIVE_DOUBLE, mem_space, file_space, H5P_DEFAULT, buffer_.data());
  H5Sclose(mem_space);
  H5Sclose(file_space);
  check(status, path_, "write rows");
  rows_ += n;
  buffer_.clear();
}

void Hdf5Writer::flush() {
  write_buffer();
  if (file_ >= 0) check(H5Fflush(file_, H5F_SCOPE_GLOBAL), path_, "flush");
}

void Hdf5Writer::close() {
  if (file_ < 0) return;
  try {
    write_buffer();
  } catch (...) {
    if (dataset_ >= 0) H5Dclose(dataset_);
    H5Fclose(file_);
    dataset_ = file_ = -1;
    throw;
  }
  if (dataset_ >= 0) H5Dclose(dataset_);
  const herr_t status = H5Fclose(file_);
  dataset_ = file_ = -1;
  check(status, path_, "close the file");
}

}  // namespace talus::app
