#include "demo.h"

#include <stdio.h>

int main(void) {
  demo_ctx *ctx = NULL;
  int64_t sum = 0;
  if (demo_create(NULL, &ctx) != TC_OK) {
    fprintf(stderr, "demo_create: %s\n", demo_last_error(NULL));
    return 1;
  }
  if (demo_fill(ctx) != TC_OK || demo_sum(ctx, &sum) != TC_OK) {
    fprintf(stderr, "demo: %s\n", demo_last_error(ctx));
    return 1;
  }
  printf("n=%d sum=%lld\n", (int)DEMO_CONST_N, (long long)sum);
  demo_destroy(ctx);
  return 0;
}
