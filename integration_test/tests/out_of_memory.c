/* The root buffer of ~128 TiB cannot be mapped in a 47-bit address space. */
#include "out_of_memory.h"
#define LAST_ERROR out_of_memory_last_error
#include "common.h"

int main(void) {
  out_of_memory_ctx *ctx = NULL;
  const char *msg;
  tc_status s = out_of_memory_create(NULL, &ctx);
  EXPECT_TRUE(s == TC_ERR_OUT_OF_MEMORY);
  EXPECT_TRUE(ctx == NULL);
  msg = out_of_memory_last_error(NULL);
  fprintf(stderr, "create: %s\n", msg);
  EXPECT_TRUE(strstr(msg, "module 'out_of_memory'") != NULL);
  EXPECT_TRUE(strstr(msg, "the largest is 'huge' with 140735340806145 bytes") != NULL);
  return TEST_RESULT();
}
