#pragma once
// Creating the HDF5 files Talus writes (time series, restart archives). The default (1.6-compatible) object
// header keeps attributes in one 64 KiB message, so a scene with a few hundred bodies (13 columns each: 576
// spheres make 7 488 column names, ~90 KiB) could not label its time series. Files are therefore created with
// the 1.8 format as the lowest bound, where an attribute that does not fit is kept in dense storage. h5py and
// every HDF5 since 1.8 (2008) read them.
#include <hdf5.h>

#include <filesystem>

namespace talus::app {

// H5Fcreate(file, H5F_ACC_TRUNC) with that format bound; a negative id when HDF5 refuses (as H5Fcreate).
hid_t create_hdf5_file(const std::filesystem::path& file);

}  // namespace talus::app
