# Build conventions shared by every folder.
#
#   llmconform_add_library(<name> SOURCES ... [DEPS ...] [PRIVATE_DEPS ...])
#     A static library llmconform_<name> with the alias llmconform::<name>,
#     its include root the repository root (so code includes
#     "protocols/wire/sse_parser.h"; installed: <prefix>/include/llmconform),
#     C++23, warnings and sanitizers applied. It is recorded in the global
#     property LLMCONFORM_LIBRARIES, which cmake/LlmconformInstall.cmake
#     installs and exports as llmconform::<name> (find_package(llmconform)):
#     a new library needs nothing more to be packaged.
#
#   llmconform_add_test(<name> SOURCES ... [DEPS ...] [PROPERTIES ...])
#     A GoogleTest program registered with CTest (gtest_discover_tests), linked
#     with gtest_main, rapidcheck and its GoogleTest bridge; PROPERTIES are
#     extra test properties for every discovered test (TIMEOUT is 300).
#
#   llmconform_add_bench(<name> SOURCES ... [DEPS ...])
#     A Google Benchmark program.

add_library(llmconform_warnings INTERFACE)
target_compile_options(llmconform_warnings INTERFACE -Wall -Wextra -Wpedantic -Wno-missing-field-initializers
                                                     $<$<BOOL:${LLMCONFORM_WERROR}>:-Werror>)
# Clang warns inside Debian 12's libstdc++ (12), whose std::stable_sort calls
# the deprecated std::get_temporary_buffer; GCC builds keep the warning.
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  target_compile_options(llmconform_warnings INTERFACE -Wno-deprecated-declarations)
endif()

add_library(llmconform_options INTERFACE)
target_compile_features(llmconform_options INTERFACE cxx_std_23)
# Every unit compiles with -pthread (re2's pkg-config flags bring it to the
# units that use it), so that every target can use the same precompiled header:
# clang refuses one made with another thread setting.
target_compile_options(llmconform_options INTERFACE -pthread)
if(LLMCONFORM_SANITIZE)
  target_compile_options(llmconform_options INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer
                                                      -fno-sanitize-recover=undefined)
  target_link_options(llmconform_options INTERFACE -fsanitize=address,undefined)
endif()
if(LLMCONFORM_FUZZ)
  # Every library instrumented for libFuzzer's coverage (clang only); the
  # fuzz targets themselves link -fsanitize=fuzzer (fuzz/CMakeLists.txt).
  target_compile_options(llmconform_options INTERFACE -fsanitize=fuzzer-no-link,address,undefined
                                                      -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(llmconform_options INTERFACE -fsanitize=address,undefined)
endif()

# LLVM's linker with Clang: a test program of the ASan build links in a fifth
# of GNU ld's time (docs/building.md). Directory-scoped, so it is not exported
# to projects that find_package(llmconform); without ld.lld, GNU ld links.
option(LLMCONFORM_LLD "Link with ld.lld when the compiler is Clang and ld.lld is found" ON)
if(LLMCONFORM_LLD AND CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  include(CheckLinkerFlag)
  check_linker_flag(CXX -fuse-ld=lld LLMCONFORM_HAVE_LLD)
  if(LLMCONFORM_HAVE_LLD)
    add_link_options(-fuse-ld=lld)
  endif()
endif()

function(_llmconform_apply target)
  target_link_libraries(${target} PRIVATE llmconform_warnings)
  target_link_libraries(${target} PUBLIC llmconform_options)
  if(LLMCONFORM_UNITY)
    # (EVAL: a deferred call's arguments are read when it runs, after this scope)
    cmake_language(EVAL CODE "cmake_language(DEFER CALL _llmconform_unity [[${target}]])")
  endif()
endfunction()

# Unity build: a target's C++ sources compiled in batches of
# LLMCONFORM_UNITY_BATCH, each batch one generated unit that includes them, so
# the templates they share (nlohmann/json, the standard containers,
# GoogleTest, rapidcheck) are instantiated and generated once a batch rather
# than once a file (docs/building.md, "Unity build"). The generated units
# include the sources by their path from the repository root, so that they
# read the same in every clone and ccache serves a second clone (CMake's own
# UNITY_BUILD writes absolute paths). A source with compile properties of its
# own (definitions, options, flags, OBJECT_DEPENDS, SKIP_UNITY_BUILD_INCLUSION
# …), one outside the source tree or inside the build folder (generated), and
# a batch of one compile as they are. The sources of one target share a unit:
# their file-local names must differ. Runs at the end of the target's folder
# (cmake_language(DEFER)), when its sources are all known; a source another
# folder adds later compiles alone.
option(LLMCONFORM_UNITY "Compile each target's sources in batches (a unity build)" ON)
set(LLMCONFORM_UNITY_BATCH 8 CACHE STRING "Sources per unit of the unity build")
if(NOT LLMCONFORM_UNITY_BATCH MATCHES "^[1-9][0-9]*$")
  message(FATAL_ERROR "LLMCONFORM_UNITY_BATCH is \"${LLMCONFORM_UNITY_BATCH}\": a number of sources, 1 or more")
endif()
function(_llmconform_unity target)
  get_target_property(_sources ${target} SOURCES)
  set(_out)    # the target's new sources: the units, and what compiles alone
  set(_batch)  # the sources of the unit being filled, from the repository root
  set(_unit 0)
  foreach(_src IN LISTS _sources ITEMS "")  # the empty item ends the last batch
    set(_member FALSE)
    if(_src MATCHES "\\.cpp$" AND NOT _src MATCHES "\\$<")
      cmake_path(ABSOLUTE_PATH _src BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} NORMALIZE OUTPUT_VARIABLE _abs)
      cmake_path(IS_PREFIX PROJECT_SOURCE_DIR "${_abs}" NORMALIZE _member)
      cmake_path(IS_PREFIX PROJECT_BINARY_DIR "${_abs}" NORMALIZE _generated)
      if(_generated)
        set(_member FALSE)
      endif()
      foreach(_prop COMPILE_DEFINITIONS COMPILE_OPTIONS COMPILE_FLAGS INCLUDE_DIRECTORIES OBJECT_DEPENDS
                    GENERATED SKIP_PRECOMPILE_HEADERS SKIP_UNITY_BUILD_INCLUSION HEADER_FILE_ONLY)
        get_source_file_property(_value ${_src} ${_prop})
        if(_value)
          set(_member FALSE)
        endif()
      endforeach()
    endif()
    if(_member)
      cmake_path(RELATIVE_PATH _abs BASE_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE _rel)
      list(APPEND _batch ${_rel})
    elseif(NOT _src STREQUAL "")
      list(APPEND _out ${_src})
    endif()
    list(LENGTH _batch _n)
    if(_n EQUAL LLMCONFORM_UNITY_BATCH OR (_src STREQUAL "" AND _n GREATER 0))
      if(_n EQUAL 1)  # a batch of one compiles as itself
        list(APPEND _out ${PROJECT_SOURCE_DIR}/${_batch})
      else()
        set(_content "// A unit of ${target}'s unity build (cmake/LlmconformHelpers.cmake).\n")
        foreach(_rel IN LISTS _batch)
          string(APPEND _content "#include \"${_rel}\"\n")
        endforeach()
        set(_file ${CMAKE_CURRENT_BINARY_DIR}/unity/${target}_${_unit}.cpp)
        file(CONFIGURE OUTPUT ${_file} CONTENT "${_content}" @ONLY)
        list(APPEND _out ${_file})
        math(EXPR _unit "${_unit} + 1")
      endif()
      set(_batch)
    endif()
  endforeach()
  set_property(TARGET ${target} PROPERTY SOURCES ${_out})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR})
