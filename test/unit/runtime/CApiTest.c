/*===- CApiTest.c - The runtime headers and static library from C99 ------===*\
|*                                                                            *|
|* Compiled with -std=c99 -Wall -Wextra -pedantic -Werror and linked with the *|
|* C compiler against libtic_runtime.a: checks that the headers are strict    *|
|* C99 and that the static library needs no C++ run-time library. Also a      *|
|* smoke test of the ABI as generated code uses it.                           *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include <tic/rt.h>
#include <tic/runtime.h>

#include <stdio.h>
#include <string.h>

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      return 1;                                                                \
    }                                                                          \
  } while (0)

static const char *const field_names[] = {"u"};

typedef struct {
  int hits[1000];
  tic_rt_context *ctx;
} closure_t;

static void body(void *closure, int64_t begin, int64_t end, int32_t thread_id) {
  closure_t *c = (closure_t *)closure;
  int64_t i;
  for (i = begin; i < end; ++i)
    c->hits[i]++;
  (void)tic_rt_rand_f32(c->ctx, thread_id);
}

static tc_status grad(tic_rt_context *ctx, const void *args) {
  (void)ctx;
  (void)args;
  return TC_OK;
}

int main(void) {
  tic_rt_module_desc desc;
  tc_options opts;
  tic_rt_context *ctx = NULL;
  static closure_t cl;
  int i;
  tc_ndarray arr;
  float data[4];

  desc.abi_version = TIC_RT_ABI_VERSION;
  desc.name = "cmod";
  desc.root_size = 4096;
  desc.root_align = 0;
  desc.num_fields = 1;
  desc.field_names = field_names;
  desc.field_bytes = NULL;
  desc.num_pools = 0;
  desc.pools = NULL;

  tc_options_init(&opts);
  opts.num_threads = 3;
  opts.seed = 42;
  CHECK(tic_rt_context_create(&opts, &desc, &ctx) == TC_OK);
  CHECK(tic_rt_num_threads(ctx) == 3);
  CHECK(((const unsigned char *)tic_rt_root(ctx))[4095] == 0);

  memset(&cl, 0, sizeof(cl));
  cl.ctx = ctx;
  tic_rt_parallel_for(ctx, 0, 1000, 0, body, &cl);
  for (i = 0; i < 1000; ++i)
    CHECK(cl.hits[i] == 1);

  memset(&arr, 0, sizeof(arr));
  arr.data = data;
  arr.ndim = 1;
  arr.shape[0] = 4;
  arr.dtype = TC_DTYPE_F32;
  CHECK(tic_rt_check_ndarray(ctx, &arr, 1, TC_DTYPE_F32, "a") == TC_OK);
  CHECK(tic_rt_check_ndarray(ctx, &arr, 2, TC_DTYPE_F32, "a") ==
        TC_ERR_INVALID_ARGUMENT);
  CHECK(strstr(tic_rt_last_error(ctx), "'a'") != NULL);

  CHECK(tic_rt_tape_begin(ctx) == TC_OK);
  CHECK(tic_rt_tape_record(ctx, grad, &opts, sizeof(opts)) == TC_OK);
  CHECK(tic_rt_tape_end(ctx) == TC_OK);
  CHECK(tic_rt_tape_replay_reverse(ctx) == TC_OK);

  CHECK(tic_rt_fail(ctx, TC_ERR_INTERNAL, "code %d", 7) == TC_ERR_INTERNAL);
  CHECK(strcmp(tic_rt_last_error(ctx), "code 7") == 0);
  CHECK(strcmp(tc_status_string(TC_OK), "ok") == 0);
  CHECK(tc_dtype_size(TC_DTYPE_F64) == 8);
  tic_rt_print(ctx, "c99 smoke test ok, runtime %s", tc_runtime_version());
  tic_rt_context_destroy(ctx);
  return 0;
}
