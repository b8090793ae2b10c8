# cmake --install: the shim as a system library (libdimmnet1.so.1 and .a,
# dn.h with fw_types.h, dimmnet1.pc, find_package(dimmnet1)), the tools, their man pages and
# the library's, and what the tools run: the board's QEMU and the switch in
# libexec/dimmnet1, the firmware images and boot loader in share/dimmnet1.
include(CMakePackageConfigHelpers)

install(TARGETS dimmnet1_shared dimmnet1 EXPORT dimmnet1Targets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/host-shim/include/dimmnet1/dn.h
              ${PROJECT_SOURCE_DIR}/include/dimmnet1/fw_types.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/dimmnet1)

# CMake: find_package(dimmnet1) gives dimmnet1::dimmnet1 (shared) and
# dimmnet1::dimmnet1_static.
set(cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/dimmnet1)
install(EXPORT dimmnet1Targets NAMESPACE dimmnet1:: DESTINATION ${cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/dimmnet1Config.cmake.in
  ${CMAKE_BINARY_DIR}/dimmnet1Config.cmake INSTALL_DESTINATION ${cmake_dir})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/dimmnet1ConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/dimmnet1Config.cmake
  ${CMAKE_BINARY_DIR}/dimmnet1ConfigVersion.cmake DESTINATION ${cmake_dir})

# pkg-config, relocatable: the prefix is found from the .pc file's place,
# so `cmake --install --prefix DIR` anywhere gives a working file.
file(RELATIVE_PATH DN1_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
configure_file(${PROJECT_SOURCE_DIR}/cmake/dimmnet1.pc.in
  ${CMAKE_BINARY_DIR}/dimmnet1.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/dimmnet1.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# Tools, and what they run.
set(libexec ${CMAKE_INSTALL_LIBEXECDIR}/dimmnet1)
install(TARGETS dimmnet-flash dnctl RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/dimmnet-cluster
  ${PROJECT_SOURCE_DIR}/tools/dimmnet-soak ${PROJECT_SOURCE_DIR}/tools/dimmnet-mpi-rank
  ${PROJECT_SOURCE_DIR}/tools/dimmnet-mpi-host
  DESTINATION ${CMAKE_INSTALL_BINDIR})
# The libfabric provider, where the installed launcher's --mpi looks (prov/
# beside the board's QEMU); FI_PROVIDER_PATH=PREFIX/libexec/dimmnet1/prov
# for any other libfabric program.
if(TARGET dimmnet-fi)
  install(TARGETS dimmnet-fi LIBRARY DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/dimmnet1/prov)
endif()
install(TARGETS dimmnet-soak-node dimmnet-soak-barrier-node dimmnet1-switch
  RUNTIME DESTINATION ${libexec})
install(PROGRAMS ${DN1_QEMU_BUILT} DESTINATION ${libexec})
# The measured host instructions the shim and the provider charge.
install(FILES ${PROJECT_SOURCE_DIR}/host-shim/host-charges.tab
  DESTINATION ${CMAKE_INSTALL_DATADIR}/dimmnet1)
foreach(cpu ${DN1_FW_CPUS})
  install(FILES ${CMAKE_BINARY_DIR}/firmware-${cpu}/martini-fw.img
    ${CMAKE_BINARY_DIR}/firmware-${cpu}/martini-fw.size
    ${CMAKE_BINARY_DIR}/firmware-${cpu}/dimmnet1-boot.bin
    DESTINATION ${CMAKE_INSTALL_DATADIR}/dimmnet1/firmware/${cpu})
endforeach()

# Man pages: the tools', the library's, and one name per call (a .so link
# to dimmnet1(3), so that `man dn_msg_send` works).
install(FILES ${PROJECT_SOURCE_DIR}/man/dimmnet-cluster.1
  ${PROJECT_SOURCE_DIR}/man/dimmnet-flash.1 ${PROJECT_SOURCE_DIR}/man/dnctl.1
  ${PROJECT_SOURCE_DIR}/man/dimmnet-soak.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${PROJECT_SOURCE_DIR}/man/dimmnet1.3
  DESTINATION ${CMAKE_INSTALL_MANDIR}/man3)
set(man3_links ${CMAKE_BINARY_DIR}/man3-links)
file(REMOVE_RECURSE ${man3_links})
foreach(fn ${DN1_SHIM_API})
  file(WRITE ${man3_links}/${fn}.3 ".so man3/dimmnet1.3\n")
endforeach()
install(DIRECTORY ${man3_links}/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man3)
