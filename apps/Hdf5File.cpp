#include "apps/Hdf5File.hpp"

namespace talus::app {

hid_t create_hdf5_file(const std::filesystem::path& file) {
  const hid_t access = H5Pcreate(H5P_FILE_ACCESS);
  if (access < 0) return access;
  H5Pset_libver_bounds(access, H5F_LIBVER_V18, H5F_LIBVER_LATEST);
  const hid_t id = H5Fcreate(file.string().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access);
  H5Pclose(access);
  return id;
}

}  // namespace talus::app
