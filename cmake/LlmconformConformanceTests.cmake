# llmconform_add_conformance_tests(TARGET <name> [SPECS <dir>] [FILTER <glob>]
#                                  [ROOT <dir>] [ARGS <arg>...])
#
# Registers one CTest test per scenario of the specs folder SPECS (default:
# the bundled ${llmconform_DATA_DIR}/specs) whose <protocol>/<name> matches
# FILTER (llmconform's --filter glob; default: all). Each test is named
# <name>.<protocol>/<scenario>, carries the label <name>, and runs
#
#   llmconform run --specs SPECS --filter <protocol>/<scenario> -j 1
#                  --out <build>/<name>/<protocol>/<scenario> [--root ROOT] ARGS…
#
# passing when the scenario conforms (exit 0). The scenarios are listed at
# configure time with `llmconform list --json`; re-run CMake after adding one.
# <name> is only a prefix: it need not be a target.
function(llmconform_add_conformance_tests)
  cmake_parse_arguments(ARG "" "TARGET;SPECS;FILTER;ROOT" "ARGS" ${ARGN})
  if(NOT ARG_TARGET)
    message(FATAL_ERROR "llmconform_add_conformance_tests: TARGET <name> is required")
  endif()
  if(NOT ARG_SPECS)
    set(ARG_SPECS ${llmconform_DATA_DIR}/specs)
  endif()
  get_filename_component(ARG_SPECS ${ARG_SPECS} ABSOLUTE)
  if(NOT TARGET llmconform::cli)
    message(FATAL_ERROR "llmconform_add_conformance_tests: llmconform::cli is not known; "
                        "call find_package(llmconform CONFIG REQUIRED) first")
  endif()
  get_target_property(_exe llmconform::cli LOCATION)
  set(_list ${_exe} list --specs ${ARG_SPECS} --json)
  if(ARG_FILTER)
    list(APPEND _list --filter ${ARG_FILTER})
  endif()
  execute_process(COMMAND ${_list} OUTPUT_VARIABLE _json ERROR_VARIABLE _err RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "llmconform_add_conformance_tests: `${_list}` failed (${_rc}): ${_err}")
  endif()
  string(JSON _count LENGTH "${_json}")
  if(_count EQUAL 0)
    message(WARNING "llmconform_add_conformance_tests(${ARG_TARGET}): no scenario in ${ARG_SPECS} matches '${ARG_FILTER}'")
    return()
  endif()
  math(EXPR _last "${_count} - 1")
  foreach(_i RANGE ${_last})
    string(JSON _protocol GET "${_json}" ${_i} protocol)
    string(JSON _name GET "${_json}" ${_i} name)
    set(_id ${_protocol}/${_name})
    set(_cmd llmconform::cli run --specs ${ARG_SPECS} --filter ${_id} -j 1 --out
             ${CMAKE_CURRENT_BINARY_DIR}/${ARG_TARGET}/${_id} --report console --report json --report junit)
    if(ARG_ROOT)
      list(APPEND _cmd --root ${ARG_ROOT})
    endif()
    add_test(NAME ${ARG_TARGET}.${_id} COMMAND ${_cmd} ${ARG_ARGS})
    set_tests_properties(${ARG_TARGET}.${_id} PROPERTIES LABELS ${ARG_TARGET} ENVIRONMENT NO_COLOR=1)
  endforeach()
endfunction()
