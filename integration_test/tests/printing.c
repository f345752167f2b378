#include "printing.h"
#define LAST_ERROR printing_last_error
#include "common.h"

int main(void) {
  printing_ctx *ctx = NULL;
  CHECK(printing_create(NULL, &ctx));
  printf("before\n");
  fflush(stdout);
  CHECK(printing_hello(ctx, 42, 0.5f));
  CHECK(printing_each(ctx));
  fflush(stdout);
  printf("after\n");
  printing_destroy(ctx);
  return TEST_RESULT();
}
