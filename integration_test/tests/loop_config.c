#include "loop_config.h"
#define LAST_ERROR loop_config_last_error
#include "common.h"

#define N LOOP_CONFIG_CONST_N

int main(void) {
  loop_config_ctx *ctx = NULL;
  tc_options opts;
  static int32_t x[N];
  static int64_t prefix[N];
  static uint32_t chain[N];
  static float y[N], yw[N];
  static long long got[N], want[N];
  uint32_t h = 0, hw = 2166136261u;
  int64_t s = 0, sw = 0;
  int32_t first = 0, fw = -1;
  int i;
  tc_options_init(&opts);
  opts.num_threads = 4;
  CHECK(loop_config_create(&opts, &ctx));
  for (i = 0; i < N; ++i) x[i] = (i * 7919) % 1000 - 300;
  CHECK(loop_config_x_write(ctx, x, N));

  CHECK(loop_config_scan(ctx));
  CHECK(loop_config_prefix_read(ctx, prefix, N));
  for (i = 0; i < N; ++i) {
    sw += x[i];
    want[i] = sw;
    got[i] = prefix[i];
  }
  compare_i64("prefix", got, want, N);

  CHECK(loop_config_hash_chain(ctx, &h));
  CHECK(loop_config_chain_read(ctx, chain, N));
  for (i = 0; i < N; ++i) {
    hw = (hw ^ (uint32_t)x[i]) * 16777619u;
    want[i] = hw;
    got[i] = chain[i];
  }
  compare_i64("chain", got, want, N);
  EXPECT_TRUE(h == hw);

  CHECK(loop_config_find_first(ctx, (int64_t)300000));
  CHECK(loop_config_first_big_get(ctx, &first));
  for (i = 0, sw = 0; i < N; ++i) {
    sw += x[i];
    if (sw > 300000) {
      fw = i;
      break;
    }
  }
  EXPECT_TRUE(first == fw);

  CHECK(loop_config_par(ctx, 0.25f));
  CHECK(loop_config_y_read(ctx, y, N));
  for (i = 0; i < N; ++i) yw[i] = ((float)x[i] * 0.25f + 1.0f) + 0.5f;
  compare_f32("y", y, yw, N, 0, 0);

  CHECK(loop_config_par_sum(ctx, &s));
  for (i = 0, sw = 0; i < N; ++i) sw += x[i];
  EXPECT_TRUE(s == sw);
  loop_config_destroy(ctx);
  return TEST_RESULT();
}
