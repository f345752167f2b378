"""Differentiable MPM (examples/diffmpm/diffmpm.tc, bench/bench_diffmpm.cpp)
in Taichi 1.7.4: the same program, 64 substeps of 4096 particles; the
forward pass, and forward + backward with the grid recomputed per step and
the kernels' .grad() called in reverse (DiffTaichi's checkpointing, as in
difftaichi's diffmpm.py). Prints the loss and d loss / d init_v so they can
be compared with tic's.
"""
import common

args = common.parse_args()
ti = common.init(args)

n_side = 64
n_particles = n_side * n_side
steps = 65
n_grid = 64
dx = 1.0 / n_grid
inv_dx = float(n_grid)
dt = 1e-3
p_vol = 1.0
p_mass = 1.0
E = 10.0
mu = E
la = E
gravity = 3.8
bound = 3
coeff = 0.5

x = ti.Vector.field(2, float, (steps, n_particles), needs_grad=True)
v = ti.Vector.field(2, float, (steps, n_particles), needs_grad=True)
C = ti.Matrix.field(2, 2, float, (steps, n_particles), needs_grad=True)
F = ti.Matrix.field(2, 2, float, (steps, n_particles), needs_grad=True)
grid_v_in = ti.Vector.field(2, float, (n_grid, n_grid), needs_grad=True)
grid_m_in = ti.field(float, (n_grid, n_grid), needs_grad=True)
grid_v_out = ti.Vector.field(2, float, (n_grid, n_grid), needs_grad=True)
init_v = ti.Vector.field(2, float, (), needs_grad=True)
target = ti.Vector.field(2, float, ())
x_avg = ti.Vector.field(2, float, (), needs_grad=True)
loss = ti.field(float, (), needs_grad=True)


@ti.kernel
def init_particles():
    for p in range(n_particles):
        i = p // n_side
        j = p % n_side
        x[0, p] = [0.1 + 0.15 * i / n_side, 0.2 + 0.15 * j / n_side]
        v[0, p] = init_v[None]
        F[0, p] = [[1.0, 0.0], [0.0, 1.0]]
        C[0, p] = [[0.0, 0.0], [0.0, 0.0]]


@ti.kernel
def clear_grid():
    for i, j in grid_m_in:
        grid_v_in[i, j] = [0.0, 0.0]
        grid_m_in[i, j] = 0.0
        grid_v_out[i, j] = [0.0, 0.0]
        grid_v_in.grad[i, j] = [0.0, 0.0]
        grid_m_in.grad[i, j] = 0.0
        grid_v_out.grad[i, j] = [0.0, 0.0]


@ti.kernel
def p2g(f: ti.i32):
    for p in range(n_particles):
        Xp = x[f, p] * inv_dx
        base = ti.cast(Xp - 0.5, ti.i32)
        fx = Xp - base
        w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1.0) ** 2, 0.5 * (fx - 0.5) ** 2]
        new_F = (ti.Matrix([[1.0, 0.0], [0.0, 1.0]]) + dt * C[f, p]) @ F[f, p]
        J = new_F.determinant()
        F[f + 1, p] = new_F
        r, s = ti.polar_decompose(new_F)
        cauchy = 2.0 * mu * (new_F - r) @ new_F.transpose() + \
            ti.Matrix([[la * (J - 1.0) * J, 0.0], [0.0, la * (J - 1.0) * J]])
        stress = -(dt * p_vol * 4.0 * inv_dx * inv_dx) * cauchy
        affine = stress + p_mass * C[f, p]
        for i, j in ti.static(ti.ndrange(3, 3)):
            offset = ti.Vector([i, j])
            dpos = (offset - fx) * dx
            weight = w[i][0] * w[j][1]
            grid_v_in[base + offset] += weight * (p_mass * v[f, p] + affine @ dpos)
            grid_m_in[base + offset] += weight * p_mass


@ti.kernel
def grid_op():
    for i, j in grid_m_in:
        inv_m = 1.0 / (grid_m_in[i, j] + 1e-10)
        v_out = inv_m * grid_v_in[i, j]
        v_out[1] -= dt * gravity
        if i < bound and v_out[0] < 0.0:
            v_out = ti.Vector([0.0, 0.0])
        if i > n_grid - bound and v_out[0] > 0.0:
            v_out = ti.Vector([0.0, 0.0])
        if j > n_grid - bound and v_out[1] > 0.0:
            v_out = ti.Vector([0.0, 0.0])
        if j < bound and v_out[1] < 0.0:
            lin = v_out[1]
            vit = ti.Vector([v_out[0], 0.0])
            lit = vit.norm() + 1e-10
            if lit + coeff * lin <= 0.0:
                v_out = ti.Vector([0.0, 0.0])
            else:
                v_out = (1.0 + coeff * lin / lit) * vit
        grid_v_out[i, j] = v_out


@ti.kernel
def g2p(f: ti.i32):
    for p in range(n_particles):
        Xp = x[f, p] * inv_dx
        base = ti.cast(Xp - 0.5, ti.i32)
        fx = Xp - base
        w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1.0) ** 2, 0.5 * (fx - 0.5) ** 2]
        new_v = ti.Vector([0.0, 0.0])
        new_C = ti.Matrix([[0.0, 0.0], [0.0, 0.0]])
        for i, j in ti.static(ti.ndrange(3, 3)):
            dpos = ti.Vector([i, j]) - fx
            g_v = grid_v_out[base[0] + i, base[1] + j]
            weight = w[i][0] * w[j][1]
            new_v += weight * g_v
            new_C += 4.0 * weight * g_v.outer_product(dpos) * inv_dx
        v[f + 1, p] = new_v
        x[f + 1, p] = x[f, p] + dt * new_v
        C[f + 1, p] = new_C


@ti.kernel
def compute_x_avg():
    for p in range(n_particles):
        x_avg[None] += x[steps - 1, p] / n_particles


@ti.kernel
def compute_loss():
    d = x_avg[None] - target[None]
    loss[None] = d.dot(d)


def forward():
    init_particles()
    for s in range(steps - 1):
        clear_grid()
        p2g(s)
        grid_op()
        g2p(s)
    x_avg[None] = [0.0, 0.0]
    compute_x_avg()
    compute_loss()


def backward():
    for fld in (x, v, C, F, init_v, x_avg):
        fld.grad.fill(0)
    loss.grad[None] = 1.0
    compute_loss.grad()
    compute_x_avg.grad()
    for s in reversed(range(steps - 1)):
        clear_grid()
        p2g(s)
        grid_op()
        g2p.grad(s)
        grid_op.grad()
        p2g.grad(s)
    init_particles.grad()


target[None] = [0.7, 0.25]
init_v[None] = [1.5, 0.6]
forward()
backward()
print(f"# taichi loss {loss[None]:.7g} d loss / d init_v "
      f"({init_v.grad[None][0]:.6g}, {init_v.grad[None][1]:.6g})", flush=True)
variant = f"{n_particles}particles_{steps - 1}steps"
common.report("diffmpm", variant + ",forward", common.median_ms(ti, args, forward))
common.report("diffmpm", variant + ",forward+backward",
              common.median_ms(ti, args, lambda: (forward(), backward())))
