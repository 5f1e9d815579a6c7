"""The targets of issue 29, printed: every NLP of tests/nlp solved by IPOPT
through ``dstar.NLP`` and through CasADi's ``nlpsol("ipopt")`` from the same
start (the file's ``@point``) with the same bounds (``*.bounds.json``).

    python examples/python/nlp_vs_casadi.py [hs071 cartpole_20 ...] [--no-codegen] [--write-optima]

Per problem: f* of both and their relative difference, both statuses,
iteration counts, set-up (text to a solver ready to run: dstar.NLP, CasADi's
default nlpsol (SX, no code generation), CasADi with C code generation and
gcc -O3) and the time per iteration inside the derivative code (dstar's
kernels; CasADi's nlp_f, nlp_g, nlp_grad_f, nlp_jac_g and nlp_hess_l of
``stats()``), with the Python callback overhead of cyipopt apart.

"iters, same IPOPT": dstar's count against CasADi's derivatives fed to the
same cyipopt (dstar's IPOPT may be another version than CasADi's).

``--write-optima`` stores CasADi's optimum as ``tests/nlp/NAME.optimum.json``
(what ``python/tests/test_nlp.py`` checks dstar + IPOPT against).
Needs casadi and cyipopt (``pip install casadi cyipopt``).

One run (2-core machine shared with other jobs; Debian's IPOPT 3.11.9 for
dstar, CasADi 3.8.2's IPOPT 3.14.19; kernel times per IPOPT iteration):

    problem                iters dstar/CasADi/same IPOPT  set-up dstar/SX/codegen    kernels dstar/SX/codegen
    hs071                        9 /  9 /  9              2.5 / 1.5 /   171 ms        3.3 /   3.0 /  2.4 us
    cartpole_20                 35 / 28 / 32              148 /  79 /  9344 ms       63.9 / 118.4 / 34.3 us
    elec_20                     31 / 31 / 31               60 /  77 /  6586 ms       34.5 /  60.9 / 17.4 us
    hanging_chain_100           10 / 10 / 10               34 /  35 /  8564 ms       17.3 /  24.5 /  9.9 us
    rosenbrock_chain_1000        6 /  6 /  6              232 / 215 / 43588 ms       84.3 / 104.5 / 94.4 us

Same optimum (|df| <= 9e-9 relative) and status (Solve_Succeeded) on all
five; the Python callbacks around the kernels cost another 19-65 us per
iteration.
"""

import json
import pathlib
import sys
import tempfile
import time

import numpy as np

import dstar

HERE = pathlib.Path(__file__).resolve().parent
NLP_DIR = HERE.parents[1] / "tests" / "nlp"
sys.path.insert(0, str(HERE))

IPOPT_OPTIONS = {"tol": 1e-10, "max_iter": 3000}
NAMES = ["hs071", "cartpole_20", "elec_20", "hanging_chain_100", "rosenbrock_chain_1000"]


def problem(name):
    """(text, x0, bounds dict with None for infinite)."""
    text = (NLP_DIR / f"{name}.dstar").read_text()
    bounds = json.loads((NLP_DIR / f"{name}.bounds.json").read_text())
    x0 = next(np.array(line.split()[2:], dtype=float) for line in text.splitlines() if line.startswith("# @point"))
    return text, x0, {k: bounds[k] for k in ("lbx", "ubx", "lbg", "ubg")}


def finite(bounds, sign):
    return np.array([sign * np.inf if b is None else b for b in bounds], dtype=float)


REPEATS = 3  # solves per problem and solver; the times are the fastest's


def fastest(solves):
    return min(solves, key=lambda s: s["t_wall"])


def solve_dstar(text, x0, bounds):
    start = time.perf_counter()
    nlp = dstar.NLP(text)
    setup = time.perf_counter() - start
    sol = fastest([nlp.solve(x0, **bounds, options=IPOPT_OPTIONS) for _ in range(REPEATS)])
    sol["setup"] = setup
    return sol


def casadi_ipopt_version():
    """The IPOPT inside CasADi, from its banner (written to the C stdout)."""
    import os
    import re

    import casadi as ca

    x = ca.SX.sym("x")
    solver = ca.nlpsol("v", "ipopt", {"x": x, "f": x * x}, {"print_time": 0, "ipopt.print_level": 5})
    with tempfile.TemporaryFile() as out:
        sys.stdout.flush()
        saved = os.dup(1)
        os.dup2(out.fileno(), 1)
        try:
            solver(x0=1)
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        out.seek(0)
        found = re.search(rb"Ipopt version ([0-9.]+)", out.read())
    return found.group(1).decode() if found else "unknown"


