#include "field_api.h"
#define LAST_ERROR field_api_last_error
#include "common.h"

#define HAS(msg, needle)                                                       \
  do {                                                                         \
    const char *m_ = (msg);                                                    \
    if (!m_ || !strstr(m_, needle)) {                                          \
      fprintf(stderr, "%s:%d: message '%s' lacks '%s'\n", __FILE__, __LINE__, \
              m_ ? m_ : "(null)", needle);                                     \
      ++tic_test_failures;                                                     \
    }                                                                          \
  } while (0)

int main(void) {
  field_api_ctx *ctx = NULL;
  double d = 0;
  int32_t c = 0;
  float vec[3] = {1, 2, 3}, out[3] = {0, 0, 0}, all[5 * 4 * 3];
  float mat[4] = {1, 2, 3, 4}, mout[4], mall[12];
  uint8_t bytes[6] = {0, 1, 127, 128, 254, 255}, bout[6];
  uint8_t flags[4] = {1, 0, 1, 1}, fout[4];
  int32_t arr[3][4];
  int64_t tot = 0;
  tc_ndarray nd;
  int i;

  /* NULL ctx / out pointers */
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, field_api_create(NULL, NULL));
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, field_api_bump(NULL, 1));
  EXPECT_TRUE(strlen(field_api_last_error(NULL)) > 0);
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, field_api_s_get(NULL, &d));
  {
    tc_options bad;
    tc_options_init(&bad);
    bad.num_threads = -3;
    EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, field_api_create(&bad, &ctx));
    EXPECT_TRUE(ctx == NULL);
    EXPECT_TRUE(strlen(field_api_last_error(NULL)) > 0);
  }
  CHECK(field_api_create(NULL, &ctx));
  EXPECT_TRUE(strcmp(field_api_last_error(ctx), "") == 0);
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, field_api_s_get(ctx, NULL));
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, field_api_v_set(ctx, 0, 0, NULL));
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, field_api_v_read(ctx, NULL, 60));

  /* 0-D fields: start at zero, no indices, count 1 */
  EXPECT_TRUE(FIELD_API_S_NDIM == 0 && FIELD_API_S_SIZE == 1);
  CHECK(field_api_s_get(ctx, &d));
  EXPECT_TRUE(d == 0.0);
  CHECK(field_api_bump(ctx, 3));
  CHECK(field_api_bump(ctx, 4));
  CHECK(field_api_s_get(ctx, &d));
  CHECK(field_api_cnt_get(ctx, &c));
  EXPECT_TRUE(d == 3.5 && c == 2);
  CHECK(field_api_s_set(ctx, -1.25));
  CHECK(field_api_s_read(ctx, &d, 1));
  EXPECT_TRUE(d == -1.25);
  d = 8.0;
  CHECK(field_api_s_write(ctx, &d, 1));
  CHECK(field_api_bump(ctx, 1));
  CHECK(field_api_s_get(ctx, &d));
  EXPECT_TRUE(d == 8.5);
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, field_api_s_read(ctx, &d, 2));
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, field_api_s_write(ctx, &d, 0));

  /* vector and matrix elements */
  EXPECT_TRUE(FIELD_API_V_NDIM == 2 && FIELD_API_V_SIZE == 60 && FIELD_API_M_SIZE == 12);
  CHECK(field_api_v_set(ctx, 4, 3, vec));
  CHECK(field_api_v_get(ctx, 4, 3, out));
  EXPECT_TRUE(out[0] == 1 && out[1] == 2 && out[2] == 3);
  CHECK(field_api_v_read(ctx, all, 60));
  EXPECT_TRUE(all[57] == 1 && all[58] == 2 && all[59] == 3 && all[56] == 0);
  CHECK(field_api_m_set(ctx, 1, mat));
  CHECK(field_api_m_get(ctx, 1, mout));
  EXPECT_TRUE(memcmp(mat, mout, sizeof mat) == 0);
  CHECK(field_api_m_read(ctx, mall, 12));
  EXPECT_TRUE(mall[4] == 1 && mall[5] == 2 && mall[6] == 3 && mall[7] == 4);
  CHECK(field_api_poke(ctx, 2, 1, 7.5f));
  CHECK(field_api_v_get(ctx, 2, 1, out));
  EXPECT_TRUE(out[0] == 7.5f && out[2] == 7.5f);

  /* narrow and bool element types round-trip */
  CHECK(field_api_b_write(ctx, bytes, 6));
  CHECK(field_api_b_read(ctx, bout, 6));
  EXPECT_TRUE(memcmp(bytes, bout, 6) == 0);
  CHECK(field_api_flag_write(ctx, flags, 4));
  CHECK(field_api_flag_read(ctx, fout, 4));
  EXPECT_TRUE(memcmp(flags, fout, 4) == 0);
  CHECK(field_api_flag_get(ctx, 1, &fout[0]));
  EXPECT_TRUE(fout[0] == 0);

  /* out-of-bounds indices, with a message naming field, axis and extent */
  EXPECT_STATUS(TC_ERR_OUT_OF_BOUNDS, field_api_v_get(ctx, 5, 0, out));
  HAS(field_api_last_error(ctx), "'v'");
  HAS(field_api_last_error(ctx), "5");
  EXPECT_STATUS(TC_ERR_OUT_OF_BOUNDS, field_api_v_get(ctx, 0, 4, out));
  HAS(field_api_last_error(ctx), "axis 1");
  EXPECT_STATUS(TC_ERR_OUT_OF_BOUNDS, field_api_v_set(ctx, -1, 0, vec));
  EXPECT_STATUS(TC_ERR_OUT_OF_BOUNDS, field_api_m_set(ctx, 3, mat));
  EXPECT_STATUS(TC_ERR_OUT_OF_BOUNDS, field_api_b_get(ctx, 2147483647, &bout[0]));
  HAS(field_api_last_error(ctx), "extent 6");
  /* a later success does not clear the message */
  CHECK(field_api_b_get(ctx, 0, &bout[0]));
  HAS(field_api_last_error(ctx), "extent 6");

  /* wrong counts */
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, field_api_v_read(ctx, all, 59));
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, field_api_v_write(ctx, all, 61));
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, field_api_v_write(ctx, all, 20));
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, field_api_m_read(ctx, mall, 3));
  CHECK(field_api_v_read(ctx, all, 60)); /* unchanged by the failed write */
  EXPECT_TRUE(all[57] == 1);

  /* kernel-side checks (tic -g): out-of-bounds store and a failed assert */
  EXPECT_STATUS(TC_ERR_OUT_OF_BOUNDS, field_api_poke(ctx, 5, 0, 1.0f));
  HAS(field_api_last_error(ctx), "field_api.tc:20:3: index 5");
  HAS(field_api_last_error(ctx),
      "index 5 is out of bounds for axis 0 of field 'v' with extent 5");
  EXPECT_STATUS(TC_ERR_OUT_OF_BOUNDS, field_api_poke(ctx, 0, -1, 1.0f));
  HAS(field_api_last_error(ctx), "index -1 is out of bounds for axis 1");
  CHECK(field_api_poke(ctx, 4, 3, 9.0f));
  EXPECT_STATUS(TC_ERR_ASSERTION, field_api_checked(ctx, -1));
  HAS(field_api_last_error(ctx), "k must not be negative");
  CHECK(field_api_checked(ctx, 11));
  CHECK(field_api_cnt_get(ctx, &c));
  EXPECT_TRUE(c == 11);

  /* ndarray parameters: rank, dtype, NULL data, negative extent */
  for (i = 0; i < 12; ++i) arr[i / 4][i % 4] = i * i - 20;
  memset(&nd, 0, sizeof nd);
  nd.data = arr;
  nd.ndim = 2;
  nd.shape[0] = 3;
  nd.shape[1] = 4;
  nd.dtype = TC_DTYPE_I32;
  CHECK(field_api_sum_nd(ctx, nd, &tot));
  EXPECT_TRUE(tot == 506 - 240);
  nd.dtype = TC_DTYPE_F32;
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, field_api_sum_nd(ctx, nd, &tot));
  HAS(field_api_last_error(ctx), "'a'");
  HAS(field_api_last_error(ctx), "i32");
  nd.dtype = TC_DTYPE_U32;
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, field_api_sum_nd(ctx, nd, &tot));
  nd.dtype = TC_DTYPE_I32;
  nd.ndim = 1;
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, field_api_sum_nd(ctx, nd, &tot));
  nd.ndim = 3;
  nd.shape[2] = 1;
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, field_api_sum_nd(ctx, nd, &tot));
  nd.ndim = 2;
  nd.shape[1] = -4;
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, field_api_sum_nd(ctx, nd, &tot));
  nd.shape[1] = 4;
  nd.data = NULL;
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, field_api_sum_nd(ctx, nd, &tot));
  nd.data = arr;
  EXPECT_STATUS(TC_ERR_INVALID_ARGUMENT, field_api_sum_nd(ctx, nd, NULL));
  CHECK(field_api_sum_nd(ctx, nd, &tot));
  EXPECT_TRUE(tot == 266);

  EXPECT_TRUE(strcmp(tc_status_string(TC_ERR_OUT_OF_BOUNDS), "ok") != 0);
  EXPECT_TRUE(strcmp(tc_status_string(TC_OK), "ok") == 0);
  field_api_destroy(ctx);
  field_api_destroy(NULL);
  return TEST_RESULT();
}
