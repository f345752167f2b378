/* denormals.c for the module compiled with --denormals=preserve. */
#define EXPECT_PRESERVE 1
#include "denormals.c"