def casadi_solver(text, codegen):
    import casadi as ca

    from dstar2casadi import load

    start = time.perf_counter()
    x, outputs, _ = load(text)
    nlp = {"x": x, "f": outputs[0], "g": ca.vertcat(*outputs[1:])}
    opts = {"print_time": 0, "ipopt.print_level": 0, "ipopt.sb": "yes",
            **{f"ipopt.{k}": v for k, v in IPOPT_OPTIONS.items()}}
    if codegen:
        opts.update({"jit": True, "compiler": "shell", "jit_cleanup": True, "jit_temp_suffix": True,
                     "jit_options": {"compiler": "gcc", "flags": ["-O3"]}})
    solver = ca.nlpsol("solver", "ipopt", nlp, opts)
    return solver, time.perf_counter() - start


CASADI_KERNELS = ("nlp_f", "nlp_g", "nlp_grad_f", "nlp_jac_g", "nlp_hess_l")


def solve_casadi(text, x0, bounds, codegen=False):
    solver, setup = casadi_solver(text, codegen)
    solves = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        sol = solver(x0=x0, lbx=finite(bounds["lbx"], -1), ubx=finite(bounds["ubx"], 1),
                     lbg=finite(bounds["lbg"], -1), ubg=finite(bounds["ubg"], 1))
        wall = time.perf_counter() - start
        stats = solver.stats()
        kernels = sum(stats.get(f"t_wall_{k}", 0.0) for k in CASADI_KERNELS)
        solves.append({"x": np.array(sol["x"]).ravel(), "f": float(sol["f"]),
                       "lam_g": np.array(sol["lam_g"]).ravel(), "status": stats["return_status"],
                       "iterations": stats["iter_count"], "t_derivatives": kernels, "setup": setup, "t_wall": wall})
    return fastest(solves)


def casadi_derivatives_in_cyipopt(text, x0, bounds):
    """CasADi's SX functions (f, g, grad f, sparse jac g, lower Hessian of
    the Lagrangian) as cyipopt's callbacks: the IPOPT dstar runs, CasADi's
    derivatives; (status, f, iterations). Tells the IPOPT version's share of
    an iteration difference from the derivatives' rounding."""
    import casadi as ca
    import cyipopt

    from dstar2casadi import load

    x, outputs, _ = load(text)
    f, g = outputs[0], ca.vertcat(*outputs[1:])
    lam, sigma = ca.SX.sym("lam", g.shape[0]), ca.SX.sym("sigma")
    values = ca.Function("F", [x], [f, g])
    gradient = ca.Function("G", [x], [ca.gradient(f, x)])
    jac = ca.jacobian(g, x)
    hess = ca.tril(ca.hessian(sigma * f + ca.dot(lam, g), x)[0])
    jacobian, hessian = ca.Function("J", [x], [jac]), ca.Function("H", [x, sigma, lam], [hess])

    class Callbacks:
        iterations = 0

        def objective(self, x):
            return float(values(x)[0])

        def constraints(self, x):
            return np.array(values(x)[1]).ravel()

        def gradient(self, x):
            return np.array(gradient(x)).ravel()

        def jacobianstructure(self):
            return tuple(map(np.array, jac.sparsity().get_triplet()))

        def jacobian(self, x):
            return np.array(jacobian(x).nonzeros())

        def hessianstructure(self):
            return tuple(map(np.array, hess.sparsity().get_triplet()))

        def hessian(self, x, lagrange, obj_factor):
            return np.array(hessian(x, obj_factor, lagrange).nonzeros())

        def intermediate(self, alg_mod, iter_count, *args):
            self.iterations = iter_count

    callbacks = Callbacks()
    inf = lambda key, sign: np.array([sign * 2e19 if v is None else v for v in bounds[key]], dtype=float)  # noqa: E731
    problem = cyipopt.Problem(n=x0.size, m=g.shape[0], problem_obj=callbacks, lb=inf("lbx", -1), ub=inf("ubx", 1),
                              cl=inf("lbg", -1), cu=inf("ubg", 1))
    for key, value in {**IPOPT_OPTIONS, "print_level": 0, "sb": "yes"}.items():
        problem.add_option(key, value)
    _, info = problem.solve(x0)
    return dstar.nlp.IPOPT_STATUS[info["status"]], info["obj_val"], callbacks.iterations