endfunction()

# Precompiled headers: the third-party and standard headers nearly every unit
# includes. Only with Clang, where CMake also has the header's templates
# instantiated once (-fpch-instantiate-templates) and a unit compiles in about
# half the time; GCC gains a few per cent, so its builds go without
# (docs/building.md). -fno-pch-timestamp lets ccache cache the units.
#
# Two headers are compiled per build, not one per target: every library
# reuses the one of llmconform_pch_library, every test program the one of
# llmconform_pch_test (which adds GoogleTest, GoogleMock and rapidcheck).
# Each owner is compiled with only the definitions its headers depend on
# (fmt's, GoogleTest's); a target that adds definitions of its own (a
# library's version, cpp-httplib's features) may use it, since clang refuses
# a header only when a macro it defines is given another value.
#
# With LLMCONFORM_PCH_CODEGEN (on in the sanitizer build, the one `make test`
# compiles), the test programs' header is also compiled once into an object
# (-fpch-codegen): the inline functions and template instantiations it holds
# are generated there, as weak definitions, instead of again in every test
# unit. That object defines every inline function of the headers, used or
# not, some of which call what no library defines (GoogleTest's char8_t
# printers, libstdc++ internals), so the test programs link with
# --gc-sections, which drops the unused ones before their references are
# resolved. The libraries' header is left alone: the installed libraries
# would carry the object and so its unresolved references to every consumer.
# Off in the optimized builds, whose units would lose the chance to inline
# those functions.
option(LLMCONFORM_PCH "Precompile the common headers (Clang only)" ON)
option(LLMCONFORM_PCH_CODEGEN "Generate the test programs' precompiled header's code once, in an object of its own (Clang)"
       ${LLMCONFORM_SANITIZE})
set(LLMCONFORM_PCH_HEADERS <algorithm> <array> <chrono> <cstdint> <expected> <filesystem> <fstream> <functional>
    <map> <memory> <optional> <set> <span> <sstream> <string> <string_view> <utility> <vector>
    <fmt/format.h> <nlohmann/json.hpp>)
