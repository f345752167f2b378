#!/usr/bin/env python3
"""Runs Taichi 1.7.4's own examples/simulation/euler.py headless and dumps Q.

    python3 taichi_reference.py N METHOD STEPS OUT.bin

Takes the original from the installed taichi package (pip install
taichi==1.7.4; optional, nothing in the build or the tests needs it), runs it
on the CPU on one thread with fast_math=False (flush-to-zero is Taichi's CPU
default, as it is tic's), with N and method replaced and the GUI loop replaced
by STEPS time steps, and writes Q (N*N*4 float32, row-major). Compare with

    euler --steps STEPS --threads 1 --dump tic.bin

built with -D N=... -D method=... (cmp OUT.bin tic.bin).
"""
import os
import runpy
import sys
import tempfile

import taichi

n, method, steps, out = sys.argv[1:5]
src_path = os.path.join(os.path.dirname(taichi.__file__), "examples", "simulation", "euler.py")
src = open(src_path).read()
src = src.replace("from matplotlib import cm\n", "")
src = src.replace(
    "ti.init(arch=ti.gpu, default_fp=real)",
    "ti.init(arch=ti.cpu, default_fp=real, fast_math=False, cpu_max_num_threads=1)",
)
src = src.replace("N = 512  # grid resolution", f"N = {int(n)}")
src = src.replace("method = 1  # 0:muscl, 1:thinc", f"method = {int(method)}")
src = src[: src.index("def main():")] + f"""
set_ic()
set_bc()
for n in range({int(steps)}):
    calc_dt()
    copy_to_old()
    for rk_step in range(2):
        compute_W()
        if method == 0:
            compute_F_muscl()
        else:
            compute_F_thinc()
        update_Q(rk_step)
        set_bc()
Q.to_numpy().astype("float32").tofile({out!r})
"""
# Taichi reads the kernels' source back with inspect: run it from a file.
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "euler_reference.py")
    with open(path, "w") as f:
        f.write(src)
    runpy.run_path(path, run_name="euler_reference")
