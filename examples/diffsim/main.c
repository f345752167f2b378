/* examples/diffsim/main.c - finds the launch velocities that send 64
 * projectiles (gravity and drag, diffsim.tc) to one target point, by
 * gradient descent with gradients from the tape; prints the loss per
 * iteration and plots the loss and the final trajectories to a PNG.
 *
 *   diffsim [--iters N] [--lr X] [-o plot.png] [--check]
 *
 * --check fails unless the loss drops 100-fold and every projectile ends
 * within 0.02 of the target. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diffsim.h"
#include "plot_util.h"
#include "png_util.h"

#define EXAMPLE_NAME "diffsim"
#define EXAMPLE_LAST_ERROR diffsim_last_error
#include "example_util.h"

static const int64_t kShape[] = DIFFSIM_X_SHAPE; /* {steps, n} */
#define STEPS ((int)kShape[0])
#define N ((int)kShape[1])
enum { W = 1024, H = 512 };
static const float kTarget[2] = {0.8f, 0.3f};

static diffsim_ctx *ctx;

/* One recorded forward run; the loss. */
static float forward(void) {
  float loss = 0.0f;
  RUN(diffsim_loss_set(ctx, 0.0f));
  RUN(diffsim_tape_begin(ctx));
  RUN(diffsim_init(ctx));
  for (int t = 1; t < STEPS; ++t)
    RUN(diffsim_step(ctx, t));
  RUN(diffsim_compute_loss(ctx));
  RUN(diffsim_tape_end(ctx));
  RUN(diffsim_loss_get(ctx, &loss));
  return loss;
}

int main(int argc, char **argv) {
  int iters = 100, check = 0;
  float lr = 20.0f; /* the loss is a mean over the 64 projectiles */
  const char *out = "diffsim.png";
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--iters") && i + 1 < argc)
      iters = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--lr") && i + 1 < argc)
      lr = (float)atof(argv[++i]);
    else if (!strcmp(argv[i], "-o") && i + 1 < argc)
      out = argv[++i];
    else if (!strcmp(argv[i], "--check"))
      check = 1;
    else {
      fprintf(stderr,
              "usage: diffsim [--iters N] [--lr X] [-o plot.png] [--check]\n");
      return 2;
    }
  }
  if (iters < 1)
    iters = 1;
  RUN(diffsim_create(NULL, &ctx));
  RUN(diffsim_set_target(ctx, kTarget[0], kTarget[1]));
  RUN(diffsim_reset_launch(ctx, 1.0f, 1.0f));
  float *losses = malloc(sizeof(float) * (size_t)iters);
  float *xs = malloc(sizeof(float) * 2 * (size_t)STEPS * N);
  struct plot_image im = {malloc((size_t)W * H * 3), W, H};
  if (!losses || !xs || !im.rgb)
    return 1;
  memset(im.rgb, 255, (size_t)W * H * 3);
  const unsigned char grey[3] = {170, 170, 170}, blue[3] = {30, 90, 200},
                      red[3] = {200, 40, 30}, green[3] = {40, 150, 60},
                      light[3] = {240, 180, 170};
  for (int it = 0; it < iters; ++it) {
    losses[it] = forward();
    if (it == 0) { /* the first throws, in light red */
      RUN(diffsim_x_read(ctx, xs, 2 * (size_t)STEPS * N));
      for (int p = 0; p < N; p += 4)
        for (int t = 0; t < STEPS; t += 2) {
          const float *q = xs + 2 * ((size_t)t * N + p);
          plot_pixel(&im, W / 2 + (int)(q[0] * 220), H - 1 - (int)(q[1] * 220),
                     light);
        }
    }
    /* loss.grad = 1, then the recorded launches' adjoints in reverse */
    RUN(diffsim_tape_backward(ctx, DIFFSIM_FIELD_LOSS));
    if (it % 10 == 0 || it == iters - 1)
      printf("iter %3d  loss %.6g\n", it, losses[it]);
    RUN(diffsim_update(ctx, lr));
  }
  float final = forward();
  printf("final loss %.6g (from %.6g)\n", final, losses[0]);
  RUN(diffsim_x_read(ctx, xs, 2 * (size_t)STEPS * N));
  float worst = 0.0f;
  for (int p = 0; p < N; ++p) {
    const float *e = xs + 2 * ((size_t)(STEPS - 1) * N + p);
    float d = hypotf(e[0] - kTarget[0], e[1] - kTarget[1]);
    worst = d > worst ? d : worst;
    for (int t = 0; t < STEPS; t += 2) {
      const float *q = xs + 2 * ((size_t)t * N + p);
      plot_pixel(&im, W / 2 + (int)(q[0] * 220), H - 1 - (int)(q[1] * 220),
                 p % 4 ? blue : red);
    }
  }
  plot_dot(&im, W / 2 + (int)(kTarget[0] * 220),
           H - 1 - (int)(kTarget[1] * 220), green);
  plot_losses(&im, losses, iters, 40, 20, W / 2 - 20, H - 40, grey, blue);
  printf("largest distance of a projectile to the target: %.4f\n", worst);
  if (check && !(final * 100.0f < losses[0]))
    FAIL("the loss went from %g to %g only", losses[0], final);
  if (check && !(worst < 0.02f))
    FAIL("a projectile ends %.4f from the target", worst);
  if (png_write_rgb(out, im.rgb, W, H) != 0)
    return 1;
  printf("wrote %s\n", out);
  free(im.rgb);
  free(xs);
  free(losses);
  diffsim_destroy(ctx);
  return failures ? 1 : 0;
}
