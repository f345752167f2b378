#include <stdio.h>
#include <stdint.h>
#include <stdarg.h>
#include <string.h>
typedef struct { void *data; int32_t ndim; int64_t shape[8]; int32_t dtype; } tc_ndarray;
static _Alignas(64) unsigned char root[1 << 16];
void *tic_rt_root(void *ctx) { return root; }
void tic_rt_parallel_for(void *ctx, int64_t b, int64_t e, int64_t grain,
                         void (*fn)(void *, int64_t, int64_t, int32_t), void *cl) {
  if (grain <= 0) grain = 5;
  for (int64_t s = b; s < e; s += grain) fn(cl, s, s + grain < e ? s + grain : e, 0);
}
void tic_rt_print(void *ctx, const char *fmt, ...) {
  va_list ap; va_start(ap, fmt); vprintf(fmt, ap); va_end(ap); printf("\n");
}
float fill(void *ctx, tc_ndarray *a, int32_t n);
int main(void) {
  float data[5 * 7];
  for (int i = 0; i < 35; ++i) data[i] = (i % 3 == 0) ? -1.0f : (float)i;
  tc_ndarray a = {data, 2, {5, 7}, 0};
  float r = fill(0, &a, 0);
  float expect = 0;
  for (int i = 1; i < 5; ++i) for (int j = 0; j < 7; ++j) if (data[i*7+j] > 0) expect += data[i*7+j];
  float *u = (float *)root;
  int bad = 0;
  for (int i = 0; i < 5; ++i) for (int j = 0; j < 7; ++j) {
    float want = i >= 1 ? i * 100.0f + j : 0.0f;
    if (u[i * 7 + j] != want) { printf("u[%d,%d] = %f want %f\n", i, j, u[i*7+j], want); bad = 1; }
  }
  printf("ret %f expect %f total %f\n", r, expect, *(float *)(root + 140));
  return bad || r != expect;
}
