#include "struct_for_shapes.h"
#define LAST_ERROR struct_for_shapes_last_error
#include "common.h"

#define MAXC 256

/* Compares a counter field (all ones) and a value field with want[]. */
static void check(const char *name, const int32_t *c, const int32_t *v,
                  const long long *want, size_t n) {
  static long long got[MAXC], ones[MAXC];
  char what[64];
  size_t i;
  for (i = 0; i < n; ++i) {
    got[i] = c[i];
    ones[i] = 1;
  }
  sprintf(what, "%s count", name);
  compare_i64(what, got, ones, n);
  for (i = 0; i < n; ++i) got[i] = v[i];
  sprintf(what, "%s value", name);
  compare_i64(what, got, want, n);
}

int main(void) {
  struct_for_shapes_ctx *ctx = NULL;
  tc_options opts;
  static int32_t c[MAXC], v[MAXC];
  static long long want[MAXC];
  int32_t total = 0;
  int i, j, k, l, n;
  tc_options_init(&opts);
  opts.num_threads = 3;
  CHECK(struct_for_shapes_create(&opts, &ctx));
  CHECK(struct_for_shapes_visit(ctx));

  CHECK(struct_for_shapes_c1_read(ctx, c, 7));
  CHECK(struct_for_shapes_v1_read(ctx, v, 7));
  for (i = 0; i < 7; ++i) want[i] = i * 3 + 1;
  check("1-D", c, v, want, 7);

  CHECK(struct_for_shapes_c2_read(ctx, c, 65));
  CHECK(struct_for_shapes_v2_read(ctx, v, 65));
  for (n = 0, i = 0; i < 13; ++i)
    for (j = 0; j < 5; ++j) want[n++] = i * 100 + j;
  check("2-D", c, v, want, 65);

  CHECK(struct_for_shapes_c3_read(ctx, c, 105));
  CHECK(struct_for_shapes_v3_read(ctx, v, 105));
  for (n = 0, i = 0; i < 3; ++i)
    for (j = 0; j < 5; ++j)
      for (k = 0; k < 7; ++k) want[n++] = (i * 10 + j) * 10 + k;
  check("3-D", c, v, want, 105);

  CHECK(struct_for_shapes_c4_read(ctx, c, 120));
  CHECK(struct_for_shapes_v4_read(ctx, v, 120));
  for (n = 0, i = 0; i < 2; ++i)
    for (j = 0; j < 3; ++j)
      for (k = 0; k < 4; ++k)
        for (l = 0; l < 5; ++l) want[n++] = ((i * 10 + j) * 10 + k) * 10 + l;
  check("4-D", c, v, want, 120);

  CHECK(struct_for_shapes_c5_read(ctx, c, 90));
  CHECK(struct_for_shapes_v5_read(ctx, v, 90));
  for (n = 0, i = 0; i < 15; ++i)
    for (j = 0; j < 6; ++j) want[n++] = i * 100 + j;
  check("nested 2-D", c, v, want, 90);

  /* Over the blocks: their own indices, 0..4 x 0..1, each once. */
  CHECK(struct_for_shapes_cb_read(ctx, c, 10));
  CHECK(struct_for_shapes_vb_read(ctx, v, 10));
  for (n = 0, i = 0; i < 5; ++i)
    for (j = 0; j < 2; ++j)
      want[n++] = i * 100 + j;
  check("blocks", c, v, want, 10);

  CHECK(struct_for_shapes_total_get(ctx, &total));
  EXPECT_TRUE(total == 7 + 65 + 105 + 120 + 90 + 10);
  struct_for_shapes_destroy(ctx);
  return TEST_RESULT();
}
