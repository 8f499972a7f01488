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

add_library(llmconform_options INTERFACE)
target_compile_features(llmconform_options INTERFACE cxx_std_23)
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

function(_llmconform_apply target)
  target_link_libraries(${target} PRIVATE llmconform_warnings)
  target_link_libraries(${target} PUBLIC llmconform_options)
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
endfunction()

function(llmconform_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PROPERTIES" ${ARGN})
  if(NOT LLMCONFORM_BUILD_TESTS)
    return()
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest_main GTest::gmock rapidcheck)
  target_compile_definitions(${name} PRIVATE LLMCONFORM_SOURCE_ROOT="${PROJECT_SOURCE_DIR}"
                                             LLMCONFORM_BINARY_ROOT="${PROJECT_BINARY_DIR}")
  _llmconform_apply(${name})
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
