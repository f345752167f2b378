/* examples/diffmpm/main.c - finds the initial velocity that throws an
 * elastic block (diffmpm.tc, differentiable MLS-MPM) so that its centre of
 * mass lands on a target, by gradient descent with reverse-mode gradients.
 * The backward pass recomputes the reused grid of each step before running
 * the adjoints of that step (checkpointing, DiffTaichi appendix D); loss per
 * iteration on stdout, a PNG of the first and last throws.
 *
 *   diffmpm [--iters N] [--lr X] [-o plot.png] [--threads N] [--check]
 *
 * --check compares d loss / d init_v with central differences (f32: 5e-2
 * relative) and fails unless the loss drops 10-fold. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diffmpm.h"
#include "plot_util.h"
#include "png_util.h"

#define EXAMPLE_NAME "diffmpm"
#define EXAMPLE_LAST_ERROR diffmpm_last_error
#include "example_util.h"

static const int64_t kShape[] = DIFFMPM_X_SHAPE; /* {steps, n_particles} */
#define STEPS ((int)kShape[0])
#define NP ((size_t)kShape[1])
enum { W = 1024, H = 512 };

static diffmpm_ctx *ctx;
static double t_fwd, t_bwd;

static float forward(void) {
  const float zero[2] = {0, 0};
  float loss = 0;
  double t0 = now_s();
  RUN(diffmpm_init_particles(ctx));
  for (int s = 0; s < STEPS - 1; ++s) {
    RUN(diffmpm_clear_grid(ctx));
    RUN(diffmpm_p2g(ctx, s));
    RUN(diffmpm_grid_op(ctx));
    RUN(diffmpm_g2p(ctx, s));
  }
  RUN(diffmpm_x_avg_set(ctx, zero));
  RUN(diffmpm_compute_x_avg(ctx));
  RUN(diffmpm_compute_loss(ctx));
  RUN(diffmpm_loss_get(ctx, &loss));
  t_fwd += now_s() - t0;
  return loss;
}

static void backward(void) {
  double t0 = now_s();
  RUN(diffmpm_clear_grads(ctx));
  RUN(diffmpm_loss_grad_set(ctx, 1.0f));
  RUN(diffmpm_compute_loss_grad(ctx));
  RUN(diffmpm_compute_x_avg_grad(ctx));
  for (int s = STEPS - 2; s >= 0; --s) {
    /* recompute this step's grid, then its adjoints in reverse order */
    RUN(diffmpm_clear_grid(ctx));
    RUN(diffmpm_p2g(ctx, s));
    RUN(diffmpm_grid_op(ctx));
    RUN(diffmpm_g2p_grad(ctx, s));
    RUN(diffmpm_grid_op_grad(ctx));
    RUN(diffmpm_p2g_grad(ctx, s));
  }
  RUN(diffmpm_init_particles_grad(ctx));
  t_bwd += now_s() - t0;
}

/* The particles at the first and the last step of the current throw, in
 * the right half of the plot ([0, 1]^2 as 512 x 512 pixels). */
static void draw_throw(struct plot_image *img, float *xs,
                       const unsigned char c0[3], const unsigned char c1[3]) {
  RUN(diffmpm_x_read(ctx, xs, (size_t)STEPS * NP * 2));
  for (size_t p = 0; p < NP; p += 3) {
    const float *a = xs + 2 * p, *b = xs + 2 * ((size_t)(STEPS - 1) * NP + p);
    plot_dot(img, W / 2 + (int)(a[0] * 512), H - 1 - (int)(a[1] * 512), c0);
    plot_dot(img, W / 2 + (int)(b[0] * 512), H - 1 - (int)(b[1] * 512), c1);
  }
}

int main(int argc, char **argv) {
  int iters = 30, check = 0, threads = 0;
  float lr = 10.0f;
  const char *out = "diffmpm.png";
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--lr") && i + 1 < argc) lr = (float)atof(argv[++i]);
    else if (!strcmp(argv[i], "-o") && i + 1 < argc) out = argv[++i];
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--check")) check = 1;
    else {
      fprintf(stderr, "usage: diffmpm [--iters N] [--lr X] [-o plot.png] "
                      "[--threads N] [--check]\n");
      return 2;
    }
  }
  if (iters < 1) iters = 1;
  tc_options opts;
  tc_options_init(&opts);
  opts.num_threads = threads;
  RUN(diffmpm_create(&opts, &ctx));
  const float target[2] = {0.7f, 0.25f};
  float v[2] = {0.0f, 0.0f}, g[2];
  RUN(diffmpm_target_set(ctx, target));
  RUN(diffmpm_init_v_set(ctx, v));

  struct plot_image im = {malloc((size_t)W * H * 3), W, H};
  unsigned char *img = im.rgb;
  float *xs = malloc(sizeof(float) * 2 * NP * (size_t)STEPS);
  float *losses = malloc(sizeof(float) * (size_t)iters);
  if (!img || !xs || !losses) return 1;
  memset(img, 255, (size_t)W * H * 3);
  const unsigned char grey[3] = {170, 170, 170}, light[3] = {240, 160, 150},
                      red[3] = {200, 40, 30}, blue[3] = {30, 90, 200},
                      green[3] = {40, 150, 60};

  for (int it = 0; it < iters; ++it) {
    losses[it] = forward();
    if (it == 0)
      draw_throw(&im, xs, grey, light);
    backward();
    RUN(diffmpm_init_v_grad_get(ctx, g));
    RUN(diffmpm_init_v_get(ctx, v));
    printf("iter %3d  loss %.6g  init_v (%.4f, %.4f)  grad (%.4g, %.4g)\n", it,
           losses[it], v[0], v[1], g[0], g[1]);
    if (check && it == 0) {
      for (int c = 0; c < 2; ++c) {
        const float h = 1e-2f;
        float w[2] = {v[0], v[1]};
        w[c] = v[c] + h;
        RUN(diffmpm_init_v_set(ctx, w));
        float lp = forward();
        w[c] = v[c] - h;
        RUN(diffmpm_init_v_set(ctx, w));
        float lm = forward();
        float fd = (lp - lm) / (2 * h);
        printf("d loss / d init_v[%d]: adjoint %.6g, central difference %.6g\n",
               c, g[c], fd);
        if (!(fabsf(g[c] - fd) <= 5e-2f * fabsf(fd) + 1e-6f))
          FAIL("gradient %d: %g vs %g", c, g[c], fd);
      }
      RUN(diffmpm_init_v_set(ctx, v));
    }
    RUN(diffmpm_gradient_step(ctx, lr));
  }
  printf("forward %.1f ms, backward (with grid recomputation) %.1f ms per "
         "iteration; backward / forward = %.2f\n",
         1e3 * t_fwd / iters, 1e3 * t_bwd / iters, t_bwd / t_fwd);
  if (check && !(losses[iters - 1] * 10.0f < losses[0]))
    FAIL("the loss went from %g to %g only", losses[0], losses[iters - 1]);

  forward();
  draw_throw(&im, xs, grey, red);
  plot_dot(&im, W / 2 + (int)(target[0] * 512), H - 1 - (int)(target[1] * 512),
           green);
  /* the loss per iteration, log scale, in the left half */
  plot_losses(&im, losses, iters, 40, 20, W / 2 - 20, H - 40, grey, blue);
  if (png_write_rgb(out, img, W, H) != 0) return 1;
  printf("wrote %s\n", out);
  free(img);
  free(xs);
  free(losses);
  diffmpm_destroy(ctx);
  return failures ? 1 : 0;
}
