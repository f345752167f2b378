#include "demo.h"

#include <stdio.h>

int main(void) {
  demo_ctx *ctx = NULL;
  tc_options opts;
  int64_t sum = 0;
  tc_options_init(&opts);
  opts.num_threads = 2;
  if (demo_create(&opts, &ctx) != TC_OK) {
    fprintf(stderr, "demo_create: %s\n", demo_last_error(NULL));
    return 1;
  }
  if (demo_sum(ctx, &sum) != TC_OK) {
    fprintf(stderr, "demo_sum: %s\n", demo_last_error(ctx));
    return 1;
  }
  printf("answer=%d targets=%s sum=%lld\n", DEMO_ANSWER, DEMO_TARGETS,
         (long long)sum);
  demo_destroy(ctx);
  return 0;
}
