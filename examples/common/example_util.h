/* examples/common/example_util.h - what the example drivers share: a RUN()
 * that stops with the module's message when a tic call fails, a FAIL() that
 * counts failed checks (printing the first few), and a monotonic clock.
 *
 * Before including, define EXAMPLE_NAME ("mpm128") and
 * EXAMPLE_LAST_ERROR(ctx) (the module's MODULE_last_error); RUN() uses the
 * driver's context variable `ctx`. Needs _POSIX_C_SOURCE >= 199309L (for
 * clock_gettime) before the first system header. parse_frame_args uses
 * EXAMPLE_NAME. */
#ifndef TIC_EXAMPLE_UTIL_H
#define TIC_EXAMPLE_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Number of failed checks (FAIL). */
static int failures;

#define RUN(call)                                                              \
  do {                                                                         \
    tc_status st_ = (call);                                                    \
    if (st_ != TC_OK) {                                                        \
      fprintf(stderr, "%s: %s failed: %s (%s)\n", EXAMPLE_NAME, #call,         \
              tc_status_string(st_), EXAMPLE_LAST_ERROR(ctx));                 \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

/* Reports a failed check (the first 20) and counts it. */
#define FAIL(...)                                                              \
  do {                                                                         \
    if (failures++ < 20) {                                                     \
      fprintf(stderr, "%s: check failed: ", EXAMPLE_NAME);                     \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
    }                                                                          \
  } while (0)

/* The options of the frame-writing examples: --frames N, --out DIR,
 * --threads N (defaults in *a). Creates DIR. 0 on success; prints the
 * usage or the error and returns the exit status otherwise. */
struct frame_args {
  int frames, threads;
  const char *out;
};
static int parse_frame_args(int argc, char **argv, struct frame_args *a) {
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--frames") && i + 1 < argc)
      a->frames = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--out") && i + 1 < argc)
      a->out = argv[++i];
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
      a->threads = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: %s [--frames N] [--out DIR] [--threads N]\n",
              EXAMPLE_NAME);
      return 2;
    }
  }
  if (mkdir(a->out, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "%s: cannot create %s: %s\n", EXAMPLE_NAME, a->out,
            strerror(errno));
    return 1;
  }
  return 0;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#endif
