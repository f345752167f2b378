# Device code check of the CUDA target (ctest cuda.ptx): every module given
# is compiled with `tic --target=cuda --emit=ptx` and the PTX assembled with
# ptxas. Run as
#   cmake -DTIC=... -DPTXAS=... -DOUT=dir -DARCHS=sm_80,sm_70 -DFILES=a.tc,b.tc
#         [-DTIC_ARGS=-g] -P CheckPTX.cmake
# A module that uses what the CUDA target does not support yet (tic says
# "is not supported with --target=cuda yet") is listed as skipped, with the
# reason; any other failure fails the test. Without ptxas the PTX is still
# generated and checked for its target line, and ctest reports the test as
# skipped (the "SKIP: " line matches its SKIP_REGULAR_EXPRESSION).
if(NOT PTXAS OR NOT EXISTS "${PTXAS}")
  message("SKIP: no ptxas (CUDA toolkit) found; PTX is generated but not assembled")
  set(ptxas_missing TRUE)
endif()
string(REPLACE "," ";" ARCHS "${ARCHS}")
string(REPLACE "," ";" FILES "${FILES}")
file(MAKE_DIRECTORY "${OUT}")
set(ok 0)
set(skipped 0)
set(failed 0)
foreach(tc IN LISTS FILES)
  get_filename_component(stem "${tc}" NAME_WE)
  foreach(arch IN LISTS ARCHS)
    set(ptx "${OUT}/${stem}.${arch}.ptx")
    execute_process(COMMAND "${TIC}" "${tc}" ${TIC_ARGS} --target=cuda --emit=ptx
                            --cuda-arch=${arch} -o "${ptx}"
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      if(err MATCHES "is not supported with --target=cuda yet")
        string(REGEX MATCH "'[a-z_.]+' op is not supported" why "${err}")
        message("skipped ${stem} (${arch}): ${why} with --target=cuda yet")
        math(EXPR skipped "${skipped} + 1")
      else()
        message("FAILED ${stem} (${arch}): tic exited with ${rc}\n${err}")
        math(EXPR failed "${failed} + 1")
      endif()
      continue()
    endif()
    file(READ "${ptx}" text LIMIT 4096)
    if(NOT text MATCHES "\\.target ${arch}")
      message("FAILED ${stem} (${arch}): the PTX does not target ${arch}")
      math(EXPR failed "${failed} + 1")
      continue()
    endif()
    if(ptxas_missing)
      math(EXPR ok "${ok} + 1")
      continue()
    endif()
    execute_process(COMMAND "${PTXAS}" -arch=${arch} "${ptx}" -o "${OUT}/${stem}.${arch}.cubin"
                    RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message("FAILED ${stem} (${arch}): ptxas rejected the PTX\n${err}")
      math(EXPR failed "${failed} + 1")
    else()
      math(EXPR ok "${ok} + 1")
    endif()
  endforeach()
endforeach()
message("cuda.ptx: ${ok} compiled, ${skipped} skipped, ${failed} failed")
if(failed GREATER 0)
  message(FATAL_ERROR "cuda.ptx: ${failed} module(s) failed")
endif()
if(ptxas_missing)
  # ctest reports the test as skipped (SKIP_REGULAR_EXPRESSION on "SKIP: ").
  return()
endif()
if(ok EQUAL 0)
  message(FATAL_ERROR "cuda.ptx: no module compiled")
endif()
