"""Julia set, 2048x1024, at most 100 iterations (bench/julia.tc)."""
from common import init, median_ms, parse_args, report

args = parse_args()
ti = init(args)
h = 1024
w = 2 * h
max_iter = 100
pixels = ti.field(ti.f32, (w, h))


@ti.kernel
def paint(t: ti.f32):
    for i, j in ti.ndrange(w, h):
        cr = -0.8
        ci = ti.cos(t) * 0.2
        zr = (i / h - 1.0) * 2.0
        zi = (j / h - 0.5) * 2.0
        it = 0
        while zr * zr + zi * zi < 400.0 and it < max_iter:
            nr = zr * zr - zi * zi + cr
            zi = 2.0 * zr * zi + ci
            zr = nr
            it += 1
        pixels[i, j] = 1.0 - it * (1.0 / max_iter)


report("julia", f"{w}x{h}", median_ms(ti, args, lambda: paint(0.3)))
