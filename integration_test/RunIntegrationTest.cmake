# Runs one integration test (see CMakeLists.txt): compile the .tc module with
# tic, compile and link the C driver against the generated header, the object
# and the static runtime, run it, check its exit status (and optionally its
# output). Invoked by ctest as
#   cmake -DTIC=... -DTC=... -DDRIVER=... -DNAME=... -DWORK_DIR=...
#         -DTIC_ARGS=a|b -DCC=... -DCFLAGS=... -DRUNTIME_INCLUDE=...
#         -DRUNTIME_LIB=... -DLINK_LIBS=... -DCOMMON_DIR=...
#         [-DEXPECT_STDOUT=regex] -P RunIntegrationTest.cmake
#
# Prints "tic-integration: FAILED" on every failure (there is no skip: a tic
# that cannot write objects fails every test).
cmake_minimum_required(VERSION 3.20)

function(fail msg)
  message("tic-integration: FAILED: ${msg}")
  message(FATAL_ERROR "${NAME} failed")
endfunction()

function(run_step what)
  execute_process(COMMAND ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    fail("${what} (exit ${rc}): ${cmd}\n${out}${err}")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

# 1. tic: .tc -> .o + .h (+ .json)
string(REPLACE "|" ";" TIC_ARGS "${TIC_ARGS}")
get_filename_component(stem "${TC}" NAME_WE)
set(obj "${WORK_DIR}/${stem}.o")
set(hdr "${WORK_DIR}/${stem}.h")
if(SKIP_UNSUPPORTED_CUDA)
  # integration.host_cuda.*: a module --target=cuda rejects is a skip.
  execute_process(COMMAND "${TIC}" "${TC}" -o "${obj}" --header "${hdr}" ${TIC_ARGS}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  # Also when this tic has no CUDA libdevice (no CUDA toolkit when it was
  # built) and the kernels call math functions.
  if(NOT rc EQUAL 0 AND err MATCHES
     "is not supported with --target=cuda yet|none was found when tic was built")
    string(REGEX MATCH "error: [^\n]*" why "${err}")
    message("tic-integration: SKIP: ${why}")
    return()
  elseif(NOT rc EQUAL 0)
    fail("tic (exit ${rc})\n${out}${err}")
  endif()
else()
  run_step("tic" "${TIC}" "${TC}" -o "${obj}" --header "${hdr}" ${TIC_ARGS})
endif()
foreach(f "${obj}" "${hdr}")
  if(NOT EXISTS "${f}")
    fail("tic did not write ${f}")
  endif()
endforeach()

# 2. the C driver, strict C99, against the header and runtime/include
separate_arguments(cflags UNIX_COMMAND "${CFLAGS}")
separate_arguments(link_libs UNIX_COMMAND "${LINK_LIBS}")
set(exe "${WORK_DIR}/${NAME}")
run_step("compiling the driver" "${CC}" ${cflags} -I "${WORK_DIR}"
  -I "${RUNTIME_INCLUDE}" -I "${COMMON_DIR}" -c "${DRIVER}" -o "${exe}.driver.o")
# 3. link with the object and the static runtime (+ pthreads)
run_step("linking" "${CC}" "${exe}.driver.o" "${obj}" "${RUNTIME_LIB}"
  ${link_libs} -o "${exe}")

# 4. run
execute_process(COMMAND "${exe}" WORKING_DIRECTORY "${WORK_DIR}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(err)
  message("${err}")
endif()
if(NOT rc EQUAL 0)
  fail("${NAME} exited with ${rc}")
endif()
if(DEFINED EXPECT_STDOUT AND NOT out MATCHES "${EXPECT_STDOUT}")
  fail("the output does not match '${EXPECT_STDOUT}'")
endif()
# 5. integration.host_cuda.*: once more as if on a GPU, through a stand-in
# driver (FAKE_CUDA_DIR/libcuda.so.1, fake_cuda/fake_cuda.c) whose device
# memory host code cannot touch and whose launches do nothing. The results
# are meaningless (the program's own checks may fail), but host code that
# dereferences device memory (the root buffer, a pool's state) crashes.
# Under the sanitizers (scripts/sanitize.sh): no leak checks (a program
# whose own checks fail returns early, its context not destroyed), and the
# undefined-behaviour reports of the driver's arithmetic on meaningless
# results stay in WORK_DIR; memory errors are reported as usual.
if(DEFINED FAKE_CUDA_DIR)
  set(asan "$ENV{ASAN_OPTIONS}:detect_leaks=0")
  set(ubsan "$ENV{UBSAN_OPTIONS}:halt_on_error=0:log_path=${WORK_DIR}/fake-cuda-ubsan")
  execute_process(
    COMMAND env TIC_ARCH=cuda "LD_LIBRARY_PATH=${FAKE_CUDA_DIR}"
            "ASAN_OPTIONS=${asan}" "UBSAN_OPTIONS=${ubsan}" "${exe}"
    WORKING_DIRECTORY "${WORK_DIR}" TIMEOUT 120
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc MATCHES "^[0-9]+$" OR rc GREATER 125)
    fail("${NAME} crashed (${rc}) on the stand-in CUDA driver: host code "
         "touched device memory?\n${err}")
  endif()
endif()
message("tic-integration: ${NAME} passed")
