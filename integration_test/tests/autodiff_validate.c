/* tic -g: the runtime validation of the global data access rules while a
 * tape records (autodiff_validate.tc), on the CPU and (TIC_ARCH=cuda,
 * scripts/gpu-check.sh) on a GPU, whose launches with such checks wait and
 * report as the CPU's do. */
#include "autodiff_validate.h"
#define LAST_ERROR autodiff_validate_last_error
#include "common.h"

static int expect_violation(autodiff_validate_ctx *ctx, tc_status st,
                            const char *what) {
  return expect_failure(st, TC_ERR_ASSERTION, autodiff_validate_last_error(ctx),
                        "breaks the global data access rule", what);
}

int main(void) {
  autodiff_validate_ctx *ctx = NULL;
  const float one[4] = {1, 1, 1, 1};
  CHECK(autodiff_validate_create(NULL, &ctx));
  CHECK(autodiff_validate_x_write(ctx, one, 4));
  CHECK(autodiff_validate_y_write(ctx, one, 4));

  /* fine: write y, read it, accumulate elsewhere */
  CHECK(autodiff_validate_tape_begin(ctx));
  CHECK(autodiff_validate_set_y(ctx));
  CHECK(autodiff_validate_square(ctx));
  CHECK(autodiff_validate_sum_z(ctx));
  CHECK(autodiff_validate_tape_end(ctx));

  /* AD-11 (b) across kernels: read y, then accumulate into it */
  CHECK(autodiff_validate_tape_begin(ctx));
  CHECK(autodiff_validate_square(ctx));
  expect_violation(ctx, autodiff_validate_add(ctx),
                   "of field 'y' is accumulated into after it was read");
  CHECK(autodiff_validate_tape_end(ctx));

  /* written twice by two kernels */
  CHECK(autodiff_validate_tape_begin(ctx));
  CHECK(autodiff_validate_set_y(ctx));
  expect_violation(ctx, autodiff_validate_set_y(ctx),
                   "is overwritten (written twice");
  CHECK(autodiff_validate_tape_end(ctx));

  /* accumulated into, then overwritten */
  CHECK(autodiff_validate_tape_begin(ctx));
  CHECK(autodiff_validate_add(ctx));
  expect_violation(ctx, autodiff_validate_set_y(ctx),
                   "is overwritten after an accumulation");
  CHECK(autodiff_validate_tape_end(ctx));

  /* aliasing indices within one kernel */
  CHECK(autodiff_validate_tape_begin(ctx));
  expect_violation(ctx, autodiff_validate_reverse_copy(ctx),
                   "is overwritten after it was read");
  CHECK(autodiff_validate_tape_end(ctx));

  /* outside a tape nothing is checked */
  CHECK(autodiff_validate_square(ctx));
  CHECK(autodiff_validate_add(ctx));
  CHECK(autodiff_validate_set_y(ctx));
  CHECK(autodiff_validate_set_y(ctx));

  autodiff_validate_destroy(ctx);
  if (tic_test_failures)
    return 1;
  printf("autodiff_validate: every violation caught\n");
  return 0;
}
