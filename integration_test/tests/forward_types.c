/* Types declared after their use compute what the same program with the
 * declarations in order computes (a C reference). */
#include "forward_types.h"
#define LAST_ERROR forward_types_last_error
#include "common.h"

int main(void) {
  forward_types_ctx *ctx = NULL;
  float got[3], want[3] = {0, 0, 0}, c[3] = {0, 0, 0}, m = 0;
  int i;
  CHECK(forward_types_create(NULL, &ctx));
  CHECK(forward_types_init(ctx));
  CHECK(forward_types_summary(ctx, got));
  for (i = 0; i < 8; ++i) {
    float mass = 1.0f + (float)i;
    want[0] += mass * (float)i;
    want[1] += mass * (2.0f * (float)i);
    want[2] += mass * 0.5f;
    m += mass;
    c[0] += 0.25f;
    c[1] += 0.5f;
    c[2] += (float)i / 8.0f;
  }
  for (i = 0; i < 3; ++i)
    want[i] = want[i] / m + c[i] / 8.0f;
  compare_f32("summary", got, want, 3, 1e-6, 1e-6);
  forward_types_destroy(ctx);
  return TEST_RESULT();
}
