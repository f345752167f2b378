/* examples/mass_spring/main.c - optimises the rest lengths of three springs
 * so that the triangle of masses reaches a target area (mass_spring.tc),
 * with reverse-mode gradients from the tape, and plots the loss and the
 * final motion to a PNG.
 *
 *   mass_spring [--iters N] [--lr X] [-o plot.png] [--check]
 *
 * --check also compares the first gradient with central differences of the
 * loss and fails unless the loss drops 100-fold. In f32, central
 * differences over 1024 steps are good to a few percent only (5e-2 here);
 * integration_test/tests/autodiff_mass_spring runs the same program in f64
 * and matches them to 1e-6. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mass_spring.h"
#include "plot_util.h"
#include "png_util.h"

#define EXAMPLE_NAME "mass_spring"
#define EXAMPLE_LAST_ERROR mass_spring_last_error
#include "example_util.h"

enum { STEPS = 1024, N = 3, W = 1024, H = 512 };

static mass_spring_ctx *ctx;

/* One forward run from the initial state; with `taped`, on the tape. */
static float forward(int taped) {
  static const float x0[2 * N] = {0.3f, 0.5f, 0.3f, 0.4f, 0.4f, 0.4f};
  float zero[2 * N] = {0}, loss = 0;
  RUN(mass_spring_clear_forces(ctx));
  for (int i = 0; i < N; ++i) {
    RUN(mass_spring_x_set(ctx, 0, i, x0 + 2 * i));
    RUN(mass_spring_v_set(ctx, 0, i, zero + 2 * i));
  }
  if (taped) RUN(mass_spring_tape_begin(ctx));
  for (int t = 1; t < STEPS; ++t) {
    RUN(mass_spring_apply_spring_force(ctx, t));
    RUN(mass_spring_time_integrate(ctx, t));
  }
  RUN(mass_spring_compute_loss(ctx, STEPS - 1));
  if (taped) RUN(mass_spring_tape_end(ctx));
  RUN(mass_spring_loss_get(ctx, &loss));
  return loss;
}

int main(int argc, char **argv) {
  int iters = 200, check = 0;
  float lr = 5.0f;
  const char *out = "mass_spring.png";
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--lr") && i + 1 < argc) lr = (float)atof(argv[++i]);
    else if (!strcmp(argv[i], "-o") && i + 1 < argc) out = argv[++i];
    else if (!strcmp(argv[i], "--check")) check = 1;
    else {
      fprintf(stderr, "usage: mass_spring [--iters N] [--lr X] [-o plot.png] [--check]\n");
      return 2;
    }
  }
  if (iters < 1) iters = 1;
  RUN(mass_spring_create(NULL, &ctx));
  const int32_t a[N] = {0, 1, 2}, b[N] = {1, 2, 0};
  float rest[N] = {0.1f, 0.1f, 0.1f * sqrtf(2.0f)};
  RUN(mass_spring_anchor_a_write(ctx, a, N));
  RUN(mass_spring_anchor_b_write(ctx, b, N));
  RUN(mass_spring_rest_length_write(ctx, rest, N));

  float *losses = malloc(sizeof(float) * (size_t)iters);
  if (!losses) return 1;
  double t0 = now_s();
  for (int it = 0; it < iters; ++it) {
    losses[it] = forward(1);
    RUN(mass_spring_tape_backward(ctx, MASS_SPRING_FIELD_LOSS));
    if (check && it == 0) {
      /* the tape's gradient against central differences */
      float g[N], r[N];
      RUN(mass_spring_rest_length_grad_read(ctx, g, N));
      RUN(mass_spring_rest_length_read(ctx, r, N));
      for (int s = 0; s < N; ++s) {
        const float h = 1e-3f;
        float save = r[s];
        r[s] = save + h;
        RUN(mass_spring_rest_length_write(ctx, r, N));
        float lp = forward(0);
        r[s] = save - h;
        RUN(mass_spring_rest_length_write(ctx, r, N));
        float lm = forward(0);
        r[s] = save;
        RUN(mass_spring_rest_length_write(ctx, r, N));
        float fd = (lp - lm) / (2 * h);
        printf("d loss / d rest_length[%d]: tape %.6g, central difference %.6g\n",
               s, g[s], fd);
        if (!(fabsf(g[s] - fd) <= 5e-2f * fabsf(fd) + 1e-7f))
          FAIL("gradient %d: %g vs %g", s, g[s], fd);
      }
      /* the tape is still there: replay the gradients for the update */
      RUN(mass_spring_clear_grads(ctx));
      losses[it] = forward(1);
      RUN(mass_spring_tape_backward(ctx, MASS_SPRING_FIELD_LOSS));
    }
    printf("iter %3d  loss %.6g\n", it, losses[it]);
    RUN(mass_spring_gradient_step(ctx, lr));
  }
  double secs = now_s() - t0;
  RUN(mass_spring_rest_length_read(ctx, rest, N));
  printf("rest lengths: [%.3f, %.3f, %.3f]  (%d iterations, %.2f s, %.2f ms "
         "per forward + backward)\n",
         rest[0], rest[1], rest[2], iters, secs, 1e3 * secs / iters);
  if (check && !(losses[iters - 1] * 100.0f < losses[0]))
    FAIL("the loss went from %g to %g only", losses[0], losses[iters - 1]);

  /* Plot: the loss (log scale) on the left; on the right the paths of the
     three masses in the last run and their final triangle. */
  struct plot_image im = {malloc((size_t)W * H * 3), W, H};
  unsigned char *img = im.rgb;
  float *xs = malloc(sizeof(float) * STEPS * N * 2);
  if (!img || !xs) return 1;
  memset(img, 255, (size_t)W * H * 3);
  forward(0);
  RUN(mass_spring_x_read(ctx, xs, (size_t)STEPS * N * 2));
  const unsigned char axis[3] = {120, 120, 120}, blue[3] = {30, 90, 200},
                      red[3] = {210, 50, 40}, green[3] = {40, 150, 60};
  plot_losses(&im, losses, iters, 40, 20, W / 2 - 20, H - 40, axis, blue);
  for (int i = 0; i < N; ++i)
    for (int t = 1; t < STEPS; ++t) {
      const float *p = xs + 2 * ((size_t)(t - 1) * N + i), *q = p + 2 * N;
      plot_line(&im, W / 2 + (int)(p[0] * 500) - 50, H - (int)(p[1] * 500) + 50,
                W / 2 + (int)(q[0] * 500) - 50, H - (int)(q[1] * 500) + 50,
                green);
    }
  for (int i = 0; i < N; ++i) {
    const float *p = xs + 2 * ((size_t)(STEPS - 1) * N + i);
    const float *q = xs + 2 * ((size_t)(STEPS - 1) * N + (i + 1) % N);
    plot_line(&im, W / 2 + (int)(p[0] * 500) - 50, H - (int)(p[1] * 500) + 50,
              W / 2 + (int)(q[0] * 500) - 50, H - (int)(q[1] * 500) + 50, red);
  }
  if (png_write_rgb(out, img, W, H) != 0) return 1;
  printf("wrote %s\n", out);
  free(img);
  free(xs);
  free(losses);
  mass_spring_destroy(ctx);
  return failures ? 1 : 0;
}
