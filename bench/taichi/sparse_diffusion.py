"""Diffusion on a 2048^2 grid of 16x16 pointer blocks (bench/sparse_diffusion.tc)."""
from common import init, median_ms, parse_args, report

args = parse_args()
ti = init(args)
n, B = 2048, 16

for pct in (1, 10):
    u = ti.field(ti.f32)
    v = ti.field(ti.f32)
    blk = ti.root.pointer(ti.ij, n // B)
    blk.dense(ti.ij, B).place(u, v)

    @ti.kernel
    def init_blocks(p: ti.i32):
        for i, j in ti.ndrange(n, n):
            bi, bj = i // B, j // B
            if (bi * 7919 + bj * 104729) % 100 < p:
                u[i, j] = ti.sin(i * 0.05) * ti.cos(j * 0.03) + 1.0

    @ti.kernel
    def step_uv():
        for i, j in u:
            if 0 < i < n - 1 and 0 < j < n - 1:
                v[i, j] = u[i, j] + 0.2 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j])

    @ti.kernel
    def step_vu():
        for i, j in v:
            if 0 < i < n - 1 and 0 < j < n - 1:
                u[i, j] = v[i, j] + 0.2 * (v[i - 1, j] + v[i + 1, j] + v[i, j - 1] + v[i, j + 1] - 4.0 * v[i, j])

    def two_steps():
        step_uv()
        step_vu()

    init_blocks(pct)
    report("sparse_diffusion", f"{pct}%", median_ms(ti, args, two_steps))
