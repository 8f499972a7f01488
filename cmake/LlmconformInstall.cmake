# Installing llmconform: the programs, every library llmconform_add_library
# made (global property LLMCONFORM_LIBRARIES) exported as llmconform::<name>
# with its headers, a CMake package (find_package(llmconform CONFIG)), the
# bundled specs and fixtures, the docs, and a Debian package (cpack -G DEB).
#
#   <prefix>/bin/{llmconform,mockllm}
#   <prefix>/include/llmconform/{protocols,mockllm,harness,reports,net,base}/…/*.h
#   <prefix>/lib/lib llmconform_*.a
#   <prefix>/lib/cmake/llmconform/  llmconformConfig.cmake, …ConfigVersion.cmake,
#                                   llmconformTargets.cmake,
#                                   LlmconformConformanceTests.cmake
#   <prefix>/share/llmconform/{specs,fixtures}   (the programs' default --specs)
#   <prefix>/share/doc/llmconform/               README.md, docs/
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(LLMCONFORM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/llmconform)

# The programs are exported too, as llmconform::cli and llmconform::mockllm_cli,
# so that consumers (llmconform_add_conformance_tests) can run them.
set_target_properties(llmconform PROPERTIES EXPORT_NAME cli)
set_target_properties(mockllm PROPERTIES EXPORT_NAME mockllm_cli)

get_property(_llmconform_libraries GLOBAL PROPERTY LLMCONFORM_LIBRARIES)
install(TARGETS ${_llmconform_libraries} llmconform_options llmconform_warnings llmconform mockllm
        EXPORT llmconformTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/llmconform)
install(EXPORT llmconformTargets NAMESPACE llmconform:: DESTINATION ${LLMCONFORM_CMAKE_DIR})

foreach(_dir protocols mockllm harness reports net base)
  if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/${_dir})
    install(DIRECTORY ${PROJECT_SOURCE_DIR}/${_dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/llmconform/${_dir}
            FILES_MATCHING PATTERN "*.h" PATTERN "*_test*" EXCLUDE PATTERN "*test_support*" EXCLUDE
            PATTERN "testdata" EXCLUDE)
  endif()
endforeach()

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/llmconformConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/llmconformConfig.cmake INSTALL_DESTINATION ${LLMCONFORM_CMAKE_DIR}
                              PATH_VARS CMAKE_INSTALL_DATADIR)
# 0.x: a minor version may break the API, so only the same minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/llmconformConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/llmconformConfig.cmake ${PROJECT_BINARY_DIR}/llmconformConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/LlmconformConformanceTests.cmake
        DESTINATION ${LLMCONFORM_CMAKE_DIR})

install(DIRECTORY ${PROJECT_SOURCE_DIR}/specs ${PROJECT_SOURCE_DIR}/fixtures
        DESTINATION ${CMAKE_INSTALL_DATADIR}/llmconform)
# The build tree mirrors that layout (links to the checkout's folders), so a
# program run from build/<preset>/ finds the bundled specs from any folder,
# as an installed one does (harness/data_dir.h).
file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/share/llmconform)
foreach(_data specs fixtures)
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${_data} ${PROJECT_BINARY_DIR}/share/llmconform/${_data} SYMBOLIC)
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/docs)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
endif()

# ---- cpack -G DEB ----
set(CPACK_PACKAGE_NAME llmconform)
set(CPACK_PACKAGE_VENDOR "llmconform")
set(CPACK_PACKAGE_CONTACT "llmconform maintainers <llmconform@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # runtime Depends from the binaries (dpkg-shlibdeps)
# What the headers and the CMake package need to build against the libraries.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS
    "cmake, pkg-config, nlohmann-json3-dev, libcpp-httplib-dev, libyaml-cpp-dev, libpugixml-dev, libcli11-dev, libssl-dev, libboost-dev")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "mockllm (a record/replay mock of OpenAI-compatible Chat Completions) and llmconform (a\n conformance harness with its bundled specs and fixtures), with the C++ libraries, headers\n and CMake package (find_package(llmconform)).")
set(CPACK_GENERATOR DEB)
include(CPack)
