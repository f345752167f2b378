# Installs the tic package into a scratch prefix and uses it like a user:
#  1. the expected files are installed;
#  2. pkg-config --cflags --libs tic gives -I<prefix>/include -L<prefix>/lib
#     -ltic_runtime, and a C program builds and runs with those flags, both
#     against the shared and the static library;
#  3. a C-only CMake project uses find_package(tic) + tic_add_module (with a
#     stand-in compiler) against tic::runtime and tic::runtime_static.
# Run by ctest as: cmake -DTIC_BUILD_DIR=... -DTIC_TEST_DIR=...
#   -DTIC_CONSUMER_SOURCE=... -DTIC_PKG_CONFIG=... -DTIC_C_COMPILER=...
#   -DTIC_GENERATOR=... -P PackageTest.cmake


# A sanitizer build (TIC_SANITIZE) installs an instrumented runtime: the
# consumers must link with the same sanitizers.
set(sanitize_flags "")
if(TIC_SANITIZE)
  set(ENV{LDFLAGS} "-fsanitize=${TIC_SANITIZE}")
  set(sanitize_flags "-fsanitize=${TIC_SANITIZE}")
endif()

cmake_minimum_required(VERSION 3.20)

function(run)
  execute_process(COMMAND ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${cmd}\n${out}\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

set(prefix "${TIC_TEST_DIR}/prefix")
file(REMOVE_RECURSE "${TIC_TEST_DIR}")
file(MAKE_DIRECTORY "${TIC_TEST_DIR}")

# 1. Install.
run("${CMAKE_COMMAND}" --install "${TIC_BUILD_DIR}" --prefix "${prefix}")
# A runtime-only configuration uses lib/; GNUInstallDirs may pick lib64 or a
# multiarch directory elsewhere.
file(GLOB config "${prefix}/lib*/cmake/tic/ticConfig.cmake"
  "${prefix}/lib/*/cmake/tic/ticConfig.cmake")
list(GET config 0 config)
get_filename_component(libdir "${config}/../../.." ABSOLUTE)
foreach(f
    "${prefix}/include/tic/runtime.h" "${prefix}/include/tic/rt.h"
    "${libdir}/libtic_runtime.a" "${libdir}/libtic_runtime.so"
    "${libdir}/cmake/tic/ticConfig.cmake"
    "${libdir}/cmake/tic/ticConfigVersion.cmake"
    "${libdir}/cmake/tic/ticTargets.cmake"
    "${libdir}/cmake/tic/TicModule.cmake"
    "${libdir}/pkgconfig/tic.pc")
  if(NOT EXISTS "${f}")
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
message(STATUS "installed into ${prefix}")

# 2. pkg-config.
if(TIC_PKG_CONFIG)
  set(pc "${CMAKE_COMMAND}" -E env "PKG_CONFIG_PATH=${libdir}/pkgconfig"
    "${TIC_PKG_CONFIG}")
  run(${pc} --cflags --libs tic)
  string(STRIP "${run_output}" flags)
  set(expected "-I${prefix}/include -L${libdir} -ltic_runtime")
  if(NOT flags STREQUAL expected)
    message(FATAL_ERROR "pkg-config --cflags --libs tic gave\n  '${flags}'\n"
      "expected\n  '${expected}'")
  endif()
  run(${pc} --static --libs tic)
  string(STRIP "${run_output}" static_flags)
  if(NOT static_flags MATCHES "-ltic_runtime .*-l")
    message(FATAL_ERROR "pkg-config --static lacks Libs.private: ${static_flags}")
  endif()
  message(STATUS "pkg-config: ${flags}; --static: ${static_flags}")

  get_filename_component(capi "${TIC_CONSUMER_SOURCE}/../CApiTest.c" ABSOLUTE)
  separate_arguments(flag_list UNIX_COMMAND "${flags}")
  run("${TIC_C_COMPILER}" ${sanitize_flags} -std=c99 "${capi}" ${flag_list}
    "-Wl,-rpath,${libdir}" -o "${TIC_TEST_DIR}/capi_shared")
  run("${TIC_TEST_DIR}/capi_shared")
  # Static: the archive itself plus Libs.private.
  string(REPLACE "-ltic_runtime" "${libdir}/libtic_runtime.a" static_flags
    "${static_flags}")
  separate_arguments(static_list UNIX_COMMAND "${static_flags}")
  run("${TIC_C_COMPILER}" ${sanitize_flags} -std=c99 "${capi}" "-I${prefix}/include"
    ${static_list} -o "${TIC_TEST_DIR}/capi_static")
  run("${TIC_TEST_DIR}/capi_static")
  message(STATUS "pkg-config builds (shared and static) run")
endif()

# 3. CMake consumer with tic_add_module (a copy, so the test may touch it).
file(COPY "${TIC_CONSUMER_SOURCE}/" DESTINATION "${TIC_TEST_DIR}/consumer-src")
set(consumer_src "${TIC_TEST_DIR}/consumer-src")
set(TIC_C_COMPILER "${TIC_C_COMPILER}")
configure_file("${TIC_CONSUMER_SOURCE}/fake_tic.sh.in"
  "${TIC_TEST_DIR}/bin/fake_tic" @ONLY
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
  GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
run("${CMAKE_COMMAND}" -S "${consumer_src}" -B "${TIC_TEST_DIR}/consumer"
  -G "${TIC_GENERATOR}" "-DCMAKE_PREFIX_PATH=${prefix}"
  "-DCMAKE_C_COMPILER=${TIC_C_COMPILER}"
  "-DTIC_EXECUTABLE=${TIC_TEST_DIR}/bin/fake_tic")
run("${CMAKE_COMMAND}" --build "${TIC_TEST_DIR}/consumer")

run("${TIC_TEST_DIR}/consumer/demo_shared")
if(NOT run_output STREQUAL "answer=42 targets=host; sum=499500\n")
  message(FATAL_ERROR "demo_shared printed '${run_output}'")
endif()
run("${TIC_TEST_DIR}/consumer/demo_static")
if(NOT run_output STREQUAL "answer=7 targets=host;cuda; sum=499500\n")
  message(FATAL_ERROR "demo_static printed '${run_output}'")
endif()
# The static program must not load the shared runtime.
run(readelf -d "${TIC_TEST_DIR}/consumer/demo_static")
if(run_output MATCHES "libtic_runtime")
  message(FATAL_ERROR "demo_static depends on libtic_runtime.so")
endif()

# A no-op rebuild must not re-run tic; touching the .tc file must.
run("${CMAKE_COMMAND}" --build "${TIC_TEST_DIR}/consumer")
if(run_output MATCHES "Compiling tic module")
  message(FATAL_ERROR "no-op rebuild re-ran tic:\n${run_output}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -E sleep 1)
file(TOUCH "${consumer_src}/demo.tc")
run("${CMAKE_COMMAND}" --build "${TIC_TEST_DIR}/consumer")
if(NOT run_output MATCHES "Compiling tic module demo.tc")
  message(FATAL_ERROR "changing demo.tc did not re-run tic:\n${run_output}")
endif()
# tic's dependency file (-MD -MF, DEPFILE): a file that only the depfile
# names (the fake tic reports demo.inc as included by demo.tc) re-runs tic.
if(TIC_GENERATOR MATCHES "Ninja|Makefiles")
  run("${CMAKE_COMMAND}" --build "${TIC_TEST_DIR}/consumer")
  if(run_output MATCHES "Compiling tic module")
    message(FATAL_ERROR "no-op rebuild re-ran tic:\n${run_output}")
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" -E sleep 1)
  file(TOUCH "${consumer_src}/demo.inc")
  run("${CMAKE_COMMAND}" --build "${TIC_TEST_DIR}/consumer")
  if(NOT run_output MATCHES "Compiling tic module demo.tc")
    message(FATAL_ERROR "changing demo.inc (named only by tic's dependency "
      "file) did not re-run tic:\n${run_output}")
  endif()
endif()
message(STATUS "find_package(tic) + tic_add_module consumer builds and runs")
