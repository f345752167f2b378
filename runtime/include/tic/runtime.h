/*===- tic/runtime.h - Public C API of libtic_runtime ------------*- C -*-===*\
|*                                                                            *|
|* The user-facing part of the tic runtime: status codes, context options,    *|
|* external arrays (ndarrays) and element types. Every header that `tic`      *|
|* generates for a module includes this file; the per-module entry points     *|
|* (`MODULE_create`, `MODULE_KERNEL`, ...) are declared in that header.       *|
|*                                                                            *|
|* Valid C99 and C++ (declarations have C linkage). See docs/c-api.md.        *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TIC_RUNTIME_H
#define TIC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

/* Version of the runtime library. Bumping MAJOR breaks source or binary
 * compatibility of the public API; MINOR adds to it. */
#define TIC_RUNTIME_VERSION_MAJOR 0
#define TIC_RUNTIME_VERSION_MINOR 1
#define TIC_RUNTIME_VERSION_PATCH 0

/* Symbol visibility: the runtime is built with hidden visibility; only the
 * declarations marked TC_API are exported from libtic_runtime.so. */
#if defined(_WIN32)
#define TC_API
#elif defined(__GNUC__) || defined(__clang__)
#define TC_API __attribute__((visibility("default")))
#else
#define TC_API
#endif

/* printf-style format checking for the variadic functions. */
#if defined(__GNUC__) || defined(__clang__)
#define TC_PRINTF_FORMAT(fmt_index, first_arg)                                 \
  __attribute__((format(printf, fmt_index, first_arg)))
#else
#define TC_PRINTF_FORMAT(fmt_index, first_arg)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*===--------------------------------------------------------------------===*/
/* Status codes                                                             */
/*===--------------------------------------------------------------------===*/

/* Every entry point returns a tc_status. TC_OK is 0; every other value names
 * a failure, and MODULE_last_error(ctx) holds a message explaining it. */
typedef enum tc_status {
  TC_OK = 0,
  TC_ERR_INVALID_ARGUMENT, /* bad argument: null pointer, rank/dtype mismatch */
  TC_ERR_OUT_OF_MEMORY,    /* host or device allocation failed */
  TC_ERR_NO_DEVICE,        /* the requested arch is not available */
  TC_ERR_DEVICE,           /* a CUDA call failed */
  TC_ERR_OUT_OF_BOUNDS,    /* index outside a field (debug builds) */
  TC_ERR_ASSERTION,        /* assert() in a kernel failed (debug builds) */
  TC_ERR_UNSUPPORTED,      /* feature not supported by this runtime/arch */
  TC_ERR_INTERNAL          /* bug in tic or its runtime */
} tc_status;

/* A short constant description of `status` ("ok", "invalid argument", ...);
 * never NULL, "unknown status" for values outside the enum. */
TC_API const char *tc_status_string(tc_status status);

/*===--------------------------------------------------------------------===*/
/* Context options                                                          */
/*===--------------------------------------------------------------------===*/

typedef enum tc_arch {
  TC_ARCH_CPU = 0, /* host CPU, the runtime's threads */
  TC_ARCH_CUDA,    /* NVIDIA GPU; TC_ERR_NO_DEVICE when none is usable */
  TC_ARCH_ANY      /* CUDA when a GPU is present, otherwise CPU */
} tc_arch;

typedef struct tc_options {
  tc_arch arch;                 /* default TC_ARCH_CPU */
  int32_t num_threads;          /* CPU threads; 0 = all cores (default) */
  uint64_t seed;                /* seed of random(); default 0 */
  int32_t debug;                /* nonzero: runtime debug checks; default 0 */
  uint64_t device_memory_bytes; /* device memory budget; 0 = runtime chooses */
} tc_options;

/* Fills `opts` with the defaults: CPU (TC_ARCH_CUDA when the environment
 * variable TIC_ARCH is "cuda", TC_ARCH_ANY when it is "any"), all cores,
 * seed 0, no debug checks, device memory chosen by the runtime. NULL is
 * ignored. */
TC_API void tc_options_init(tc_options *opts);

/* Memory of a module instance (MODULE_memory_stats): the root buffer, and
 * the pools holding the cells of pointer SNodes, which reserve address
 * space up front and commit memory as cells are activated. */
typedef struct tc_memory_stats {
  uint64_t reserved_bytes;  /* address space reserved */
  uint64_t committed_bytes; /* of which backed by memory (read-write) */
  uint64_t live_bytes;      /* bytes of the cells active now */
  uint64_t live_cells;      /* pointer cells active now (0 for the root) */
} tc_memory_stats;

/*===--------------------------------------------------------------------===*/
/* Element types and external arrays                                        */
/*===--------------------------------------------------------------------===*/

typedef enum tc_dtype {
  TC_DTYPE_I8 = 0,
  TC_DTYPE_I16,
  TC_DTYPE_I32,
  TC_DTYPE_I64,
  TC_DTYPE_U8,
  TC_DTYPE_U16,
  TC_DTYPE_U32,
  TC_DTYPE_U64,
  TC_DTYPE_F16,
  TC_DTYPE_F32,
  TC_DTYPE_F64,
  TC_DTYPE_BOOL /* one byte, 0 or 1 */
} tc_dtype;

/* Size in bytes of one element of `dtype`; 0 for values outside the enum. */
TC_API size_t tc_dtype_size(tc_dtype dtype);

/* The .tc spelling of `dtype` ("i32", "f32", "bool", ...); "unknown" for
 * values outside the enum. */
TC_API const char *tc_dtype_name(tc_dtype dtype);

#define TC_NDARRAY_MAX_DIMS 8

/* An external array passed to a kernel's `ndarray<T, D>` parameter: dense,
 * row-major (C order), `shape[0..ndim)` elements of `dtype` at `data`.
 * Vector/matrix element types add their component axes last. The caller
 * keeps ownership of `data`. */
typedef struct tc_ndarray {
  void *data;
  int32_t ndim;
  int64_t shape[TC_NDARRAY_MAX_DIMS];
  tc_dtype dtype;
} tc_ndarray;

/*===--------------------------------------------------------------------===*/
/* Version                                                                  */
/*===--------------------------------------------------------------------===*/

/* "MAJOR.MINOR.PATCH" of the linked runtime library. */
TC_API const char *tc_runtime_version(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TIC_RUNTIME_H */
