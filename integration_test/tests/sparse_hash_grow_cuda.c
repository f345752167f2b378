/* sparse_hash_grow.c for a --target=host,cuda object run on the CPU: its
 * tables are purged (on every target) but do not grow (the GPU has no
 * blocks for them). */
#define EXPECT_NO_GROWTH 1
#include "sparse_hash_grow.c"