def main(argv):
    names = [a for a in argv if not a.startswith("--")] or NAMES
    codegen = "--no-codegen" not in argv
    write = "--write-optima" in argv
    import cyipopt

    ours_version, theirs_version = ".".join(map(str, cyipopt.IPOPT_VERSION)), casadi_ipopt_version()
    print(f"IPOPT {ours_version} (cyipopt {cyipopt.__version__}) for dstar, IPOPT {theirs_version} inside CasADi; "
          f"times: the fastest of {REPEATS} solves, after a warm-up solve")
    warm_text, warm_x0, warm_bounds = problem("hs071")
    solve_dstar(warm_text, warm_x0, warm_bounds), solve_casadi(warm_text, warm_x0, warm_bounds)  # load the libraries
    rows = []
    for name in names:
        text, x0, bounds = problem(name)
        ours = solve_dstar(text, x0, bounds)
        theirs = solve_casadi(text, x0, bounds)
        generated = solve_casadi(text, x0, bounds, codegen=True) if codegen else None
        ours["same_ipopt"] = casadi_derivatives_in_cyipopt(text, x0, bounds)
        rows.append((name, ours, theirs, generated))
        if write:
            (NLP_DIR / f"{name}.optimum.json").write_text(json.dumps({
                "f": theirs["f"], "x": theirs["x"].tolist(), "status": theirs["status"],
                "iterations": theirs["iterations"], "lam_g": theirs["lam_g"].tolist(), "ipopt": theirs_version,
                "reference": "CasADi nlpsol('ipopt') SX from the file's @point, the .bounds.json bounds, "
                             f"IPOPT options {IPOPT_OPTIONS}",
            }) + "\n")
        report(name, ours, theirs, generated)
    summary(rows)


def report(name, ours, theirs, generated):
    df = abs(ours["f"] - theirs["f"]) / max(1.0, abs(theirs["f"]))
    print(f"\n{name}: f* dstar {ours['f']:.12g}, CasADi {theirs['f']:.12g}, |df|/max(1,|f|) = {df:.1e}")
    print(f"  status    dstar {ours['status']}, CasADi {theirs['status']}")
    status, f, iterations = ours["same_ipopt"]
    print(f"  iters     dstar {ours['iterations']}, CasADi {theirs['iterations']}; CasADi's derivatives in dstar's "
          f"IPOPT (cyipopt): {iterations} ({status}, f* {f:.12g})")
    line = f"  set-up    dstar {ours['setup'] * 1e3:.1f} ms, CasADi SX {theirs['setup'] * 1e3:.1f} ms"
    if generated:
        line += f", CasADi codegen -O3 {generated['setup'] * 1e3:.0f} ms"
    print(line)
    it = max(ours["iterations"], 1)
    print(f"  per iter  dstar kernels {ours['t_derivatives'] / it * 1e6:.1f} us "
          f"(+ Python callbacks {(ours['t_callbacks'] - ours['t_derivatives']) / it * 1e6:.1f} us, "
          f"{ours['kernel_calls'] / it:.1f} kernel calls), CasADi SX {theirs['t_derivatives'] / max(theirs['iterations'], 1) * 1e6:.1f} us"
          + (f", codegen {generated['t_derivatives'] / max(generated['iterations'], 1) * 1e6:.1f} us" if generated else ""))
    print(f"  solve     dstar {ours['t_wall'] * 1e3:.1f} ms wall (IPOPT itself {ours['t_solver'] * 1e3:.1f} ms), "
          f"CasADi {theirs['t_wall'] * 1e3:.1f} ms")


def summary(rows):
    print("\nTargets")
    print(f"  {'problem':<22} {'same f*':>8} {'status':>7} {'iters':>6} {'iters, same IPOPT':>18} {'setup<=SX':>10} "
          f"{'codegen/setup':>14} {'kernels<=CasADi':>16}")
    for name, ours, theirs, generated in rows:
        same_f = abs(ours["f"] - theirs["f"]) <= 1e-6 * max(1.0, abs(theirs["f"]))
        same_status = ours["status"] == theirs["status"]
        a, b = ours["iterations"], theirs["iterations"]
        iters = abs(a - b) <= max(2, 0.1 * b)
        c = ours["same_ipopt"][2]
        same_ipopt = abs(a - c) <= max(2, 0.1 * c)
        setup = ours["setup"] <= theirs["setup"]
        ratio = f"{generated['setup'] / ours['setup']:.0f}x" if generated else "-"
        kernels = ours["t_derivatives"] / max(a, 1) <= theirs["t_derivatives"] / max(b, 1)
        yes = lambda ok: "yes" if ok else "NO"  # noqa: E731
        print(f"  {name:<22} {yes(same_f):>8} {yes(same_status):>7} {yes(iters):>6} {yes(same_ipopt):>18} {yes(setup):>10} "
              f"{ratio:>14} {yes(kernels):>16}")


if __name__ == "__main__":
    tempfile.tempdir = tempfile.mkdtemp()
    main(sys.argv[1:])
