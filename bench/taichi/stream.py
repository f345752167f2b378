"""copy and saxpy on 2^24 f32 (bench/stream.tc)."""
from common import init, median_ms, parse_args, report

args = parse_args()
ti = init(args)
n = 1 << 24
x = ti.field(ti.f32, n)
y = ti.field(ti.f32, n)


@ti.kernel
def fill():
    for i in range(n):
        x[i] = (i % 1000) * 0.001
        y[i] = ((i * 7) % 1000) * 0.002


@ti.kernel
def copy():
    for i in range(n):
        y[i] = x[i]


@ti.kernel
def saxpy(a: ti.f32):
    for i in range(n):
        y[i] = a * x[i] + y[i]


fill()
report("copy", "n=2^24", median_ms(ti, args, copy))
report("saxpy", "n=2^24", median_ms(ti, args, lambda: saxpy(1e-7)))
