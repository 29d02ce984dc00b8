# find_package(katomic) -> katomic::katomic, an INTERFACE target: the headers
# (header-only) and the threads flag pkg-config's katomic.pc also gives.
# Installed by `make install` in PREFIX/lib/cmake/katomic/; the prefix is
# found from this file's own place, so a DESTDIR or moved install works.
get_filename_component(_katomic_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT EXISTS "${_katomic_prefix}/include/katomic/katomic.h")
  set(katomic_FOUND FALSE)
  set(katomic_NOT_FOUND_MESSAGE "katomic: no include/katomic/katomic.h under ${_katomic_prefix}")
  return()
endif()
include(CMakeFindDependencyMacro)
set(THREADS_PREFER_PTHREAD_FLAG ON)
find_dependency(Threads)
if(NOT TARGET katomic::katomic)
  add_library(katomic::katomic INTERFACE IMPORTED)
  set_target_properties(katomic::katomic PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_katomic_prefix}/include"
    INTERFACE_LINK_LIBRARIES Threads::Threads)
endif()
set(katomic_INCLUDE_DIRS "${_katomic_prefix}/include")
unset(_katomic_prefix)
