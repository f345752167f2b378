"""2-D 5-point stencil on 4096^2 f32 (bench/stencil.tc)."""
from common import init, median_ms, parse_args, report

args = parse_args()
ti = init(args)
n = 4096
a = ti.field(ti.f32, (n, n))
b = ti.field(ti.f32, (n, n))


@ti.kernel
def fill():
    for i, j in a:
        a[i, j] = ti.sin(0.01 * i) * ti.cos(0.013 * j) + (1.0 if i == j else 0.0)


@ti.kernel
def step():
    for i, j in ti.ndrange((1, n - 1), (1, n - 1)):
        b[i, j] = 0.2 * (a[i, j] + a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])


fill()
report("stencil", f"{n}x{n}", median_ms(ti, args, step))
