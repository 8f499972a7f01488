# cmake -DROOT=<tree> -P CheckLayers.cmake
#
# Fails when an #include "…" crosses the layers the wrong way:
#   base/      includes base/ only (it depends on nothing of ours);
#   net/       includes net/ and base/ only (the HTTP client of every layer above);
#   protocols/ never includes mockllm/, harness/, reports/ or tests/;
#   reports/   includes reports/ and base/ only;
#   mockllm/   never includes harness/, reports/ or tests/.
if(NOT ROOT)
  message(FATAL_ERROR "usage: cmake -DROOT=<source tree> -P CheckLayers.cmake")
endif()

set(_violations "")
foreach(_layer base net protocols reports mockllm)
  file(GLOB_RECURSE _files RELATIVE ${ROOT} ${ROOT}/${_layer}/*.h ${ROOT}/${_layer}/*.cpp)
  foreach(_file IN LISTS _files)
    file(STRINGS ${ROOT}/${_file} _lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(_line IN LISTS _lines)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]*)\".*" "\\1" _inc "${_line}")
      set(_bad FALSE)
      if(_layer STREQUAL "base" AND NOT _inc MATCHES "^base/")
        set(_bad TRUE)
      elseif(_layer STREQUAL "net" AND NOT _inc MATCHES "^(net|base)/")
        set(_bad TRUE)
      elseif(_layer STREQUAL "protocols" AND _inc MATCHES "^(mockllm|harness|reports|tests)/")
        set(_bad TRUE)
      elseif(_layer STREQUAL "reports" AND NOT _inc MATCHES "^(reports|base)/")
        set(_bad TRUE)
      elseif(_layer STREQUAL "mockllm" AND _inc MATCHES "^(harness|reports|tests)/")
        set(_bad TRUE)
      endif()
      if(_bad)
        list(APPEND _violations "${_file}: #include \"${_inc}\" crosses from ${_layer}/ the wrong way")
      endif()
    endforeach()
  endforeach()
endforeach()

if(_violations)
  list(JOIN _violations "\n" _text)
  message(FATAL_ERROR "include layering:\n${_text}")
endif()
message(STATUS "include layering: ok")
