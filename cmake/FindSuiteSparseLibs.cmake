# Debian's SuiteSparse 5 ships headers and libraries but no CMake config files.
# Defines SuiteSparse::cholmod, SuiteSparse::umfpack, SuiteSparse::klu (imported targets).
find_path(SuiteSparse_INCLUDE_DIR cholmod.h PATH_SUFFIXES suitesparse)
set(_ss_targets)
foreach(_lib cholmod umfpack klu amd colamd camd ccolamd btf suitesparseconfig)
  find_library(SuiteSparse_${_lib}_LIBRARY ${_lib})
  if(SuiteSparse_${_lib}_LIBRARY AND NOT TARGET SuiteSparse::${_lib})
    add_library(SuiteSparse::${_lib} UNKNOWN IMPORTED)
    set_target_properties(SuiteSparse::${_lib} PROPERTIES
      IMPORTED_LOCATION "${SuiteSparse_${_lib}_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${SuiteSparse_INCLUDE_DIR}")
  endif()
endforeach()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(SuiteSparseLibs REQUIRED_VARS
  SuiteSparse_INCLUDE_DIR SuiteSparse_cholmod_LIBRARY SuiteSparse_umfpack_LIBRARY SuiteSparse_klu_LIBRARY)
