"""All-pairs forces, force[i] += ... over j (bench/nbody.tc)."""
from common import init, median_ms, parse_args, report

args = parse_args()
ti = init(args)
n = 4096
eps2 = 1e-2
pos = ti.Vector.field(3, ti.f32, n)
mass = ti.field(ti.f32, n)
force = ti.Vector.field(3, ti.f32, n)


@ti.kernel
def fill():
    for i in range(n):
        pos[i] = [(i * 37) % 1009 / 1009.0, (i * 53) % 997 / 997.0,
                  (i * 71) % 991 / 991.0]
        mass[i] = 0.5 + (i % 7) * 0.25


@ti.kernel
def compute_forces():
    for i in range(n):
        force[i] = [0.0, 0.0, 0.0]
        for j in range(n):
            d = pos[j] - pos[i]
            r2 = d.x * d.x + d.y * d.y + d.z * d.z + eps2
            s = mass[j] / (r2 * ti.sqrt(r2))
            force[i] += s * d


fill()
report("nbody", f"n={n},demoted", median_ms(ti, args, compute_forces))
