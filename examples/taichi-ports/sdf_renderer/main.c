/* examples/taichi-ports/sdf_renderer/main.c - the host side of Taichi's
 * sdf_renderer.py, headless: runs render() --samples times (one sample per
 * pixel each) and writes the image the original's GUI shows,
 * sqrt(img / mean(img) * 0.24) with img = color_buffer / samples, as a PNG.
 *
 *   sdf_renderer [--samples N] [-o FILE.png] [--threads N] [--seed S]
 *                [--check] [--ref-samples N]
 *
 * The resolution is the module's (tic -D res_x=... -D res_y=...; 1280x720
 * by default). --check compares the port with a reimplementation of the
 * scene in C (double precision) below, and exits 1 on a mismatch:
 *   1. primary hits: for every pixel whose centre ray is stable (the
 *      reference gives the same hit for rays a hundredth of a pixel
 *      around it), primary_hits() must agree with the reference on whether
 *      the light is seen first, on the hit distance, the normal and the
 *      albedo (the stripe colour);
 *   2. the rendered image: a pixel whose whole footprint sees the light
 *      first gets exactly 1 per sample in every channel (none does in this
 *      scene: the light is seen only through bounces); any other pixel at
 *      most 0.7 per sample (the largest albedo); and the mean colour of the
 *      image and of each of 4x4 tiles, per channel, must agree with a Monte
 *      Carlo estimate of the reference path tracer (its own random numbers,
 *      --ref-samples per pixel) within 5 standard errors of the
 *      difference. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "png_util.h"
#include "sdf_renderer.h"

#define EXAMPLE_NAME "sdf_renderer"
#define EXAMPLE_LAST_ERROR sdf_renderer_last_error
#include "example_util.h"

#define W SDF_RENDERER_CONST_RES_X
#define H SDF_RENDERER_CONST_RES_Y
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static sdf_renderer_ctx *ctx;




/* ---- The scene of sdf_renderer.py, in double precision ---------------- */

