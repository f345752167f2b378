//===- Status.cpp - Status codes, options, dtypes, version ----------------===//
//
// The small, context-free part of the public API (tic/runtime.h).
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include "tic/runtime.h"
#include <cstdlib>
#include <cstring>

#define TIC_STRINGIFY_IMPL(x) #x
#define TIC_STRINGIFY(x) TIC_STRINGIFY_IMPL(x)

// C callers may pass any int as an enum: the switches read the raw value
// (loading an out-of-range value as a C++ enum is undefined behaviour).
using tic::rt::rawEnumValue;

extern "C" {

const char *tc_status_string(tc_status status) {
  switch (rawEnumValue(status)) {
  case TC_OK:
    return "ok";
  case TC_ERR_INVALID_ARGUMENT:
    return "invalid argument";
  case TC_ERR_OUT_OF_MEMORY:
    return "out of memory";
  case TC_ERR_NO_DEVICE:
    return "no device";
  case TC_ERR_DEVICE:
    return "device error";
  case TC_ERR_OUT_OF_BOUNDS:
    return "index out of bounds";
  case TC_ERR_ASSERTION:
    return "assertion failed";
  case TC_ERR_UNSUPPORTED:
    return "unsupported";
  case TC_ERR_INTERNAL:
    return "internal error";
  }
  return "unknown status";
}

void tc_options_init(tc_options *opts) {
  if (!opts)
    return;
  // TIC_ARCH=cpu|cuda|any changes the default arch (run a program built
  // with --target=host,cuda on the GPU without editing it).
  opts->arch = TC_ARCH_CPU;
  if (const char *a = std::getenv("TIC_ARCH")) {
    if (std::strcmp(a, "cuda") == 0)
      opts->arch = TC_ARCH_CUDA;
    else if (std::strcmp(a, "any") == 0)
      opts->arch = TC_ARCH_ANY;
  }
  opts->num_threads = 0;
  opts->seed = 0;
  opts->debug = 0;
  opts->device_memory_bytes = 0;
}

size_t tc_dtype_size(tc_dtype dtype) {
  switch (rawEnumValue(dtype)) {
  case TC_DTYPE_I8:
  case TC_DTYPE_U8:
  case TC_DTYPE_BOOL:
    return 1;
  case TC_DTYPE_I16:
  case TC_DTYPE_U16:
  case TC_DTYPE_F16:
    return 2;
  case TC_DTYPE_I32:
  case TC_DTYPE_U32:
  case TC_DTYPE_F32:
    return 4;
  case TC_DTYPE_I64:
  case TC_DTYPE_U64:
  case TC_DTYPE_F64:
    return 8;
  }
  return 0;
}

const char *tc_dtype_name(tc_dtype dtype) {
  switch (rawEnumValue(dtype)) {
  case TC_DTYPE_I8:
    return "i8";
  case TC_DTYPE_I16:
    return "i16";
  case TC_DTYPE_I32:
    return "i32";
  case TC_DTYPE_I64:
    return "i64";
  case TC_DTYPE_U8:
    return "u8";
  case TC_DTYPE_U16:
    return "u16";
  case TC_DTYPE_U32:
    return "u32";
  case TC_DTYPE_U64:
    return "u64";
  case TC_DTYPE_F16:
    return "f16";
  case TC_DTYPE_F32:
    return "f32";
  case TC_DTYPE_F64:
    return "f64";
  case TC_DTYPE_BOOL:
    return "bool";
  }
  return "unknown";
}

const char *tc_runtime_version(void) {
  return TIC_STRINGIFY(TIC_RUNTIME_VERSION_MAJOR) "." TIC_STRINGIFY(
      TIC_RUNTIME_VERSION_MINOR) "." TIC_STRINGIFY(TIC_RUNTIME_VERSION_PATCH);
}

} // extern "C"
