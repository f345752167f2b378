"""Shared helpers of the Taichi 1.7.4 column of scripts/bench.sh.

Each script runs the same program as the matching bench/*.tc on
ti.cpu with the same thread count, times it after warm-up (the first calls
JIT-compile) and prints lines
    TAICHI bench=<name> variant=<v> taichi_ms=<median ms>
that scripts/bench.sh joins with the RESULT lines of the C++ harness.
"""
import argparse
import os
import statistics
import time


def parse_args(extra=None):
    """The common options; `extra(parser)` adds a script's own."""
    p = argparse.ArgumentParser()
    p.add_argument("--reps", type=int, default=15)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--arch", choices=["cpu", "cuda"], default="cpu",
                   help="cuda: on the GPU (scripts/gpu-check.sh bench)")
    if extra:
        extra(p)
    return p.parse_args()


def init(args):
    import taichi as ti
    if args.arch == "cuda":
        ti.init(arch=ti.cuda, default_fp=ti.f32, offline_cache=False,
                log_level=ti.WARN)
    else:
        ti.init(arch=ti.cpu, cpu_max_num_threads=args.threads,
                default_fp=ti.f32, offline_cache=False, log_level=ti.WARN)
    return ti


def median_ms(ti, args, fn):
    for _ in range(args.warmup):
        fn()
    ti.sync()
    times = []
    for _ in range(args.reps):
        t0 = time.perf_counter()
        fn()
        ti.sync()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def report(bench, variant, ms, extra=""):
    line = f"TAICHI bench={bench} variant={variant} taichi_ms={ms:.4f}"
    if extra:
        line += " " + extra
    print(line, flush=True)
