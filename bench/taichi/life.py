"""The bit-packed Game of Life of bench_life (examples/life/life.tc at
8192^2): two 1-bit quant fields in 32-lane quant_arrays, one generation per
call with ti.loop_config(bit_vectorize=True), the dead border of life.tc.
Reported per generation, like bench_life."""
from common import init, median_ms, parse_args, report

args = parse_args()
ti = init(args)
n = 8192
qu1 = ti.types.quant.int(1, False)
x = ti.field(dtype=qu1)
y = ti.field(dtype=qu1)
ti.root.dense(ti.ij, (n, n // 32)).quant_array(ti.j, 32, max_num_bits=32).place(x)
ti.root.dense(ti.ij, (n, n // 32)).quant_array(ti.j, 32, max_num_bits=32).place(y)


@ti.kernel
def soup():
    for i, j in ti.ndrange(n, n):
        if i > 0 and i < n - 1 and j >= 32 and j < n - 32:
            x[i, j] = ti.random() < 0.25


@ti.kernel
def step(src: ti.template(), dst: ti.template()):
    ti.loop_config(bit_vectorize=True)
    for i, j in src:
        if i > 0 and i < n - 1 and j >= 32 and j < n - 32:
            c = (src[i - 1, j - 1] + src[i - 1, j] + src[i - 1, j + 1] +
                 src[i, j - 1] + src[i, j + 1] + src[i + 1, j - 1] +
                 src[i + 1, j] + src[i + 1, j + 1])
            dst[i, j] = (c == 3) | ((c == 2) & (src[i, j] == 1))


def two_generations():
    step(x, y)
    step(y, x)


soup()
report("life", f"n={n}", median_ms(ti, args, two_generations) / 2)