set(LLMCONFORM_TEST_PCH_HEADERS <gtest/gtest.h> <gmock/gmock.h> <rapidcheck.h> <rapidcheck/gtest.h>)
function(_llmconform_pch_owner owner)
  if(TARGET ${owner})
    return()
  endif()
  set(_file ${PROJECT_BINARY_DIR}/generated/${owner}.cpp)
  file(GENERATE OUTPUT ${_file} CONTENT "// The owner of a precompiled header (cmake/LlmconformHelpers.cmake).\n")
  add_library(${owner} STATIC ${_file})
  target_link_libraries(${owner} PRIVATE fmt::fmt nlohmann_json::nlohmann_json ${ARGN})
  _llmconform_apply(${owner})
  set(_headers ${LLMCONFORM_PCH_HEADERS})
  if(ARGN)
    list(APPEND _headers ${LLMCONFORM_TEST_PCH_HEADERS})
  endif()
  target_precompile_headers(${owner} PRIVATE ${_headers})
  target_compile_options(${owner} PRIVATE -Xclang -fno-pch-timestamp)
  if(LLMCONFORM_PCH_CODEGEN AND ARGN)
    target_compile_options(${owner} PRIVATE -fpch-codegen)
    # The header compiled into an object, with the owner's flags (clang reads
    # a .pch input as a precompiled header; -x none undoes CMake's -x c++).
    set(_pch ${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${owner}.dir/cmake_pch.hxx.pch)
    set_source_files_properties(${_pch} PROPERTIES LANGUAGE CXX GENERATED TRUE COMPILE_OPTIONS "-xnone;-Wno-unused-command-line-argument")
    add_library(${owner}_code OBJECT ${_pch})
    target_link_libraries(${owner}_code PRIVATE fmt::fmt nlohmann_json::nlohmann_json ${ARGN})
    _llmconform_apply(${owner}_code)
    add_dependencies(${owner}_code ${owner})
  endif()
endfunction()
function(_llmconform_pch target kind)
  if(LLMCONFORM_PCH AND CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    if(kind STREQUAL "TEST")
      _llmconform_pch_owner(llmconform_pch_test GTest::gtest GTest::gmock rapidcheck)
      target_precompile_headers(${target} REUSE_FROM llmconform_pch_test)
      if(LLMCONFORM_PCH_CODEGEN)
        target_sources(${target} PRIVATE $<TARGET_OBJECTS:llmconform_pch_test_code>)
        target_link_options(${target} PRIVATE -Wl,--gc-sections)
      endif()
    else()
      _llmconform_pch_owner(llmconform_pch_library)
      target_precompile_headers(${target} REUSE_FROM llmconform_pch_library)
    endif()
    target_compile_options(${target} PRIVATE -Xclang -fno-pch-timestamp)
  endif()
endfunction()

function(llmconform_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(llmconform_${name} STATIC ${ARG_SOURCES})
  add_library(llmconform::${name} ALIAS llmconform_${name})
  target_include_directories(llmconform_${name} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
                                                       $<INSTALL_INTERFACE:include/llmconform>)
  target_link_libraries(llmconform_${name} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  set_target_properties(llmconform_${name} PROPERTIES EXPORT_NAME ${name})
  set_property(GLOBAL APPEND PROPERTY LLMCONFORM_LIBRARIES llmconform_${name})
  _llmconform_apply(llmconform_${name})
  _llmconform_pch(llmconform_${name} LIBRARY)
endfunction()

# The paths a test program needs (base/test_paths.h), in one generated file
# rather than in every compile command, so that the commands are the same in
# any clone and ccache serves a second clone (docs/building.md).
function(_llmconform_test_paths)
  if(TARGET llmconform_test_paths)
    return()
  endif()
  set(_file ${PROJECT_BINARY_DIR}/generated/test_paths.cpp)
  file(GENERATE OUTPUT ${_file} CONTENT "#include \"base/test_paths.h\"

namespace llmconform::test_paths {

const char* SourceRoot() { return R\"(${PROJECT_SOURCE_DIR})\"; }
const char* LlmconformBinary() { return R\"($<TARGET_FILE:llmconform>)\"; }
const char* MockllmBinary() { return R\"($<TARGET_FILE:mockllm>)\"; }
const char* SerialRunDir() { return R\"(${PROJECT_BINARY_DIR}/tests/serial-run)\"; }

}  // namespace llmconform::test_paths
")
  add_library(llmconform_test_paths STATIC ${_file})
  target_include_directories(llmconform_test_paths PUBLIC ${PROJECT_SOURCE_DIR})
  _llmconform_apply(llmconform_test_paths)
endfunction()

function(llmconform_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PROPERTIES" ${ARGN})
  if(NOT LLMCONFORM_BUILD_TESTS)
    return()
  endif()
  _llmconform_test_paths()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} llmconform_test_paths GTest::gtest_main GTest::gmock rapidcheck)
  _llmconform_apply(${name})
  _llmconform_pch(${name} TEST)
  include(GoogleTest)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 300 ${ARG_PROPERTIES})
endfunction()

function(llmconform_add_bench name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  if(NOT LLMCONFORM_BUILD_BENCH)
    return()
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} benchmark::benchmark)
  _llmconform_apply(${name})
endfunction()
