#!/usr/bin/env python3
"""CasADi's answer to the structured cart-pole of gen.py (`gen.py cartpole N`):
the RK4 step as an SX Function (calling the dynamics, an SX Function, 4 times),
`map`ped over the horizon in an MX graph; the Jacobian of (cost, constraints)
or the lower triangle of the Lagrangian Hessian, generated as C.

    python3 casadi_map.py DIR N jacobian|hessian

Writes DIR/casadi_kernel.c (function `casadi_kernel`: x -> (f, J), or
(x, w) -> tril(H)) and prints, as JSON, the work sizes, the derivative's
sparsity (row, col per nonzero, CasADi's order) and the seconds taken by the
symbolic work and by code generation. The model computes what gen.py writes:
inputs x0_0..x0_3, ..., xN_3 (state k is column k), then u0..u{N-1};
outputs cost, c{k}_{i} = rk4(x_k, u_k)_i - x{k+1}_i, then c_init{i} = x0_i - p_i
with p = (0, pi, 0, 0), the file's `# @params`.
"""
import json
import math
import os
import sys
import time

import casadi as ca


def main():
    out_dir, n, what = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    start = time.perf_counter()
    dt = 2.0 / n
    # The constants exactly as gen.py writes them: repr(float) parses back to the same double.
    h2, h, h6 = float(repr(dt / 2)), float(repr(dt)), float(repr(dt / 6))

    s = ca.SX.sym("s", 4)
    u = ca.SX.sym("u")
    pos, th, v, om = s[0], s[1], s[2], s[3]
    st, ct = ca.sin(th), ca.cos(th)
    den = 1.1 - 0.1 * ct * ct
    w2 = om * om
    dv = (u + 0.05 * w2 * st - 0.981 * st * ct) / den
    dom = (-u * ct - 0.05 * w2 * st * ct + 10.791 * st) / (0.5 * den)
    dyn = ca.Function("dyn", [s, u], [ca.vertcat(v, om, dv, dom)])

    k1 = dyn(s, u)
    k2 = dyn(s + h2 * k1, u)
    k3 = dyn(s + h2 * k2, u)
    k4 = dyn(s + h * k3, u)
    step = ca.Function("rk4", [s, u], [s + h6 * (k1 + 2 * k2 + 2 * k3 + k4)])

    X = ca.MX.sym("X", 4, n + 1)
    U = ca.MX.sym("U", 1, n)
    z = ca.vertcat(ca.vec(X), ca.vec(U))
    nxt = step.map(n)(X[:, :n], U)
    p = ca.DM([0.0, math.pi, 0.0, 0.0])
    final = X[0, n] ** 2 + (X[1, n] - math.pi) ** 2
    cost = dt * ca.sumsqr(U) + 10 * final
    g = ca.vertcat(cost, ca.vec(nxt - X[:, 1:]), X[:, 0] - p)

    if what == "jacobian":
        F = ca.Function("casadi_kernel", [z], [g, ca.jacobian(g, z)])
        out = 1
    else:
        lam = ca.MX.sym("w", g.shape[0])
        H, _ = ca.hessian(ca.dot(lam, g), z)
        F = ca.Function("casadi_kernel", [z, lam], [ca.tril(H)])
        out = 0
    symbolic_s = time.perf_counter() - start
    start = time.perf_counter()
    os.chdir(out_dir)
    F.generate("casadi_kernel.c")
    codegen_s = time.perf_counter() - start
    rows, cols = F.sparsity_out(out).get_triplet()
    json.dump({"sz_arg": F.sz_arg(), "sz_res": F.sz_res(), "sz_iw": F.sz_iw(), "sz_w": F.sz_w(),
               "rows": rows, "cols": cols, "ops": F.n_instructions(),
               "symbolic_s": symbolic_s, "codegen_s": codegen_s}, sys.stdout)


if __name__ == "__main__":
    main()
