# TicModule.cmake - tic_add_module(): compile a .tc module into a target.
#
#   tic_add_module(<target> <file.tc>
#                  [TARGETS host|cuda ...]      # --target for each entry
#                  [OPTIONS <tic flag> ...]     # passed to tic verbatim
#                  [DEFINES <name>=<value> ...] # -D <name>=<value> each
#                  [OUTPUT_DIR <dir>]           # default: see below
#                  [RUNTIME <link target>]      # default: tic::runtime
#                  [DEPENDS <file or target> ...])
#
# Runs, as a custom command that re-runs when the .tc file (or tic) changes:
#   tic <file.tc> -o <dir>/<stem>.o --header <dir>/<stem>.h [-D ...] [--target ...] [OPTIONS]
#       [-MD -MF <dir>/<stem>.d]
# With CMake >= 3.20 and a Ninja or Makefile generator, tic writes a Make
# dependency file that the custom command uses (DEPFILE), so the build also
# follows the files tic reports as inputs.
# then adds <stem>.o (and the header) to <target>'s sources, <dir> to its
# include directories (so sources can `#include "<stem>.h"`) and links
# <target> against the runtime. <dir> defaults to
# ${CMAKE_CURRENT_BINARY_DIR}/tic_modules/<target>, so the same .tc file can
# be compiled for several targets with different DEFINES.
#
# The tic compiler is ${TIC_EXECUTABLE} when set (installed packages find
# <prefix>/bin/tic; in the tic build tree set it to $<TARGET_FILE:tic>), else
# the `tic` target of the current build. After the call the variables
# TIC_MODULE_OBJECT and TIC_MODULE_HEADER hold the generated paths.
#
# Usage in the tic build tree (before install):
#   set(TIC_EXECUTABLE $<TARGET_FILE:tic>)
#   include(${TIC_SOURCE_DIR}/cmake/TicModule.cmake)

include_guard(GLOBAL)

function(tic_add_module target tc_file)
  cmake_parse_arguments(PARSE_ARGV 2 ARG ""
    "OUTPUT_DIR;RUNTIME" "TARGETS;OPTIONS;DEFINES;DEPENDS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR
      "tic_add_module(${target}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "tic_add_module: '${target}' is not a target")
  endif()

  get_filename_component(src "${tc_file}" ABSOLUTE
    BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  get_filename_component(stem "${src}" NAME_WLE)
  if(ARG_OUTPUT_DIR)
    get_filename_component(dir "${ARG_OUTPUT_DIR}" ABSOLUTE
      BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  else()
    set(dir "${CMAKE_CURRENT_BINARY_DIR}/tic_modules/${target}")
  endif()
  set(obj "${dir}/${stem}.o")
  set(hdr "${dir}/${stem}.h")

  # The compiler and what the command depends on.
  set(deps "${src}")
  if(TIC_EXECUTABLE)
    set(tic "${TIC_EXECUTABLE}")
    if(TARGET tic AND "${TIC_EXECUTABLE}" MATCHES "TARGET_FILE:tic>")
      list(APPEND deps tic)
    elseif(EXISTS "${TIC_EXECUTABLE}")
      list(APPEND deps "${TIC_EXECUTABLE}")
    endif()
  elseif(TARGET tic)
    set(tic "$<TARGET_FILE:tic>")
    list(APPEND deps tic)
  else()
    message(FATAL_ERROR "tic_add_module(${target}): the tic compiler was not "
      "found; set TIC_EXECUTABLE to its path")
  endif()
  list(APPEND deps ${ARG_DEPENDS})

  set(args)
  foreach(def IN LISTS ARG_DEFINES)
    if(NOT def MATCHES "^[A-Za-z_][A-Za-z0-9_]*=")
      message(FATAL_ERROR "tic_add_module(${target}): DEFINES entry '${def}' "
        "is not of the form name=value")
    endif()
    list(APPEND args -D "${def}")
  endforeach()
  foreach(tgt IN LISTS ARG_TARGETS)
    if(NOT tgt MATCHES "^(host|cuda)$")
      message(FATAL_ERROR "tic_add_module(${target}): TARGETS entry '${tgt}' "
        "is not host or cuda")
    endif()
  endforeach()
  if(ARG_TARGETS)
    # One --target with the list: host,cuda.
    string(REPLACE ";" "," targets "${ARG_TARGETS}")
    list(APPEND args "--target=${targets}")
  endif()

  # The dependency file: DEPFILE needs CMake 3.20 for the Makefile
  # generators (Ninja had it before); its paths are absolute, so CMP0116
  # (relative paths in Ninja depfiles) makes no difference.
  set(depfile_args)
  if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.20 AND
     CMAKE_GENERATOR MATCHES "Ninja|Makefiles")
    set(dep "${dir}/${stem}.d")
    list(APPEND args -MD -MF "${dep}")
    set(depfile_args DEPFILE "${dep}")
  endif()

  file(RELATIVE_PATH rel_src "${CMAKE_SOURCE_DIR}" "${src}")
  cmake_policy(PUSH)
  if(POLICY CMP0116)
    cmake_policy(SET CMP0116 NEW)
  endif()
  add_custom_command(
    OUTPUT "${obj}" "${hdr}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${dir}"
    COMMAND "${tic}" "${src}" -o "${obj}" --header "${hdr}" ${args} ${ARG_OPTIONS}
    DEPENDS ${deps}
    ${depfile_args}
    COMMENT "Compiling tic module ${rel_src}"
    VERBATIM COMMAND_EXPAND_LISTS)
  cmake_policy(POP)
  set_source_files_properties("${obj}" PROPERTIES
    EXTERNAL_OBJECT TRUE GENERATED TRUE)
  set_source_files_properties("${hdr}" PROPERTIES GENERATED TRUE)
  target_sources(${target} PRIVATE "${obj}" "${hdr}")
  target_include_directories(${target} PRIVATE "${dir}")

  if(ARG_RUNTIME)
    set(runtime ${ARG_RUNTIME})
  else()
    set(runtime tic::runtime)
  endif()
  target_link_libraries(${target} PRIVATE ${runtime})

  set(TIC_MODULE_OBJECT "${obj}" PARENT_SCOPE)
  set(TIC_MODULE_HEADER "${hdr}" PARENT_SCOPE)
endfunction()
