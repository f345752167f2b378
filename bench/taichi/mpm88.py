"""MLS-MPM 88 (Taichi's mpm88.py), 8192 and 65536 particles (bench/mpm88.tc);
with --sparse, on a pointer grid of 8x8-node blocks freed every substep
(bench/mpm_sparse.tc).

Runs each size in a fresh process (ti.init resets the program): the harness
calls this script once per size with --np and --ng.
"""
import statistics
import time

from common import init, parse_args


def _options(p):
    p.add_argument("--np", type=int, default=8192)
    p.add_argument("--ng", type=int, default=128)
    p.add_argument("--dt", type=float, default=2e-4)
    p.add_argument("--sparse", action="store_true")


args = parse_args(_options)
ti = init(args)

n_particles = args.np
n_grid = args.ng
dx = 1 / n_grid
dt = args.dt
p_rho = 1
p_vol = (dx * 0.5) ** 2
p_mass = p_vol * p_rho
gravity = 9.8
bound = 3
E = 400
substeps = 20

x = ti.Vector.field(2, float, n_particles)
v = ti.Vector.field(2, float, n_particles)
C = ti.Matrix.field(2, 2, float, n_particles)
J = ti.field(float, n_particles)
if args.sparse:
    grid_v = ti.Vector.field(2, float)
    grid_m = ti.field(float)
    blk = ti.root.pointer(ti.ij, n_grid // 8)
    blk.dense(ti.ij, 8).place(grid_v, grid_m)
else:
    grid_v = ti.Vector.field(2, float, (n_grid, n_grid))
    grid_m = ti.field(float, (n_grid, n_grid))


@ti.kernel
def substep():
    if ti.static(args.sparse):
        for I in ti.grouped(blk):
            ti.deactivate(blk, I)
    else:
        for i, j in grid_m:
            grid_v[i, j] = [0, 0]
            grid_m[i, j] = 0
    for p in x:
        Xp = x[p] / dx
        base = int(Xp - 0.5)
        fx = Xp - base
        w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1) ** 2, 0.5 * (fx - 0.5) ** 2]
        stress = -dt * 4 * E * p_vol * (J[p] - 1) / dx**2
        affine = ti.Matrix([[stress, 0], [0, stress]]) + p_mass * C[p]
        for i, j in ti.static(ti.ndrange(3, 3)):
            offset = ti.Vector([i, j])
            dpos = (offset - fx) * dx
            weight = w[i].x * w[j].y
            grid_v[base + offset] += weight * (p_mass * v[p] + affine @ dpos)
            grid_m[base + offset] += weight * p_mass
    for i, j in grid_m:
        if grid_m[i, j] > 0:
            grid_v[i, j] /= grid_m[i, j]
        grid_v[i, j].y -= dt * gravity
        if i < bound and grid_v[i, j].x < 0:
            grid_v[i, j].x = 0
        if i > n_grid - bound and grid_v[i, j].x > 0:
            grid_v[i, j].x = 0
        if j < bound and grid_v[i, j].y < 0:
            grid_v[i, j].y = 0
        if j > n_grid - bound and grid_v[i, j].y > 0:
            grid_v[i, j].y = 0
    for p in x:
        Xp = x[p] / dx
        base = int(Xp - 0.5)
        fx = Xp - base
        w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1.0) ** 2, 0.5 * (fx - 0.5) ** 2]
        new_v = ti.Vector.zero(float, 2)
        new_C = ti.Matrix.zero(float, 2, 2)
        for i, j in ti.static(ti.ndrange(3, 3)):
            offset = ti.Vector([i, j])
            dpos = (offset - fx) * dx
            weight = w[i].x * w[j].y
            g_v = grid_v[base + offset]
            new_v += weight * g_v
            new_C += 4 * weight * g_v.outer_product(dpos) / dx**2
        v[p] = new_v
        x[p] += dt * v[p]
        J[p] *= 1 + dt * new_C.trace()
        C[p] = new_C


@ti.kernel
def init():
    for i in range(n_particles):
        x[i] = [ti.random() * 0.4 + 0.2, ti.random() * 0.4 + 0.2]
        v[i] = [0, -1]
        J[i] = 1


def run():
    for _ in range(substeps):
        substep()


init()
for _ in range(10):  # same 10 substeps as the C++ correctness check
    substep()
for _ in range(args.warmup):
    run()
ti.sync()
times = []
for _ in range(args.reps):
    t0 = time.perf_counter()
    run()
    ti.sync()
    times.append((time.perf_counter() - t0) * 1e3)
ms = statistics.median(times) / substeps
name = "mpm_sparse" if args.sparse else "mpm88"
print(f"TAICHI bench={name} variant=np={n_particles} arch={args.arch} "
      f"taichi_ms={ms:.4f}", flush=True)