typedef struct { double x, y, z; } v3;
static v3 V(double x, double y, double z) { v3 r = {x, y, z}; return r; }
static v3 add(v3 a, v3 b) { return V(a.x + b.x, a.y + b.y, a.z + b.z); }
static v3 sub(v3 a, v3 b) { return V(a.x - b.x, a.y - b.y, a.z - b.z); }
static v3 scale(double s, v3 a) { return V(s * a.x, s * a.y, s * a.z); }
static double dot3(v3 a, v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static double len3(v3 a) { return sqrt(dot3(a, a)); }
static v3 unit(v3 a) { return scale(1.0 / len3(a), a); }
static v3 cross3(v3 a, v3 b) {
  return V(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static double comp(v3 a, int i) { return i == 0 ? a.x : i == 1 ? a.y : a.z; }

static const double kInf = 1e10, kEps = 1e-4, kFov = 0.23;
static const double kDistLimit = 100;
static const int kMaxDepth = 6;

static double intersect_light(v3 pos, v3 d) {
  v3 light = V(-1.5, 0.6, 0.3), normal = V(1.0, 0.0, 0.0);
  double dt = -dot3(d, normal), dist = dot3(d, sub(light, pos));
  if (dt > 0 && dist > 0) {
    double D = dist / dt;
    v3 q = sub(light, add(pos, scale(D, d)));
    if (dot3(q, q) < 2.0 * 2.0)
      return D;
  }
  return kInf;
}

static double make_nested(double f) {
  f = f * 40;
  if (f < 0) {
    /* truncation, then Python's i % 2 (far distances are positive: only
       negative ones, inside the geometry, are converted) */
    int i = (int)f;
    if (((i % 2) + 2) % 2 == 1)
      f -= floor(f);
    else
      f = floor(f) + 1 - f;
  }
  return (f - 0.2) / 40;
}

static double sdf(v3 o) {
  double wall = fmin(o.y + 0.1, o.z + 0.4);
  double sphere = len3(sub(o, V(0.0, 0.35, 0.0))) - 0.36;
  v3 q = sub(V(fabs(o.x - 0.8), fabs(o.y - 0.3), fabs(o.z)), V(0.3, 0.3, 0.3));
  double box = len3(V(fmax(0, q.x), fmax(0, q.y), fmax(0, q.z))) +
               fmin(fmax(fmax(q.x, q.y), q.z), 0);
  v3 O = sub(o, V(-0.8, 0.3, 0));
  double d0 = sqrt(O.x * O.x + O.z * O.z) - 0.3, d1 = fabs(O.y) - 0.3;
  double cylinder = fmin(fmax(d0, d1), 0.0) +
                    sqrt(fmax(0, d0) * fmax(0, d0) + fmax(0, d1) * fmax(0, d1));
  double geometry = make_nested(fmin(fmin(sphere, box), cylinder));
  geometry = fmax(geometry, -(0.32 - (o.y * 0.6 + o.z * 0.8)));
  return fmin(wall, geometry);
}

static double ray_march(v3 p, v3 d) {
  int j = 0;
  double dist = 0.0;
  while (j < 100 && sdf(add(p, scale(dist, d))) > 1e-6 && dist < kInf) {
    dist += sdf(add(p, scale(dist, d)));
    j += 1;
  }
  return fmin(kInf, dist);
}

static v3 sdf_normal(v3 p) {
  const double d = 1e-3;
  double c = sdf(p);
  return unit(V((sdf(add(p, V(d, 0, 0))) - c) / d,
                (sdf(add(p, V(0, d, 0))) - c) / d,
                (sdf(add(p, V(0, 0, d))) - c) / d));
}

typedef struct { double closest; v3 normal, c; } hit;

static hit next_hit(v3 pos, v3 d) {
  hit h = {kInf, {0, 0, 0}, {0, 0, 0}};
  double rm = ray_march(pos, d);
  if (rm < kDistLimit && rm < h.closest) {
    h.closest = rm;
    h.normal = sdf_normal(add(pos, scale(rm, d)));
    v3 hp = add(pos, scale(rm, d));
    int t = (((int)((hp.x + 10) * 1.1 + 0.5)) % 3 + 3) % 3;
    h.c = V(0.4 + 0.3 * (t == 0), 0.4 + 0.2 * (t == 1), 0.4 + 0.3 * (t == 2));
  }
  return h;
}

static const v3 kCamera = {0.0, 0.32, 3.7};

static v3 camera_ray(double u, double v) {
  double aspect = (double)W / H;
  return unit(V(2 * kFov * u / H - kFov * aspect - 1e-5,
                2 * kFov * v / H - kFov - 1e-5, -1.0));
}

/* splitmix64: the reference's own random numbers, uniform in [0, 1). */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double rnd(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

static v3 out_dir(v3 n) {
  v3 u = V(1.0, 0.0, 0.0);
  if (fabs(n.y) < 1 - kEps)
    u = unit(cross3(n, V(0.0, 1.0, 0.0)));
  v3 v = cross3(n, u);
  double phi = 2 * M_PI * rnd(), ay = sqrt(rnd()), ax = sqrt(1 - ay * ay);
  return add(scale(ax, add(scale(cos(phi), u), scale(sin(phi), v))),
             scale(ay, n));
}

/* One sample of render() for pixel (u, v). */
static v3 trace(int u, int v) {
  v3 pos = kCamera;
  double ju = u + rnd(), jv = v + rnd();
  v3 d = camera_ray(ju, jv), throughput = V(1, 1, 1);
  double hit_light = 0;
  for (int depth = 0; depth < kMaxDepth;) {
    hit h = next_hit(pos, d);
    depth += 1;
    if (intersect_light(pos, d) < h.closest) {
      hit_light = 1;
      depth = kMaxDepth;
    } else if (dot3(h.normal, h.normal) != 0) {
      v3 hp = add(pos, scale(h.closest, d));
      d = out_dir(h.normal);
      pos = add(hp, scale(1e-4, d));
      throughput = V(throughput.x * h.c.x, throughput.y * h.c.y,
                     throughput.z * h.c.z);
    } else {
      depth = kMaxDepth;
    }
  }
  return scale(hit_light, throughput);
}

/* ---- Checks ------------------------------------------------------------- */

/* What the reference says about the primary ray through (u, v): 0 geometry
 * first, 1 light first, 2 nothing. */
static int primary_kind(double u, double v, hit *h, double *light) {
  v3 d = camera_ray(u, v);
  *h = next_hit(kCamera, d);
  *light = intersect_light(kCamera, d);
  if (*light < h->closest)
    return 1;
  return dot3(h->normal, h->normal) != 0 ? 0 : 2;
}

static int same_hit(const hit *a, const hit *b) {
  return fabs(a->closest - b->closest) < 1e-3 &&
         dot3(sub(a->normal, b->normal), sub(a->normal, b->normal)) < 1e-4 &&
         dot3(sub(a->c, b->c), sub(a->c, b->c)) < 1e-10;
}

static float dist_tc[W][H], light_tc[W][H], normal_tc[W][H][3],
    albedo_tc[W][H][3], color[W][H][3];
/* Per pixel: 1 when the whole footprint sees the light first, 0 when the
 * whole footprint sees geometry first, -1 otherwise. */
static signed char footprint[W][H];

static void check_primary_hits(void) {
  tc_ndarray nd_dist = {dist_tc, 2, {W, H}, TC_DTYPE_F32};
  tc_ndarray nd_light = {light_tc, 2, {W, H}, TC_DTYPE_F32};
  tc_ndarray nd_normal = {normal_tc, 3, {W, H, 3}, TC_DTYPE_F32};
  tc_ndarray nd_albedo = {albedo_tc, 3, {W, H, 3}, TC_DTYPE_F32};
  RUN(sdf_renderer_primary_hits(ctx, nd_dist, nd_light, nd_normal, nd_albedo));
  int compared = 0, seen_light = 0;
  for (int u = 0; u < W; ++u)
    for (int v = 0; v < H; ++v) {
      hit h, hn;
      double light, ln;
      int kind = primary_kind(u + 0.5, v + 0.5, &h, &light), stable = 1;
      static const double off[4][2] = {{.01, 0}, {-.01, 0}, {0, .01}, {0, -.01}};
      for (int k = 0; k < 4 && stable; ++k)
        stable = primary_kind(u + 0.5 + off[k][0], v + 0.5 + off[k][1], &hn,
                              &ln) == kind &&
                 (kind != 0 || same_hit(&h, &hn));
      /* The footprint of render()'s jittered rays: corners and centre. */
      int fp = kind;
      static const double corner[4][2] = {{0, 0}, {0.999, 0}, {0, 0.999},
                                          {0.999, 0.999}};
      for (int k = 0; k < 4; ++k)
        if (primary_kind(u + corner[k][0], v + corner[k][1], &hn, &ln) != fp)
          fp = -1;
      footprint[u][v] = (signed char)(fp == 2 ? -1 : fp);
      if (!stable)
        continue;
      ++compared;
      int kind_tc = light_tc[u][v] < dist_tc[u][v]
                        ? 1
                        : (normal_tc[u][v][0] != 0 || normal_tc[u][v][1] != 0 ||
                           normal_tc[u][v][2] != 0)
                              ? 0
                              : 2;
      seen_light += kind == 1;
      if (kind_tc != kind) {
        FAIL("pixel (%d, %d): primary ray meets %s, reference: %s", u, v,
             kind_tc == 1 ? "the light" : kind_tc == 0 ? "geometry" : "nothing",
             kind == 1 ? "the light" : kind == 0 ? "geometry" : "nothing");
        continue;
      }
      if (kind == 1 && fabs(light_tc[u][v] - light) > 1e-3 * (1 + light))
        FAIL("pixel (%d, %d): light at %.6f, reference %.6f", u, v,
             light_tc[u][v], light);
      if (kind != 0)
        continue;
      hit t = {dist_tc[u][v],
               {normal_tc[u][v][0], normal_tc[u][v][1], normal_tc[u][v][2]},
               {albedo_tc[u][v][0], albedo_tc[u][v][1], albedo_tc[u][v][2]}};
      if (!same_hit(&t, &h))
        FAIL("pixel (%d, %d): hit at %.6f normal (%.4f %.4f %.4f) albedo "
             "(%.2f %.2f %.2f), reference %.6f (%.4f %.4f %.4f) (%.2f %.2f "
             "%.2f)",
             u, v, t.closest, t.normal.x, t.normal.y, t.normal.z, t.c.x,
             t.c.y, t.c.z, h.closest, h.normal.x, h.normal.y, h.normal.z,
             h.c.x, h.c.y, h.c.z);
    }
  printf("primary hits: %d of %d pixels compared with the reference "
         "(%d see the light first)\n",
         compared, W * H, seen_light);
  if (compared < W * H / 2)
    FAIL("only %d of %d pixels have a stable primary hit", compared, W * H);
}

#define TILES 4

static void check_image(int samples, int ref_samples) {
  int light_px = 0;
  for (int u = 0; u < W; ++u)
    for (int v = 0; v < H; ++v)
      for (int c = 0; c < 3; ++c) {
        float x = color[u][v][c];
        if (footprint[u][v] == 1 && x != (float)samples)
          FAIL("pixel (%d, %d) sees only the light but has %.9g in channel "
               "%d after %d samples",
               u, v, x, c, samples);
        if (!(x >= 0) || (footprint[u][v] != 1 && x > 0.7 * samples + 1e-3))
          FAIL("pixel (%d, %d) has %.9g in channel %d after %d samples", u, v,
               x, c, samples);
        light_px += footprint[u][v] == 1 && c == 0;
      }
  /* Tile means: the port's (all its samples) and the reference path
   * tracer's (ref_samples per pixel), with standard errors from the
   * reference's per-sample variance. */
  /* Tile [TILES][0] is the whole image. */
  double sum[TILES + 1][TILES][3] = {{{0}}}, ref[TILES + 1][TILES][3] = {{{0}}},
         ref2[TILES + 1][TILES][3] = {{{0}}};
  int npx[TILES + 1][TILES] = {{0}};
  for (int u = 0; u < W; ++u)
    for (int v = 0; v < H; ++v) {
      int tu = u * TILES / W, tv = v * TILES / H;
      ++npx[tu][tv];
      ++npx[TILES][0];
      for (int c = 0; c < 3; ++c) {
        sum[tu][tv][c] += color[u][v][c];
        sum[TILES][0][c] += color[u][v][c];
      }
      for (int s = 0; s < ref_samples; ++s) {
        v3 x = trace(u, v);
        for (int c = 0; c < 3; ++c) {
          ref[tu][tv][c] += comp(x, c);
          ref2[tu][tv][c] += comp(x, c) * comp(x, c);
          ref[TILES][0][c] += comp(x, c);
          ref2[TILES][0][c] += comp(x, c) * comp(x, c);
        }
      }
    }
  double worst = 0, z_all[3] = {0, 0, 0}, m_all[3] = {0, 0, 0};
  for (int tu = 0; tu <= TILES; ++tu)
    for (int tv = 0; tv < (tu == TILES ? 1 : TILES); ++tv)
      for (int c = 0; c < 3; ++c) {
        double n_tc = (double)npx[tu][tv] * samples;
        double n_ref = (double)npx[tu][tv] * ref_samples;
        double m_tc = sum[tu][tv][c] / n_tc, m_ref = ref[tu][tv][c] / n_ref;
        double var = ref2[tu][tv][c] / n_ref - m_ref * m_ref;
        double se = sqrt(var / n_tc + var / n_ref) + 1e-9;
        double z = fabs(m_tc - m_ref) / se;
        if (tu == TILES) {
          z_all[c] = z;
          m_all[c] = m_ref;
        } else if (z > worst) {
          worst = z;
        }
        if (z > 5 && tu == TILES)
          FAIL("channel %d: mean %.5f, reference %.5f (%.1f standard errors "
               "apart)",
               c, m_tc, m_ref, z);
        else if (z > 5)
          FAIL("tile (%d, %d) channel %d: mean %.5f, reference %.5f "
               "(%.1f standard errors apart)",
               tu, tv, c, m_tc, m_ref, z);
      }
  printf("image: %d pixels see only the light; reference mean colour %.4f "
         "%.4f %.4f (%d samples per pixel), %.2f %.2f %.2f standard errors "
         "away; %dx%d tile means within %.2f standard errors\n",
         light_px, m_all[0], m_all[1], m_all[2], ref_samples, z_all[0],
         z_all[1], z_all[2], TILES, TILES, worst);
}

/* ---- Output --------------------------------------------------------------- */

/* gui.set_image(np.sqrt(img / img.mean() * 0.24)), img = color / samples;
 * the GUI's v axis points up. */
static int write_png(const char *path, int samples) {
  double mean = 0;
  for (int u = 0; u < W; ++u)
    for (int v = 0; v < H; ++v)
      for (int c = 0; c < 3; ++c)
        mean += color[u][v][c] / samples;
  mean /= 3.0 * W * H;
  unsigned char *rgb = malloc((size_t)W * H * 3);
  if (!rgb)
    return -1;
  for (int u = 0; u < W; ++u)
    for (int v = 0; v < H; ++v)
      for (int c = 0; c < 3; ++c) {
        double x = mean > 0 ? color[u][v][c] / samples / mean * 0.24 : 0;
        rgb[3 * ((size_t)(H - 1 - v) * W + u) + c] =
            png_unit_to_byte((float)sqrt(x));
      }
  int rc = png_write_rgb(path, rgb, W, H);
  free(rgb);
  return rc;
}

int main(int argc, char **argv) {
  int samples = 4, threads = 0, check = 0, ref_samples = 4;
  unsigned long long seed = 0;
  const char *out = "sdf_renderer.png";
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--check")) {
      check = 1;
      continue;
    }
    if (i + 1 >= argc) {
      a = "";
    } else if (!strcmp(a, "--samples")) {
      samples = atoi(argv[++i]);
      continue;
    } else if (!strcmp(a, "-o")) {
      out = argv[++i];
      continue;
    } else if (!strcmp(a, "--threads")) {
      threads = atoi(argv[++i]);
      continue;
    } else if (!strcmp(a, "--seed")) {
      seed = strtoull(argv[++i], NULL, 10);
      continue;
    } else if (!strcmp(a, "--ref-samples")) {
      ref_samples = atoi(argv[++i]);
      continue;
    }
    fprintf(stderr,
            "usage: %s [--samples N] [-o FILE.png] [--threads N] [--seed S]\n"
            "          [--check] [--ref-samples N]\n",
            argv[0]);
    return 2;
  }
  if (samples < 1 || ref_samples < 1) {
    fprintf(stderr, "sdf_renderer: --samples and --ref-samples must be >= 1\n");
    return 2;
  }

  tc_options opts;
  tc_options_init(&opts);
  opts.num_threads = threads;
  opts.seed = seed;
  if (sdf_renderer_create(&opts, &ctx) != TC_OK) {
    fprintf(stderr, "sdf_renderer: create failed: %s\n",
            sdf_renderer_last_error(NULL));
    return 1;
  }
  if (check)
    check_primary_hits();
  double t0 = now_s();
  for (int s = 0; s < samples; ++s)
    RUN(sdf_renderer_render(ctx));
  double t = now_s() - t0;
  RUN(sdf_renderer_color_buffer_read(ctx, &color[0][0][0], (size_t)W * H * 3));
  double mean[3] = {0, 0, 0};
  for (int u = 0; u < W; ++u)
    for (int v = 0; v < H; ++v)
      for (int c = 0; c < 3; ++c)
        mean[c] += color[u][v][c] / ((double)samples * W * H);
  printf("sdf_renderer: %dx%d, %d samples per pixel in %.2f s (%.2f samples/s, "
         "%.1f ms per sample); mean colour %.4f %.4f %.4f\n",
         W, H, samples, t, samples / t, 1e3 * t / samples, mean[0], mean[1],
         mean[2]);
  if (check)
    check_image(samples, ref_samples);
  if (write_png(out, samples) != 0)
    return 1;
  printf("sdf_renderer: wrote %s\n", out);
  sdf_renderer_destroy(ctx);
  if (failures) {
    fprintf(stderr, "sdf_renderer: %d check(s) failed\n", failures);
    return 1;
  }
  return 0;
}
